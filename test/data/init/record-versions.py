#!/usr/bin/env python3
"""Records test/data/init/required-version.json: for each required_version string in the list below, what
Terraform 1.11.4's `init` says about it: "ok", or the summary of the error it reports.
Usage: python3 test/data/init/record-versions.py [terraform-binary]"""
import json, os, re, subprocess, sys, tempfile, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
TF = sys.argv[1] if len(sys.argv) > 1 else "terraform"
CONSTRAINTS = [
    ">= 1.5.0", "< 1.0.0", "1.11.4", "= 1.11.4", "!= 1.11.4", "1.11", "~> 1.11", "~> 1.11.0", "~> 1.10.0",
    "~> 1.0", "~> 1", "~> 0.12", "> 1.11.4", ">= 1.11.4", "<= 1.11.4", "< 1.11.4", ">1.0,<2.0", " >= 1.0 , < 2.0 ",
    ">= 1.0, < 1.11", "v1.11.4", "= v1.11.4", "1.11.4.0", "~> 1.11.4.0", "1", ">= 1.12.0-beta1", "~> 1.11.0-rc1",
    "1.11.4-dev", ">= 1.0 < 2.0", "=> 1.0", "=< 2.0", ">== 1.0", "", "abc", "~> x", ">= 1.x", "1.11.4+meta",
    ">= 1.11.4+meta", "> 1.11.3", "<2", "~>1.11", "~> 1.11.5", "~> 1.12", "~> 2", ">=0.0.0", ", >= 1.0", ">= 1.0,",
]


def main():
    out = []
    tmp = tempfile.mkdtemp()
    try:
        open(os.path.join(tmp, "empty.tfrc"), "w").close()
        env = {k: v for k, v in os.environ.items() if not k.startswith("TF_")}
        env.update({"TF_IN_AUTOMATION": "1", "CHECKPOINT_DISABLE": "1", "HOME": tmp,
                    "TF_CLI_CONFIG_FILE": os.path.join(tmp, "empty.tfrc")})
        for c in CONSTRAINTS:
            work = os.path.join(tmp, "w")
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
            open(os.path.join(work, "main.tf"), "w").write('terraform {\n  required_version = %s\n}\n' % json.dumps(c))
            r = subprocess.run([TF, "init", "-json"], cwd=work, env=env, capture_output=True, text=True)
            result = "ok"
            for line in r.stdout.splitlines():
                d = json.loads(line)
                if d.get("type") == "diagnostic" and d["diagnostic"]["severity"] == "error":
                    result = d["diagnostic"]["summary"]
                    break
            out.append({"constraint": c, "result": result})
    finally:
        shutil.rmtree(tmp)
    json.dump(out, open(os.path.join(HERE, "required-version.json"), "w"), indent=1)
    open(os.path.join(HERE, "required-version.json"), "a").write("\n")


main()
