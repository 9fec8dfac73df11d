#!/usr/bin/env python3
"""fp32 vs fp16 vs bf16 latency on ResNet-18 (or another ONNX model): compiles the model with
atc under must_keep_origin_dtype (fp32), force_fp16 (fp16 cube and vector kernels) and
allow_fp32_to_bf16 (bf16 cube kernels), runs each with omrun --loop, and prints the median
latency, the ratio to fp32 and the cosine similarity with the fp32 output.

On an AMD Zen 3 host (AVX2/FMA/F16C, no AVX-512, no avx512_bf16) fp16 and bf16 are storage
types converted to fp32 on load: the ratio shows that cost (or the saved memory traffic), not
a bf16 dot-product speed-up. docs/precision.md.

Usage: bench_precision.py [--bin build/bin] [--model resnet18] [--models DIR]
                          [--soc native] [--threads 0] [--loop 30] [--warmup 3]
"""
import argparse, json, os, subprocess, sys, tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODES = [("fp32", "must_keep_origin_dtype"), ("fp16", "force_fp16"), ("bf16", "allow_fp32_to_bf16")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--models", default="/work/shared/models/onnx")
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--soc", default="native")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--loop", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    onnx = os.path.join(args.models, args.model + ".onnx")
    inp = os.path.join(args.models, args.model + ".in.npy")
    work = tempfile.mkdtemp(prefix="bench_precision_")
    env = dict(os.environ, ASCEND_CACHE_PATH=os.path.join(work, "cache"))
    rows, ref = [], None
    for label, mode in MODES:
        out = os.path.join(work, label)
        r = subprocess.run([os.path.join(args.bin, "atc"), "--model=" + onnx, "--framework=5", "--output=" + out,
                            "--soc_version=" + args.soc, "--precision_mode=" + mode],
                           cwd=work, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("atc failed (%s):\n%s%s" % (mode, r.stdout, r.stderr))
        summ = out + ".summary.json"
        cmd = [os.path.join(args.bin, "omrun"), "--model=" + out + ".om", "--input=" + inp, "--output=" + out + "_out",
               "--loop=%d" % args.loop, "--warmup=%d" % args.warmup, "--summary=" + summ]
        if args.threads:
            cmd.append("--threads=%d" % args.threads)
        r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("omrun failed (%s):\n%s%s" % (mode, r.stdout, r.stderr))
        with open(summ) as f:
            med = float(json.load(f)["latency_ms"]["median"])
        y = np.load(os.path.join(out + "_out", "output_0.npy")).astype(np.float64).ravel()
        if ref is None:
            ref = y
        cos = float(y.dot(ref) / (np.linalg.norm(y) * np.linalg.norm(ref) + 1e-300))
        rows.append((label, mode, med, cos))
    base = rows[0][2]
    print("%s on --soc_version=%s, omrun --loop=%d median:" % (args.model, args.soc, args.loop))
    print("| dtype | precision_mode | median ms | ratio to fp32 | cosine vs fp32 |")
    print("|---|---|---|---|---|")
    for label, mode, med, cos in rows:
        print("| %s | %s | %.3f | %.3f | %.6f |" % (label, mode, med, med / base, cos))
    print("fp32 : fp16 : bf16 latency = 1 : %.3f : %.3f" % (rows[1][2] / base, rows[2][2] / base))


if __name__ == "__main__":
    main()
