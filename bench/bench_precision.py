#!/usr/bin/env python3
"""Our reduced-precision builds against our fp32 build of the same model, in one run.

For each model: compile it with atc under must_keep_origin_dtype (fp32) and each requested
mode (fp16 = force_fp16, mix = allow_mix_precision, bf16 = allow_fp32_to_bf16), then run the
builds with omrun in interleaved rounds (so a load change on the host hits them alike) and
print per model the median latencies, the ratio of each mode to fp32 (of the medians over
rounds, and of the fastest single runs: on a shared host an episode of a slow core can hit one
build's rounds and not the other's, which moves the median ratio by up to 20% and, on the
2-vCPU Xeons of sessions 25-29, by up to 1.7x; the fastest-run ratio far less) and the cosine
similarity of its output with the fp32 output; then the geomean ratios per mode. This is the
measurement behind the performance issue's "reduced precision no slower than fp32 (within 5%)".

On a host without float16 arithmetic (every x86 before AVX512-FP16) float16 is a storage type
converted on load and rounded on store: the ratio shows that cost against the saved traffic.
docs/precision.md, docs/performance.md.

Usage: bench_precision.py [--bin build/bin] [--models resnet18,...|all] [--modes fp16,mix,bf16]
                          [--threads 1] [--rounds 3] [--loop 10] [--warmup 3] [--soc native]
Models are those of bench_vs_ort.py (the shared ones, torchvision exports cached under --cache).
"""
import argparse, json, math, os, statistics, subprocess, sys, tempfile

import numpy as np

import bench_models

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = {"fp32": "must_keep_origin_dtype", "fp16": "force_fp16", "mix": "allow_mix_precision",
         "bf16": "allow_fp32_to_bf16"}


def compile_om(a, onnx, out, mode, env):
    r = subprocess.run([os.path.join(a.bin, "atc"), "--model=" + onnx, "--framework=5", "--output=" + out,
                        "--soc_version=" + a.soc, "--precision_mode=" + MODES[mode]],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("atc failed (%s, %s):\n%s%s" % (onnx, mode, r.stdout[-2000:], r.stderr[-2000:]))
    return out + ".om"


def run_om(a, om, npy, outdir, env):
    summ = outdir + ".summary.json"
    cmd = [os.path.join(a.bin, "omrun"), "--model=" + om, "--input=" + npy, "--output=" + outdir,
           "--loop=%d" % a.loop, "--warmup=%d" % a.warmup, "--summary=" + summ]
    if a.threads:
        cmd.append("--threads=%d" % a.threads)
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("omrun failed (%s):\n%s%s" % (om, r.stdout[-2000:], r.stderr[-2000:]))
    with open(summ) as f:
        lat = json.load(f)["latency_ms"]
    return float(lat["median"]), float(lat["min"])


def cosine(outdir, ref):
    y = np.load(os.path.join(outdir, "output_0.npy")).astype(np.float64).ravel()
    if ref is None:
        return 1.0, y
    return float(y.dot(ref) / (np.linalg.norm(y) * np.linalg.norm(ref) + 1e-300)), ref


def bench_model(a, name, modes, work, env):
    onnx = bench_models.model_path(name, a.cache)
    npy = os.path.splitext(onnx)[0] + ".in.npy"
    oms = {m: compile_om(a, onnx, os.path.join(work, name + "_" + m), m, env) for m in modes}
    times = {m: [] for m in modes}
    for _ in range(a.rounds):
        for m in modes:
            times[m].append(run_om(a, oms[m], npy, os.path.join(work, name + "_" + m + "_out"), env))
    row, ref = {"model": name}, None
    for m in modes:
        row[m + "_ms"] = statistics.median(t[0] for t in times[m])
        row[m + "_best_ms"] = min(t[1] for t in times[m])
        row[m + "_cos"], ref = cosine(os.path.join(work, name + "_" + m + "_out"), ref)
        os.remove(oms[m])
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(bench_models.ROOT, "build", "bin"))
    ap.add_argument("--modes", default="fp16,mix,bf16")
    bench_models.add_ours_only_args(ap)
    ap.add_argument("--json", help="also write the rows to this file")
    a = ap.parse_args()
    a.bin = os.path.abspath(a.bin)
    names = bench_models.ALL_MODELS if a.models == "all" else a.models.split(",")
    modes = ["fp32"] + [m for m in a.modes.split(",") if m != "fp32"]
    for m in modes:
        if m not in MODES:
            sys.exit("unknown mode %r (choose from %s)" % (m, ", ".join(MODES)))
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_precision_") as work:
        env = dict(os.environ, ASCEND_CACHE_PATH=os.path.join(work, "cache"))
        for name in names:
            r = bench_model(a, name, modes, work, env)
            rows.append(r)
            print(name + ": " + ", ".join("%s %.3f ms (%.3f)" % (m, r[m + "_ms"], r[m + "_ms"] / r["fp32_ms"])
                                         for m in modes), flush=True)
    import peak_probe
    print("\nhost: %s; threads=%d; soc=%s; rounds=%dx%d runs, interleaved; ratio = mode / fp32 latency "
          "(medians over rounds; best: the fastest single runs)" % (peak_probe.cpu_name(), a.threads, a.soc, a.rounds, a.loop))
    print("| model | " + " | ".join("%s ms" % m for m in modes) + " | "
          + " | ".join("%s/fp32 | best | %s cos" % (m, m) for m in modes[1:]) + " |")
    print("|---" * (1 + len(modes) + 3 * (len(modes) - 1)) + "|")
    for r in rows:
        print("| %s | " % r["model"] + " | ".join("%.3f" % r[m + "_ms"] for m in modes) + " | "
              + " | ".join("%.3f | %.3f | %.6f" % (r[m + "_ms"] / r["fp32_ms"], r[m + "_best_ms"] / r["fp32_best_ms"],
                                                  r[m + "_cos"]) for m in modes[1:]) + " |")
    geo = {m: math.exp(statistics.mean(math.log(r[m + "_ms"] / r["fp32_ms"]) for r in rows)) for m in modes[1:]}
    best = {m: math.exp(statistics.mean(math.log(r[m + "_best_ms"] / r["fp32_best_ms"]) for r in rows))
            for m in modes[1:]}
    print("| **geomean** | " + " | " * (len(modes) - 1) + " | "
          + " | ".join("**%.3f** | **%.3f** | " % (geo[m], best[m]) for m in modes[1:]) + "|")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"host": peak_probe.cpu_name(), "threads": a.threads, "soc": a.soc, "rows": rows,
                       "geomean": geo, "geomean_best": best}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
