#!/usr/bin/env python3
"""Two builds of atc/omrun against each other on the same models, in one run (A/B latency check).

For a kernel or pass change: build the old tree into another folder, then compare. Each model is
compiled by both (same precision mode, kernel cache off so nothing is shared) and the two .om files
run with their own omrun in interleaved rounds; per model the medians, B/A and the max abs
difference of the outputs, then the geomean of B/A.

Usage: bench_ab.py --a OLD/build/bin [--b build/bin] [--models resnet18,...|all]
                   [--precision must_keep_origin_dtype] [--threads 1] [--rounds 3] [--loop 10]
"""
import argparse, json, math, os, statistics, subprocess, sys, tempfile

import numpy as np

import bench_models


def build(binp, onnx, out, a):
    r = subprocess.run([os.path.join(binp, "atc"), "--model=" + onnx, "--framework=5", "--output=" + out,
                        "--soc_version=" + a.soc, "--precision_mode=" + a.precision, "--op_compiler_cache_mode=disable"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("atc (%s) failed on %s:\n%s%s" % (binp, onnx, r.stdout[-2000:], r.stderr[-2000:]))
    return out + ".om"


def run(binp, om, npy, outdir, a):
    summ = outdir + ".json"
    r = subprocess.run([os.path.join(binp, "omrun"), "--model=" + om, "--input=" + npy, "--output=" + outdir,
                        "--loop=%d" % a.loop, "--warmup=%d" % a.warmup, "--threads=%d" % a.threads,
                        "--summary=" + summ], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("omrun (%s) failed:\n%s%s" % (binp, r.stdout[-2000:], r.stderr[-2000:]))
    with open(summ) as f:
        return float(json.load(f)["latency_ms"]["median"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="bin folder of build A (the baseline)")
    ap.add_argument("--b", default=os.path.join(bench_models.ROOT, "build", "bin"))
    ap.add_argument("--precision", default="must_keep_origin_dtype")
    bench_models.add_ours_only_args(ap)
    a = ap.parse_args()
    bins = {"A": os.path.abspath(a.a), "B": os.path.abspath(a.b)}
    names = bench_models.ALL_MODELS if a.models == "all" else a.models.split(",")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_ab_") as work:
        for name in names:
            onnx = bench_models.model_path(name, a.cache)
            npy = os.path.splitext(onnx)[0] + ".in.npy"
            oms = {k: build(b, onnx, os.path.join(work, name + "_" + k), a) for k, b in bins.items()}
            t = {"A": [], "B": []}
            for _ in range(a.rounds):
                for k in ("A", "B"):
                    t[k].append(run(bins[k], oms[k], npy, os.path.join(work, name + "_" + k + "_out"), a))
            ya = np.load(os.path.join(work, name + "_A_out", "output_0.npy")).astype(np.float64)
            yb = np.load(os.path.join(work, name + "_B_out", "output_0.npy")).astype(np.float64)
            ma, mb = statistics.median(t["A"]), statistics.median(t["B"])
            rows.append((name, ma, mb, float(np.abs(ya - yb).max())))
            print("%s: A %.3f ms, B %.3f ms, B/A %.3f, max |diff| %.3g" % (name, ma, mb, mb / ma, rows[-1][3]),
                  flush=True)
    import peak_probe
    print("\nhost: %s; threads=%d; precision=%s; rounds=%dx%d, interleaved; A=%s B=%s"
          % (peak_probe.cpu_name(), a.threads, a.precision, a.rounds, a.loop, bins["A"], bins["B"]))
    print("| model | A ms | B ms | B/A | max abs diff |\n|---|---|---|---|---|")
    for name, ma, mb, d in rows:
        print("| %s | %.3f | %.3f | %.3f | %.3g |" % (name, ma, mb, mb / ma, d))
    print("| **geomean** | | | **%.3f** | |" % math.exp(statistics.mean(math.log(mb / ma) for _, ma, mb, _ in rows)))


if __name__ == "__main__":
    sys.exit(main())
