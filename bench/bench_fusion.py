#!/usr/bin/env python3
"""Fused vs ALL-off latency: compiles ResNet-18, MobileNetV2 and BERT-tiny twice with atc
(default fusion, and a --fusion_switch_file turning ALL graph and UB fusion off), checks both
against the reference outputs, and prints omrun's median latency and the speedup.

Usage: bench_fusion.py [--bin build-fus/bin] [--models DIR] [--threads 2] [--loop 50] [--warmup 5]
"""
import argparse, json, os, subprocess, sys, tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = ["resnet18", "mobilenet_v2", "bert_tiny"]


def compile_model(atc, onnx, out, switch, workdir):
    cmd = [atc, "--model=" + onnx, "--framework=5", "--output=" + out, "--soc_version=native", "--precision_mode=must_keep_origin_dtype",
           "--export_compile_stat=1"]
    if switch:
        cmd.append("--fusion_switch_file=" + switch)
    r = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("atc failed for %s:\n%s%s" % (onnx, r.stdout, r.stderr))
    with open(os.path.join(workdir, "fusion_result.json")) as f:
        return json.load(f)


def run_model(omrun, om, inp, outdir, threads, loop, warmup):
    summ = outdir + ".summary.json"
    cmd = [omrun, "--model=" + om, "--input=" + inp, "--output=" + outdir, "--loop=%d" % loop,
           "--warmup=%d" % warmup, "--summary=" + summ]
    if threads:
        cmd.append("--threads=%d" % threads)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("omrun failed for %s:\n%s%s" % (om, r.stdout, r.stderr))
    with open(summ) as f:
        s = json.load(f)
    return (float(s["latency_ms"]["median"]), float(s["latency_ms"]["min"])), np.load(os.path.join(outdir, "output_0.npy"))


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
    ap.add_argument("--bin", default=os.path.join(ROOT, "build-fus", "bin"))
    ap.add_argument("--models", default=os.path.join(ROOT, "..", "shared", "models", "onnx"))
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--loop", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    a = ap.parse_args()
    atc, omrun = os.path.join(a.bin, "atc"), os.path.join(a.bin, "omrun")
    tmp = tempfile.mkdtemp(prefix="bench_fusion_")
    off = os.path.join(tmp, "all_off.cfg")
    with open(off, "w") as f:
        f.write('{"Switch":{"GraphFusion":{"ALL":"off"},"UBFusion":{"ALL":"off"}}}\n')
    print("median (min) latency over --loop runs")
    print("%-14s %18s %18s %8s  %s" % ("model", "ALL-off ms", "fused ms", "speedup", "fusions applied"))
    ok = True
    for m in MODELS:
        onnx = os.path.join(a.models, m + ".onnx")
        if not os.path.exists(onnx):
            print("%-14s skipped (no %s)" % (m, onnx))
            continue
        inp = os.path.join(a.models, m + ".in.npy")
        ref = np.load(os.path.join(a.models, m + ".out.npy"))
        lat = {}
        res = None
        for tag, sw in (("off", off), ("fused", None)):
            wd = os.path.join(tmp, m + "_" + tag)
            os.makedirs(wd)
            r = compile_model(atc, onnx, os.path.join(wd, m), sw, wd)
            if tag == "fused":
                res = r
            (lat[tag], lat[tag + "_min"]), y = run_model(omrun, os.path.join(wd, m + ".om"), inp, os.path.join(wd, "out"),
                                    a.threads, a.loop, a.warmup)
            err = float(np.max(np.abs(y.astype(np.float64) - ref))) / max(1e-30, float(np.max(np.abs(ref))))
            if err > 1e-3:
                print("  %s %s: output mismatch (rel err %.3g)" % (m, tag, err))
                ok = False
        sp = lat["off"] / lat["fused"]
        print("%-14s %9.3f (%6.3f) %9.3f (%6.3f) %7.2fx  %s" % (m, lat["off"], lat["off_min"], lat["fused"], lat["fused_min"], sp,
                                                   ", ".join("%s=%d" % kv for kv in sorted(fused_counts(res).items()))))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
