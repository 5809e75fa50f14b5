#!/usr/bin/env python3
"""Extracts every distinct state recorded in the scenario corpus (shared/conformance/scenarios/recorded) into
corpus-states.json: {"<scenario>#<step>[:<workspace>]": "<state file text>"}. The recordings store states parsed
with their placeholders; this puts concrete values back (serial 1, terraform_version 1.11.4, lineage a fixed UUID
per placeholder) and lays each one out as Terraform writes it (2-space indent, HTML-safe escapes, newline), keeping
the recorded key and element order, which is Terraform's. Usage: python3 corpus-states.py [CORPUS_DIR]"""
import glob, json, os, sys

corpus = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '../../../../shared/conformance/scenarios')
here = os.path.dirname(os.path.abspath(__file__))

def concrete(v):
    if isinstance(v, dict):
        return {k: concrete(x) for k, x in v.items()}
    if isinstance(v, list):
        return [concrete(x) for x in v]
    if v == '<SERIAL>':
        return 1
    if v == '<TF_VERSION>':
        return '1.11.4'
    if isinstance(v, str) and v.startswith('<LINEAGE-'):
        n = int(v[len('<LINEAGE-'):-1])
        return '00000000-0000-0000-0000-%012d' % n
    return v

def go_text(obj):
    s = json.dumps(obj, indent=2, ensure_ascii=False)
    return s.replace('<', '\\u003c').replace('>', '\\u003e').replace('&', '\\u0026').replace('\u2028', '\\u2028').replace('\u2029', '\\u2029') + '\n'

out, seen = {}, set()
for f in sorted(glob.glob(os.path.join(corpus, 'recorded', '*.json'))):
    d = json.load(open(f))
    name = os.path.basename(f)[:-5]
    for i, step in enumerate(d['steps']):
        r = step.get('result')
        if not r:
            continue
        states = [('', r.get('state'))] + sorted((r.get('workspace_states') or {}).items())
        for ws, st in states:
            if st is None:
                continue
            text = go_text(concrete(st))
            if text in seen:
                continue
            seen.add(text)
            out['%s#%d%s' % (name, i, ':' + ws if ws else '')] = text
json.dump(out, open(os.path.join(here, 'corpus-states.json'), 'w'), indent=1)
print(len(out), 'states')
