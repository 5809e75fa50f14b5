#!/usr/bin/env python3
"""Foresight addition (not part of the recorded corpus): replays every scenario with a candidate CLI exactly as
scenario-compare.py does and prints one JSON document: [{"scenario": NAME, "steps": [[STEP, [FIELD, ...]], ...]}],
the failing fields of every run step ([] when it passes). Used by test/cli/scenarios.test.ts.

Usage: scenario-steps-json.py [--jobs N] CORPUS CMD...
"""
import importlib.util, json, os, shlex, sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("scenario_compare", os.path.join(HERE, "scenario-compare.py"))
compare_mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare_mod)


def main():
    args = sys.argv[1:]
    jobs = os.cpu_count() or 2
    if args[:1] == ["--jobs"]:
        jobs, args = int(args[1]), args[2:]
    corpus, cmd = args[0], args[1:]
    if len(cmd) == 1:
        cmd = shlex.split(cmd[0])
    if os.path.isdir(os.path.join(corpus, "recorded")):
        corpus = os.path.join(corpus, "recorded")
    files = sorted(f for f in os.listdir(corpus) if f.endswith(".json"))
    recs = [json.load(open(os.path.join(corpus, f), encoding="utf-8")) for f in files]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda r: compare_mod.compare(r, cmd, False), recs))
    out = [{"scenario": name, "steps": [[i, bad] for i, bad in rows]} for name, rows, _ in results]
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


main()
