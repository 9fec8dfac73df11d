#!/usr/bin/python3
"""Latency of our compiled models against ONNX Runtime (CPU) on the same machine, in one run.

For each model: cold-compiles the ONNX file with atc (kernel cache disabled, timed), then in
interleaved rounds runs omrun and ONNX Runtime (the npm package onnxruntime-node@1.30.0, driven
by bench/ort_runner.js) on the same input with the same thread count, and prints both medians,
the ratio ours / ONNX Runtime, our GFLOP/s (Conv/MatMul/Gemm work) and the percent of the
host's measured FMA peak (a probe for the target's vector width times the thread count), then
the geomean of the ratios. ONNX Runtime is installed into the cache folder when missing
(`npm install --ignore-scripts`: its CPU library ships in the package).

With --int8 (resnet18,mobilenet_v2,bert_base, or a subset), also the int8 rows (issue #16):
tests/e2e/make_qdq_models.py writes each model's fp32 export and its QDQ form (min/max
calibration, uint8 activations, int8 per-channel weights); our builds of both and ONNX Runtime
on both (its int8 kernels run the QDQ form) are timed in interleaved rounds, and the table gives
our QDQ build over our fp32 build (target: 1.8x faster, <= 0.56) and over ONNX Runtime's QDQ run
(target <= 1.0). `--models none` skips the fp32 list.

Usage: bench/bench_vs_ort.py [--bin build/bin] [--models a,b|all|none] [--threads 2] [--rounds 5]
       [--loop 10] [--warmup 3] [--soc native] [--precision must_keep_origin_dtype]
       [--cache ~/.cache/atc-bench] [--markdown] [--int8 resnet18,mobilenet_v2,bert_base]
       [--stat median|min]
--stat min compares the fastest single run of each side over all rounds instead of medians: on
a host whose speed swings by 2x for minutes at a time (the 2-vCPU Xeons of sessions 25-29) the
medians measure the swings, the minima what each side's code can do.
Needs /usr/bin/python3 with numpy, onnx, torch and torchvision (for the exports), node and npm.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_models  # noqa: E402
import peak_probe  # noqa: E402

ORT_VERSION = "1.30.0"
STAT_WORDS = {"median": "medians of the rounds' medians",
              "min": "fastest single runs (--stat min)"}


def ensure_ort(cache):
    pkg = os.path.join(cache, "ort", "node_modules", "onnxruntime-node")
    if not os.path.exists(os.path.join(pkg, "package.json")):
        os.makedirs(os.path.join(cache, "ort"), exist_ok=True)
        subprocess.run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund",
                        "onnxruntime-node@" + ORT_VERSION], cwd=os.path.join(cache, "ort"),
                       check=True, stdout=subprocess.DEVNULL)
    return pkg


def compile_model(a, name, path, tmp):
    out = os.path.join(tmp, name)
    t0 = time.perf_counter()
    r = subprocess.run([os.path.join(a.bin, "atc"), "--model=" + path, "--framework=5",
                        "--output=" + out, "--soc_version=" + a.soc,
                        "--precision_mode=" + a.precision,
                        "--op_compiler_cache_mode=disable"],  # a true cold compile
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"atc failed on {name}:\n{r.stdout[-2000:]}")
    return out + ".om", time.perf_counter() - t0


def run_ours(a, om, npy, tmp, stat="median"):
    summary = os.path.join(tmp, "summary.json")
    subprocess.run([os.path.join(a.bin, "omrun"), "--model=" + om, "--input=" + npy,
                    "--loop=%d" % a.loop, "--warmup=%d" % a.warmup, "--threads=%d" % a.threads,
                    "--summary=" + summary], check=True, stdout=subprocess.DEVNULL)
    with open(summary) as f:
        return json.load(f)["latency_ms"][stat]


def ort_spec(a, ort_pkg, path, npy, tmp, spec_name="ort_spec.json"):
    import onnx
    g = onnx.load(path, load_external_data=False).graph
    inits = {i.name for i in g.initializer}
    name = [i.name for i in g.input if i.name not in inits][0]
    x = np.load(npy)
    raw = os.path.join(tmp, "input.bin")
    x.tofile(raw)
    spec = {"ort": ort_pkg, "model": path, "threads": a.threads, "warmup": a.warmup,
            "loop": a.loop, "inputs": [{"name": name, "dtype": str(x.dtype),
                                        "dims": list(x.shape), "file": raw}]}
    spec_path = os.path.join(tmp, spec_name)
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    return spec_path


def run_ort(spec_path, stat="median"):
    r = subprocess.run(["node", os.path.join(HERE, "ort_runner.js"), spec_path],
                       check=True, stdout=subprocess.PIPE, text=True)
    return combine(stat, json.loads(r.stdout)["times_ms"])


def combine(stat, times):
    """A side's figure from its runs (or its rounds' figures): --stat min or median."""
    return min(times) if stat == "min" else statistics.median(times)


def bench_model(a, ort_pkg, name, tmp):
    path = bench_models.model_path(name, a.cache)
    npy = os.path.splitext(path)[0] + ".in.npy"
    om, compile_s = compile_model(a, name, path, tmp)
    spec = ort_spec(a, ort_pkg, path, npy, tmp)
    ours, theirs = [], []
    for _ in range(a.rounds):  # interleaved, so load changes hit both alike
        ours.append(run_ours(a, om, npy, tmp, a.stat))
        theirs.append(run_ort(spec, a.stat))
    os.remove(om)
    return {"model": name, "compile_s": compile_s, "ours_ms": combine(a.stat, ours),
            "ort_ms": combine(a.stat, theirs), "gflop": bench_models.count_gflop(path)}


def print_table(a, rows, peak, markdown):
    cpu = peak_probe.cpu_name()
    print(f"\nhost: {cpu}; {os.cpu_count()} cores; threads={a.threads}; soc={a.soc}; "
          f"precision={a.precision}; rounds={a.rounds}x{a.loop} runs; {STAT_WORDS[a.stat]}; "
          f"FMA peak {peak['gflops']:.1f} GFLOP/s per core ({peak['isa']})")
    cols = ["model", "atc cold s", "ours ms", "ORT ms", "ours/ORT", "GFLOP/s", "% peak"]
    if markdown:
        print("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
    else:
        print("".join(f"{c:>12}" for c in cols))
    for r in rows:
        gfs = r["gflop"] / (r["ours_ms"] / 1e3)
        pct = 100 * gfs / (peak["gflops"] * a.threads)
        vals = [r["model"], f"{r['compile_s']:.2f}", f"{r['ours_ms']:.2f}", f"{r['ort_ms']:.2f}",
                f"{r['ours_ms'] / r['ort_ms']:.2f}x", f"{gfs:.1f}", f"{pct:.0f}%"]
        print("| " + " | ".join(vals) + " |" if markdown else "".join(f"{v:>12}" for v in vals))
    ratios = [r["ours_ms"] / r["ort_ms"] for r in rows]
    geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    print(f"\ngeomean ours/ORT over {len(rows)} models: {geo:.2f}x; "
          f"worst {max(ratios):.2f}x ({rows[ratios.index(max(ratios))]['model']})")


def bench_int8(a, ort_pkg, names, tmp):
    """Rows of the int8 table: per model the medians of our fp32 and QDQ builds and ONNX
    Runtime's runs of both, interleaved."""
    subprocess.run(["/usr/bin/python3", os.path.join(bench_models.ROOT, "tests", "e2e", "make_qdq_models.py"),
                    "--fp32", tmp] + names, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows = []
    for name in names:
        npy = os.path.join(tmp, name + ".in.npy")
        runs = {}
        for kind, path in (("fp32", os.path.join(tmp, name + ".fp32.onnx")), ("qdq", os.path.join(tmp, name + ".onnx"))):
            om, _ = compile_model(a, name + "_" + kind, path, tmp)
            runs[kind] = (om, ort_spec(a, ort_pkg, path, npy, tmp, "ort_spec_%s.json" % kind))
        t = {k: [] for k in ("ours_fp32", "ours_qdq", "ort_fp32", "ort_qdq")}
        for _ in range(a.rounds):
            for kind in ("fp32", "qdq"):
                t["ours_" + kind].append(run_ours(a, runs[kind][0], npy, tmp, a.stat))
                t["ort_" + kind].append(run_ort(runs[kind][1], a.stat))
        rows.append(dict({"model": name}, **{k: combine(a.stat, v) for k, v in t.items()}))
        print(f"{name} int8: ours QDQ {rows[-1]['ours_qdq']:.2f} ms, fp32 {rows[-1]['ours_fp32']:.2f} ms, "
              f"ORT QDQ {rows[-1]['ort_qdq']:.2f} ms", flush=True)
    return rows


def print_int8_table(a, rows):
    print(f"\nint8 (QDQ) rows; host: {peak_probe.cpu_name()}; threads={a.threads}; soc={a.soc}; "
          f"rounds={a.rounds}x{a.loop} runs; {STAT_WORDS[a.stat]}")
    print("| model | ours fp32 ms | ours QDQ ms | ORT fp32 ms | ORT QDQ ms | ours QDQ / ours fp32 | ours QDQ / ORT QDQ |")
    print("|---|---|---|---|---|---|---|")
    for m in rows:
        print(f"| {m['model']} | {m['ours_fp32']:.2f} | {m['ours_qdq']:.2f} | {m['ort_fp32']:.2f} | {m['ort_qdq']:.2f} | "
              f"{m['ours_qdq'] / m['ours_fp32']:.2f} | {m['ours_qdq'] / m['ort_qdq']:.2f} |", flush=True)


def add_run_args(ap, models):
    """The options every benchmark against ONNX Runtime takes (also bench_qdq.py)."""
    ap.add_argument("--bin", default=os.path.join(bench_models.ROOT, "build", "bin"))
    ap.add_argument("--models", default=models)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--loop", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--soc", default="native")
    ap.add_argument("--precision", default="must_keep_origin_dtype")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/atc-bench"))
    ap.add_argument("--stat", choices=["median", "min"], default="median",
                    help="per side: the median of the rounds' medians (default), or the fastest "
                         "single run of all rounds (min: for hosts whose speed swings for minutes)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_run_args(ap, "all")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", help="also write the rows to this file")
    ap.add_argument("--int8", default="",
                    help="QDQ rows for these models (resnet18,mobilenet_v2,bert_base,resnet18_ort)")
    a = ap.parse_args()
    names = bench_models.ALL_MODELS if a.models == "all" else [] if a.models == "none" else a.models.split(",")
    ort_pkg = ensure_ort(a.cache)
    rows, int8_rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            rows.append(bench_model(a, ort_pkg, name, tmp))
            r = rows[-1]
            print(f"{name}: ours {r['ours_ms']:.2f} ms, ORT {r['ort_ms']:.2f} ms, "
                  f"{r['ours_ms'] / r['ort_ms']:.2f}x (atc {r['compile_s']:.1f} s)", flush=True)
        if a.int8:
            int8_rows = bench_int8(a, ort_pkg, a.int8.split(","), tmp)
    peak = None
    if rows:
        peak = peak_probe.measure(a.soc, a.cache)
        print_table(a, rows, peak, a.markdown)
    if int8_rows:
        print_int8_table(a, int8_rows)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"host": peak_probe.cpu_name(), "threads": a.threads, "soc": a.soc, "stat": a.stat,
                       "precision": a.precision, "peak": peak, "rows": rows, "int8_rows": int8_rows}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
