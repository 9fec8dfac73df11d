#!/usr/bin/env python3
"""Checks the pass registry's naming rule: pass = function = file.

Every ATC_PASS(Name, fn, ...) line of passes/pass_registry.def has fn == "run" + Name in
CamelCase (constant_folding -> runConstantFolding) and is defined as `bool fn(Graph&...`
in passes/<group folder>/<snake_case(Name)>.cpp. Also lists the registered passes that no
golden case under tests/golden names on its "// passes:" line (every pass needs one).

Usage: pass_names.py [--root DIR]
"""
import argparse
import glob
import os
import re
import sys


def snake(name):
    if "_" in name or name.islower():
        return name
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def camel(name):
    if "_" in name or name.islower():
        return "".join(p.capitalize() for p in name.split("_"))
    return name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    root = os.path.abspath(ap.parse_args().root)
    reg = open(os.path.join(root, "passes/pass_registry.def")).read()
    entries = re.findall(r"^ATC_PASS\((\w+), (\w+),", reg, re.M)
    problems = []
    covered = set()
    for f in glob.glob(os.path.join(root, "tests/golden/**/*.before.ir"), recursive=True):
        for line in open(f):
            if line.startswith("// passes:"):
                covered.update(line[len("// passes:"):].split())
                break
    for name, fn in entries:
        if fn != "run" + camel(name):
            problems.append(f"pass {name}: function {fn}, expected run{camel(name)}")
        files = glob.glob(os.path.join(root, "passes", "*", snake(name) + ".cpp"))
        if len(files) != 1:
            problems.append(f"pass {name}: expected one file passes/*/{snake(name)}.cpp, found {len(files)}")
        elif not re.search(r"^bool " + fn + r"\(Graph&", open(files[0]).read(), re.M):
            problems.append(f"pass {name}: {os.path.relpath(files[0], root)} does not define bool {fn}(Graph& ...)")
        if name not in covered:
            problems.append(f"pass {name}: no golden case under tests/golden names it on a '// passes:' line")
    for p in problems:
        print(p)
    print(f"pass_names: {len(entries)} passes, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
