#!/usr/bin/env python3
"""Compile time against graph size: element-wise chains of N nodes (Relu/Neg/Abs/Sigmoid),
built cold (own kernel cache) and timed, with atc's --log=info pass and phase times.
The target (hostile-inputs issue): a 100k-node chain compiles in under 30 s.

Usage: /usr/bin/python3 bench/bench_scale.py [--bin build/bin] [--sizes 10000,50000,100000]
Prints one line per size with the host CPU; not part of the test suite."""
import argparse
import os
import re
import subprocess
import tempfile
import time

import onnx
from onnx import TensorProto, helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def chain(n, path):
    ops, nodes, prev = ["Relu", "Neg", "Abs", "Sigmoid"], [], "x"
    for i in range(n):
        out = f"v{i}" if i < n - 1 else "y"
        nodes.append(helper.make_node(ops[i % 4], [prev], [out], name=f"n{i}"))
        prev = out
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--sizes", default="10000,50000,100000")
    a = ap.parse_args()
    print(f"host: {cpu_name()}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as t:
        for n in [int(s) for s in a.sizes.split(",")]:
            model = os.path.join(t, f"chain{n}.onnx")
            chain(n, model)
            t0 = time.time()
            r = subprocess.run([os.path.join(a.bin, "atc"), f"--model={model}", "--framework=5",
                                f"--output={t}/c{n}", "--soc_version=native", "--precision_mode=must_keep_origin_dtype",
                                f"--op_compiler_cache_dir={t}/cache{n}", "--log=info"], capture_output=True, text=True, cwd=t)
            dt = time.time() - t0
            passes = sorted(((float(m.group(2)), m.group(1)) for m in
                             re.finditer(r"pass (\w+): .* ([0-9.]+) ms", r.stderr)), reverse=True)[:3]
            top = ", ".join(f"{p} {ms / 1000:.2f} s" for ms, p in passes)
            print(f"chain {n:>7} nodes: {'ok' if r.returncode == 0 else 'FAILED'} {dt:6.2f} s cold "
                  f"(target < 30 s for 100k: {'met' if n < 100000 or dt < 30 else 'NOT met'}); slowest passes: {top}")


if __name__ == "__main__":
    main()
