#!/usr/bin/env python3
"""Runs the cases of cases.json with a terraform-compatible CLI and prints (or writes) the results as JSON.

Usage: record.py [--out FILE] CMD...   (CMD: `terraform` to record, `node dist/cli.js` to compare by hand)
Each case runs in a fresh temporary directory holding a copy of fixtures/<fixture>/ plus the case's files, with the
scenario corpus's environment (TF_IN_AUTOMATION=1, CHECKPOINT_DISABLE=1, empty CLI config, HOME=tmp). After every
step the recorder stores exit code, stdout, stderr and the files the state verbs touch (terraform.tfstate, the
workspace state files, .terraform/environment) as `files`, only after steps that changed them; backups (timestamped names) and lock files are not recorded.
"""
import json, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

def snapshot(d):
    files = {}
    for root, _dirs, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            rel = os.path.relpath(p, d)
            if rel in ('terraform.tfstate', 'custom.tfstate') or rel.startswith('terraform.tfstate.d/') or rel.startswith('wsd/') or rel == os.path.join('.terraform', 'environment'):
                with open(p, encoding='utf-8', errors='replace') as f:
                    files[rel] = f.read()
    return dict(sorted(files.items()))

def main():
    args = sys.argv[1:]
    out = None
    if args[:1] == ['--out']:
        out, args = args[1], args[2:]
    cmd = args
    cases = json.load(open(os.path.join(HERE, 'cases.json')))
    results = []
    for case in cases:
        with tempfile.TemporaryDirectory() as tmp:
            work = os.path.join(tmp, 'work')
            if case.get('fixture'):
                shutil.copytree(os.path.join(HERE, 'fixtures', case['fixture']), work)
            else:
                os.makedirs(work)
            for name, content in (case.get('files') or {}).items():
                with open(os.path.join(work, name), 'w') as f:
                    f.write(content)
            cfg = os.path.join(tmp, 'empty.tfrc')
            open(cfg, 'w').close()
            env = {k: v for k, v in os.environ.items() if not k.startswith('TF_') and k != 'LC_ALL'}
            env.update(TF_IN_AUTOMATION='1', CHECKPOINT_DISABLE='1', LANG='C.UTF-8', HOME=tmp, TF_CLI_CONFIG_FILE=cfg)
            steps = []
            before = snapshot(work)
            for step in case['steps']:
                p = subprocess.run(cmd + step, cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
                norm = lambda b: b.decode('utf-8', 'replace').replace(os.path.realpath(work), '<WORKDIR>').replace(work, '<WORKDIR>')
                rec = {'args': step, 'exit_code': p.returncode, 'stdout': norm(p.stdout), 'stderr': norm(p.stderr)}
                after = snapshot(work)
                if after != before:
                    rec['files'] = after
                before = after
                steps.append(rec)
            results.append({'name': case['name'], 'steps': steps})
    text = json.dumps(results, indent=1, ensure_ascii=False) + '\n'
    if out:
        open(out, 'w').write(text)
    else:
        sys.stdout.write(text)

main()
