#!/usr/bin/env python3
"""Builds every case of cases.py, compiles it with atc --framework=3, runs omrun and compares
with the numpy reference (max abs error <= 1e-4 * max(1, largest reference magnitude)).
Usage: run_cases.py BIN_DIR [name-substring]. Prints PASS/FAIL lines and "N passed, N failed"."""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402
import tfgen  # noqa: E402


def run(bin_dir, name, fn, text, tmp, args=(), expect=None):
    g = tfgen.Graph()
    inputs, outs = fn(g)
    model = os.path.join(tmp, name + (".pbtxt" if text else ".pb"))
    g.save(model, text)
    files = []
    for k in sorted(inputs):  # graph inputs are ordered by name
        p = os.path.join(tmp, f"{name}_{k}.npy")
        np.save(p, inputs[k])
        files.append(p)
    om = os.path.join(tmp, name)
    cmd = [os.path.join(bin_dir, "atc"), "--model=" + model, "--framework=3", "--output=" + om,
           "--soc_version=native", "--precision_mode=must_keep_origin_dtype",
           "--out_nodes=" + ";".join(o for o, _ in outs)] + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)  # atc writes fusion_result.json to cwd
    if r.returncode != 0:
        return "atc failed: " + (r.stdout + r.stderr).strip().splitlines()[-2:].__str__()
    if expect:
        import json
        with open(os.path.join(tmp, "fusion_result.json")) as f:
            gf = next(iter(json.load(f).values())).get("graph_fusion", {})
        for p, times in expect.items():
            got = gf.get(p, {}).get("effect_times")
            if got != times:
                return f"fusion_result.json: {p} effect_times {got}, expected {times}"
    od = os.path.join(tmp, name + "_out")
    r = subprocess.run([os.path.join(bin_dir, "omrun"), "--model=" + om + ".om", "--input=" + ",".join(files),
                        "--output=" + od], capture_output=True, text=True)
    if r.returncode != 0:
        return "omrun failed: " + (r.stdout + r.stderr).strip()[-300:]
    for i, (tname, want) in enumerate(outs):
        got = np.load(os.path.join(od, f"output_{i}.npy"))
        want = np.asarray(want)
        if got.shape != want.shape:
            return f"{tname}: shape {got.shape} != {want.shape}"
        if want.dtype.kind in "iub":
            if not np.array_equal(got, want.astype(got.dtype)):
                return f"{tname}: integer values differ"
            continue
        err = float(np.max(np.abs(got.astype(np.float64) - want))) if want.size else 0.0
        scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
        if not err <= 1e-4 * scale:
            return f"{tname}: max abs err {err:.3e} (scale {scale:.3e})"
    return None


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    filt = sys.argv[2] if len(sys.argv) > 2 else ""
    tmp = tempfile.mkdtemp(prefix="tfcases_")
    passed = failed = 0
    try:
        for name, fn, text, args, expect in cases.CASES:
            if filt not in name:
                continue
            why = run(bin_dir, name, fn, text, tmp, args, expect)
            if why is None:
                passed += 1
                print("PASS", name)
            else:
                failed += 1
                print("FAIL", name + ":", why)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
