#!/usr/bin/env python3
"""The layering check: fails when a source file includes a header from a layer above its own.

Layers, bottom to top (docs/architecture.md has the picture). A folder may include its own
headers and those of the folders listed for it; nothing else. There are no exceptions:
change the code, or change this table in the same commit as docs/architecture.md.

Usage: layering.py [--root DIR]   (exit 1 and one line per violation when any)
"""
import argparse
import os
import re
import sys

# folder -> folders it may include from (besides itself)
ALLOWED = {
    "support": [],
    "kernels/lib": [],
    "ir": ["support"],
    "target": ["support"],
    "runtime": ["support", "kernels/lib"],
    "ops": ["support", "ir", "target", "kernels/lib"],
    "frontends": ["support", "ir", "ops"],
    "passes": ["support", "ir", "target", "ops", "kernels/lib"],
    "cache": ["support"],
    "kernels/codegen": ["support", "target", "cache", "kernels/lib"],
    "backend": ["support", "ir", "target", "ops", "passes", "cache", "kernels/codegen", "kernels/lib", "runtime"],
    "atc": ["support", "ir", "target", "ops", "frontends", "passes", "cache", "kernels/codegen", "kernels/lib",
            "backend", "runtime"],
    # the accuracy compare (atc-compare): reads dumps with the runtime's .npy reader
    "compare": ["support", "runtime"],
    "cli": ["support", "atc", "runtime", "compare"],
    # libFuzzer harnesses: like cli, on top of everything
    "fuzz": ["support", "ir", "target", "ops", "frontends", "passes", "cache", "kernels/codegen", "kernels/lib",
             "backend", "atc", "runtime"],
}
SKIP_TOP = {"tests", "build", "build-san", "bench", "samples", "docs", "scripts", ".git", ".ci"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    parts = rel.split("/")
    if parts[0] == "kernels" and len(parts) > 2:
        return "kernels/" + parts[1]
    return parts[0] if len(parts) > 1 else None


def check(root):
    problems, files = [], 0
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        top = rel_dir.split("/")[0]
        if top in SKIP_TOP or top.startswith("build"):
            dirnames[:] = []
            continue
        for fn in sorted(filenames):
            if not fn.endswith((".cpp", ".h", ".cc", ".def")):
                continue
            rel = os.path.normpath(os.path.join(rel_dir, fn))
            own = layer_of(rel)
            if own is None:
                continue
            if own not in ALLOWED:
                problems.append(f"{rel}: folder {own} has no layer in tests/structure/layering.py")
                continue
            files += 1
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                inc = m.group(1)
                target = layer_of(inc)
                if target is None or target == own or not os.path.exists(os.path.join(root, inc)):
                    continue  # same folder, or not a project header (generated, system)
                if target not in ALLOWED.get(own, []):
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(f"{rel}:{line}: includes {inc}: layer {own} may not include from {target}")
    return problems, files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    a = ap.parse_args()
    problems, files = check(os.path.abspath(a.root))
    for p in problems:
        print(p)
    print(f"layering: {files} files, {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
