#!/usr/bin/env python3
"""Fused vs ALL-off latency: compiles ResNet-18, MobileNetV2 and BERT-tiny twice with atc
(default fusion, and a --fusion_switch_file turning ALL graph and UB fusion off), checks both
against the reference outputs, then runs the two .om files INTERLEAVED (off, fused, off,
fused, ... --repeats times, --loop runs each) and prints, per build, the median over the
repeats of omrun's median latency, the min, the user CPU time per run (getrusage of the
omrun child, load and warmup included, divided by loop + warmup; much less sensitive to
other load on the machine than wall time), the speedups (off / fused) of both, and the
bound on any fusion speedup: 1 / the share of the ALL-off build's time in gemm/conv kernels.

Usage: bench_fusion.py [--bin build/bin] [--models DIR] [--threads 1] [--loop 50]
                       [--warmup 5] [--repeats 5] [--precision_mode must_keep_origin_dtype]
                       [--only resnet18,bert_tiny]
"""
import argparse, json, os, resource, statistics, subprocess, sys, tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = ["resnet18", "mobilenet_v2", "bert_tiny"]


def compile_model(atc, onnx, out, switch, workdir, precision, cache):
    cmd = [atc, "--model=" + onnx, "--framework=5", "--output=" + out, "--soc_version=native",
           "--precision_mode=" + precision, "--export_compile_stat=1"]
    if switch:
        cmd.append("--fusion_switch_file=" + switch)
    env = dict(os.environ)
    env["ASCEND_CACHE_PATH"] = cache
    env.pop("ASCEND_WORK_PATH", None)
    r = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit("atc failed for %s:\n%s%s" % (onnx, r.stdout, r.stderr))
    with open(os.path.join(workdir, "fusion_result.json")) as f:
        return json.load(f)


def run_model(omrun, om, inp, outdir, threads, loop, warmup):
    """(median ms, min ms, user CPU ms per run), first output."""
    summ = outdir + ".summary.json"
    cmd = [omrun, "--model=" + om, "--input=" + inp, "--output=" + outdir, "--loop=%d" % loop,
           "--warmup=%d" % warmup, "--summary=" + summ, "--threads=%d" % threads]
    u0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    r = subprocess.run(cmd, capture_output=True, text=True)
    u1 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    if r.returncode != 0:
        sys.exit("omrun failed for %s:\n%s%s" % (om, r.stdout, r.stderr))
    with open(summ) as f:
        s = json.load(f)
    user = (u1 - u0) * 1000.0 / max(1, loop + warmup)
    return (float(s["latency_ms"]["median"]), float(s["latency_ms"]["min"]), user), \
        np.load(os.path.join(outdir, "output_0.npy"))


CUBE_KERNELS = ("gemm", "conv", "conv_dw", "conv_transpose")


def cube_share(omrun, om, inp, outdir, threads, loop):
    """Share of the ALL-off build's step time spent in the dense kernels (gemm/conv), from
    ATC_PROFILE=1. Fusion keeps that work (it only adds epilogues to it), so
    1 / share bounds the speedup fusion can give even if every other op became free."""
    env = dict(os.environ)
    env["ATC_PROFILE"] = "1"
    r = subprocess.run([omrun, "--model=" + om, "--input=" + inp, "--output=" + outdir, "--loop=%d" % loop,
                        "--threads=%d" % threads], capture_output=True, text=True, env=env)
    total = cube = 0.0
    for line in (r.stdout + r.stderr).splitlines():
        f = line.split()
        if len(f) >= 8 and f[0] == "[ATC_PROFILE]" and f[1] == "step":
            ms = float(f[3])
            total += ms
            if f[7] in CUBE_KERNELS:
                cube += ms
    return cube / total if total > 0 else float("nan")


