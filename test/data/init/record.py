#!/usr/bin/env python3
"""Records test/data/init/recorded.json from a live Terraform 1.11.4.

Each case in cases.json is a set of files and a list of steps; every step is an argv run in the same
temporary directory (after optional file writes). For every run the exit status, stdout, stderr and the
content of the files init/get write (.terraform/modules/modules.json, .terraform.lock.hcl) are stored.
JSON-stream timestamps are replaced by <TIMESTAMP>. Environment as in the scenario corpus:
TF_IN_AUTOMATION=1, CHECKPOINT_DISABLE=1, an empty CLI configuration file, HOME in the temp dir.
Usage: python3 test/data/init/record.py [terraform-binary]
"""
import json, os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TF = sys.argv[1] if len(sys.argv) > 1 else "terraform"
WATCH = [".terraform/modules/modules.json", ".terraform.lock.hcl", ".terraform/terraform.tfstate"]


def norm(s):
    return re.sub(r'"@timestamp":"[^"]*"', '"@timestamp":"<TIMESTAMP>"', s)


def main():
    cases = json.load(open(os.path.join(HERE, "cases.json")))
    out = []
    for case in cases:
        tmp = tempfile.mkdtemp()
        try:
            work = os.path.join(tmp, "work")
            os.makedirs(work)
            open(os.path.join(tmp, "empty.tfrc"), "w").close()
            env = {k: v for k, v in os.environ.items() if not k.startswith("TF_")}
            env.update({"TF_IN_AUTOMATION": "1", "CHECKPOINT_DISABLE": "1", "LANG": "C.UTF-8", "HOME": tmp,
                        "TF_CLI_CONFIG_FILE": os.path.join(tmp, "empty.tfrc")})
            for path, content in case["files"].items():
                p = os.path.join(work, path)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                open(p, "w").write(content)
            results = []
            for step in case["steps"]:
                for path, content in step.get("write", {}).items():
                    p = os.path.join(work, path)
                    os.makedirs(os.path.dirname(p), exist_ok=True)
                    open(p, "w").write(content)
                e = dict(env)
                e.update(step.get("env", {}))
                r = subprocess.run([TF] + step["run"], cwd=work, env=e, capture_output=True, text=True)
                files = {}
                for w in WATCH:
                    p = os.path.join(work, w)
                    files[w] = open(p).read() if os.path.exists(p) else None
                results.append({"run": step["run"], "exit_code": r.returncode, "stdout": norm(r.stdout),
                                "stderr": norm(r.stderr), "files_after": files})
            out.append({"name": case["name"], "results": results})
        finally:
            shutil.rmtree(tmp)
    json.dump(out, open(os.path.join(HERE, "recorded.json"), "w"), indent=1, ensure_ascii=False)
    open(os.path.join(HERE, "recorded.json"), "a").write("\n")


main()
