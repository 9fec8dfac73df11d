#!/usr/bin/env python3
"""Implementation modes against each other on single element-wise ops, in one run (latency).

Builds a model of one unary op (Tanh, Sigmoid, Exp, Erf, Log) over a [1, 64, 128, 128] float32
tensor (uniform in [-8, 8]; Log: [0.01, 8]) once per mode through `--op_precision_mode` ([ByOpType] op=mode),
runs the builds with omrun in interleaved rounds and prints each mode's median latency over
high_performance's. Replaces a timed unit test (timings belong in benchmarks, not in the test suite).

Usage: bench_implmode.py [--bin build/bin] [--ops Tanh,Sigmoid,Exp,Erf,Log]
                         [--modes high_performance,super_performance,high_precision] [--rounds 5]
"""
import argparse, os, statistics, subprocess, sys, tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

from bench_ab import run as run_om
from peak_probe import cpu_name


def make_model(op, path):
    g = helper.make_graph([helper.make_node(op, ["x"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64, 128, 128])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64, 128, 128])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--ops", default="Tanh,Sigmoid,Exp,Erf,Log")
    ap.add_argument("--modes", default="high_performance,super_performance,high_precision")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--loop", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    modes = a.modes.split(",")
    work = tempfile.mkdtemp(prefix="bench_implmode_")
    rows = []
    for op in a.ops.split(","):
        x = np.random.default_rng(0).uniform(0.01 if op == "Log" else -8, 8, (1, 64, 128, 128)).astype(np.float32)
        npy = os.path.join(work, op + ".npy")
        np.save(npy, x)
        onnx_path = os.path.join(work, op + ".onnx")
        make_model(op, onnx_path)
        oms = {}
        for m in modes:
            ini = os.path.join(work, "%s_%s.ini" % (op, m))
            with open(ini, "w") as f:
                f.write("[ByOpType]\n%s=%s\n" % (op, m))
            out = os.path.join(work, "%s_%s" % (op, m))
            r = subprocess.run([os.path.join(a.bin, "atc"), "--model=" + onnx_path, "--framework=5", "--output=" + out,
                                "--soc_version=native", "--precision_mode=must_keep_origin_dtype",
                                "--op_precision_mode=" + ini, "--op_compiler_cache_mode=disable"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit("atc failed (%s, %s):\n%s%s" % (op, m, r.stdout[-2000:], r.stderr[-2000:]))
            oms[m] = out + ".om"
        times = {m: [] for m in modes}
        for _ in range(a.rounds):
            for m in modes:
                times[m].append(run_om(a.bin, oms[m], npy, os.path.join(work, "out"), a))
        med = {m: statistics.median(times[m]) for m in modes}
        rows.append((op, med))
    print("host: %s; threads=%d; rounds=%dx%d runs; ratio = mode / high_performance median" %
          (cpu_name(), a.threads, a.rounds, a.loop))
    print("| op | " + " | ".join("%s ms (ratio)" % m for m in modes) + " |")
    print("|---|" + "---|" * len(modes))
    for op, med in rows:
        base = med.get("high_performance", med[modes[0]])
        print("| %s | " % op + " | ".join("%.3f (%.2f)" % (med[m], med[m] / base) for m in modes) + " |")


if __name__ == "__main__":
    main()