def fused_counts(res):
    body = list(res.values())[0]
    n = {}
    for grp in ("graph_fusion", "ub_fusion"):
        for k, v in body[grp].items():
            if int(v["effect_times"]) > 0:
                n[k] = int(v["effect_times"])
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--models", default=os.path.join(ROOT, "..", "shared", "models", "onnx"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--loop", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--precision_mode", default="must_keep_origin_dtype")
    ap.add_argument("--only", default="", help="comma-separated subset of " + ",".join(MODELS))
    a = ap.parse_args()
    atc, omrun = os.path.abspath(os.path.join(a.bin, "atc")), os.path.abspath(os.path.join(a.bin, "omrun"))
    tmp = tempfile.mkdtemp(prefix="bench_fusion_")
    cache = os.path.join(tmp, "cache")
    off = os.path.join(tmp, "all_off.cfg")
    with open(off, "w") as f:
        f.write('{"Switch":{"GraphFusion":{"ALL":"off"},"UBFusion":{"ALL":"off"}}}\n')
    tol = 1e-3 if a.precision_mode == "must_keep_origin_dtype" else 2e-2
    print("precision_mode=%s threads=%d loop=%d warmup=%d repeats=%d (interleaved off/fused)" %
          (a.precision_mode, a.threads, a.loop, a.warmup, a.repeats))
    print("latency: median over repeats of omrun's median (min of mins); user: user CPU ms per run")
    print("bound: 1 / (share of the ALL-off step time in gemm/conv kernels, ATC_PROFILE=1): the most")
    print("       fusion could give if every other op cost nothing")
    print("%-13s %17s %17s %8s %9s %9s %8s %6s  %s" % ("model", "ALL-off ms", "fused ms", "speedup",
                                                      "off user", "fus user", "user x", "bound",
                                                      "fusions applied"))
    ok = True
    models = [m for m in MODELS if not a.only or m in a.only.split(",")]
    for m in models:
        onnx = os.path.join(a.models, m + ".onnx")
        if not os.path.exists(onnx):
            print("%-13s skipped (no %s)" % (m, onnx))
            continue
        inp = os.path.join(a.models, m + ".in.npy")
        ref = np.load(os.path.join(a.models, m + ".out.npy"))
        res = None
        oms = {}
        for tag, sw in (("off", off), ("fused", None)):
            wd = os.path.join(tmp, m + "_" + tag)
            os.makedirs(wd)
            r = compile_model(atc, onnx, os.path.join(wd, m), sw, wd, a.precision_mode, cache)
            if tag == "fused":
                res = r
            oms[tag] = (os.path.join(wd, m + ".om"), os.path.join(wd, "out"))
        samples = {"off": [], "fused": []}
        for rep in range(a.repeats):
            for tag in ("off", "fused"):
                t, y = run_model(omrun, oms[tag][0], inp, oms[tag][1], a.threads, a.loop, a.warmup)
                samples[tag].append(t)
                if rep == 0:
                    err = float(np.max(np.abs(y.astype(np.float64) - ref))) / max(1e-30, float(np.max(np.abs(ref))))
                    if err > tol:
                        print("  %s %s: output mismatch (rel err %.3g)" % (m, tag, err))
                        ok = False
        med = {k: statistics.median(s[0] for s in v) for k, v in samples.items()}
        mn = {k: min(s[1] for s in v) for k, v in samples.items()}
        usr = {k: statistics.median(s[2] for s in v) for k, v in samples.items()}
        share = cube_share(omrun, oms["off"][0], inp, oms["off"][1], a.threads, a.loop)
        print("%-13s %8.3f (%6.3f) %8.3f (%6.3f) %7.2fx %9.3f %9.3f %7.2fx %5.2fx  %s" % (
            m, med["off"], mn["off"], med["fused"], mn["fused"], med["off"] / med["fused"],
            usr["off"], usr["fused"], usr["off"] / usr["fused"], 1.0 / share,
            ", ".join("%s=%d" % kv for kv in sorted(fused_counts(res).items()))))
        sys.stdout.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
