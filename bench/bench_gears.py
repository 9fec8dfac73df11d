#!/usr/bin/python3
"""Dynamic batch gears against static builds (docs/dynamic-shapes.md), on the same machine in
one run: builds MODEL once with --dynamic_batch_size=GEARS and once statically per gear, then

- checks that every gear's output equals the static build of that batch (max |diff| <= 1e-6),
- prints the .om size of the dynamic build against the largest static build (target <= 1.15x),
- runs each gear and its static build in interleaved rounds (omrun, same thread count) and
  prints both medians and the ratio (target <= 1.05x),
- prints the throughput per image of the largest gear against batch 1 (target >= 1.5x),
- with --ort, the same for ONNX Runtime (the model with its batch dim set to the smallest and
  the largest gear, timed in the same rounds): what batching gains on this host elsewhere.

Usage: bench/bench_gears.py [--bin build/bin] [--model resnet50] [--gears 1,2,4,8]
       [--threads 2] [--rounds 3] [--loop 5] [--warmup 1] [--soc native]
       [--precision must_keep_origin_dtype] [--cache ~/.cache/atc-bench] [--ort]
The model is one of bench_models.py's (exported once into the cache folder; batch 1, its batch
dim overridden by --input_shape).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_models  # noqa: E402
import bench_vs_ort  # noqa: E402
from peak_probe import cpu_name  # noqa: E402


def input_name_and_shape(path):
    m = onnx.load(path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    ins = [i for i in m.graph.input if i.name not in inits]
    if len(ins) != 1:
        raise SystemExit("bench_gears.py takes models with one input")
    dims = [d.dim_value for d in ins[0].type.tensor_type.shape.dim]
    return ins[0].name, dims[1:]


def atc(a, path, out, shape, extra, cache_dir):
    r = subprocess.run([os.path.join(a.bin, "atc"), "--model=" + path, "--framework=5", "--output=" + out,
                        "--soc_version=" + a.soc, "--precision_mode=" + a.precision,
                        "--input_shape=" + shape, "--op_compiler_cache_dir=" + cache_dir] + extra,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError("atc failed:\n" + r.stdout[-2000:])
    return out + ".om"


def omrun(a, om, npy, tmp, extra=(), loop=None, out=None):
    summary = os.path.join(tmp, "summary.json")
    cmd = [os.path.join(a.bin, "omrun"), "--model=" + om, "--input=" + npy, "--threads=%d" % a.threads,
           "--loop=%d" % (loop or a.loop), "--warmup=%d" % a.warmup, "--summary=" + summary] + list(extra)
    if out:
        cmd.append("--output=" + out)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(summary) as f:
        return json.load(f)["latency_ms"]["median"]


def ort_specs(a, path, name, inputs, tmp):
    """ONNX Runtime's run specs: per batch, the model with that batch in its input and outputs."""
    pkg = bench_vs_ort.ensure_ort(a.cache)
    specs = {}
    for g, npy in inputs.items():
        m = onnx.load(path)
        for v in [i for i in m.graph.input if i.name == name] + list(m.graph.output):
            v.type.tensor_type.shape.dim[0].dim_value = g
        del m.graph.value_info[:]  # shapes inferred for batch 1
        folder = os.path.join(tmp, f"ort{g}")
        os.makedirs(folder, exist_ok=True)
        onnx.save(m, os.path.join(folder, "model.onnx"))
        specs[g] = bench_vs_ort.ort_spec(a, pkg, os.path.join(folder, "model.onnx"), npy, folder)
    return specs


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=os.path.join(os.path.dirname(HERE), "build", "bin"))
    p.add_argument("--model", default="resnet50")
    p.add_argument("--gears", default="1,2,4,8")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--loop", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--soc", default="native")
    p.add_argument("--precision", default="must_keep_origin_dtype")
    p.add_argument("--cache", default=os.path.expanduser("~/.cache/atc-bench"))
    p.add_argument("--ort", action="store_true", help="ONNX Runtime's throughput per image at batch max / min too")
    a = p.parse_args()
    gears = [int(g) for g in a.gears.split(",")]
    path = bench_models.model_path(a.model, a.cache)
    name, rest = input_name_and_shape(path)
    tail = ",".join(str(d) for d in rest)
    print(f"host: {cpu_name()}, {os.cpu_count()} cpus; model {a.model}, gears {gears}, threads {a.threads}, "
          f"soc {a.soc}, precision {a.precision}")
    with tempfile.TemporaryDirectory() as tmp:
        kc = os.path.join(tmp, "kernel_cache")  # the builds share one kernel cache, as a Makefile would
        dyn = atc(a, path, os.path.join(tmp, "dyn"), f"{name}:-1,{tail}", ["--dynamic_batch_size=" + a.gears], kc)
        static = {g: atc(a, path, os.path.join(tmp, f"s{g}"), f"{name}:{g},{tail}", [], kc) for g in gears}
        rng = np.random.default_rng(0)
        inputs = {}
        worst = 0.0
        for g in gears:
            x = rng.standard_normal([g] + rest).astype(np.float32)
            inputs[g] = os.path.join(tmp, f"in{g}.npy")
            np.save(inputs[g], x)
            omrun(a, dyn, inputs[g], tmp, loop=1, out=os.path.join(tmp, f"od{g}"))
            omrun(a, static[g], inputs[g], tmp, loop=1, out=os.path.join(tmp, f"os{g}"))
            d = np.load(os.path.join(tmp, f"od{g}", "output_0.npy"))
            s = np.load(os.path.join(tmp, f"os{g}", "output_0.npy"))
            worst = max(worst, float(np.abs(d - s).max()))
        print(f"outputs: max |gear - static| over all gears = {worst:g} (target <= 1e-6): "
              f"{'ok' if worst <= 1e-6 else 'MISSED'}")
        sd, ss = os.path.getsize(dyn), os.path.getsize(static[max(gears)])
        print(f".om size: dynamic {sd / 1e6:.2f} MB, static batch {max(gears)} {ss / 1e6:.2f} MB, "
              f"ratio {sd / ss:.3f} (target <= 1.15)")
        lo, hi = min(gears), max(gears)
        ort = ort_specs(a, path, name, {g: inputs[g] for g in (lo, hi)}, tmp) if a.ort else {}
        ort_times = {g: [] for g in ort}
        times = {g: ([], []) for g in gears}
        for _ in range(a.rounds):
            for g in gears:
                times[g][0].append(omrun(a, dyn, inputs[g], tmp, ["--dymBatch=%d" % g]))
                times[g][1].append(omrun(a, static[g], inputs[g], tmp))
                if g in ort:
                    ort_times[g].append(bench_vs_ort.run_ort(ort[g]))
        print(f"{'batch':>5} {'gear ms':>9} {'static ms':>9} {'ratio':>6} {'ms/image':>9}")
        med = {}
        for g in gears:
            d, s = statistics.median(times[g][0]), statistics.median(times[g][1])
            med[g] = d
            print(f"{g:>5} {d:>9.3f} {s:>9.3f} {d / s:>6.3f} {d / g:>9.3f}")
        worst_ratio = max(statistics.median(times[g][0]) / statistics.median(times[g][1]) for g in gears)
        print(f"worst gear / static latency: {worst_ratio:.3f} (target <= 1.05)")
        gain = (med[lo] / lo) / (med[hi] / hi)
        print(f"throughput per image, batch {hi} / batch {lo}: {gain:.2f}x (target >= 1.5)")
        if ort:
            o = {g: statistics.median(t) for g, t in ort_times.items()}
            print(f"ONNX Runtime {bench_vs_ort.ORT_VERSION}, same rounds: batch {lo} {o[lo]:.3f} ms, batch {hi} "
                  f"{o[hi]:.3f} ms ({o[hi] / hi:.3f} ms/image); throughput per image, batch {hi} / batch {lo}: "
                  f"{(o[lo] / lo) / (o[hi] / hi):.2f}x; ours / ONNX Runtime at batch {lo} {med[lo] / o[lo]:.3f}, "
                  f"at batch {hi} {med[hi] / o[hi]:.3f}")


if __name__ == "__main__":
    main()
