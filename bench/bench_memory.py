#!/usr/bin/env python3
"""Peak memory and .om size against the weights (hostile-inputs issue targets):
  - atc's peak RSS at most 1.5x the model's weights, omrun's at most 1.2x (weights used in
    place, not copied), for a MatMul chain with --weights-mb of float32 weights in ONNX
    external data, built fp32 (must_keep_origin_dtype) and with the default force_fp16;
  - 20k MatMuls sharing one 16 KB weight: an .om under 2 MB;
  - every .om at most 1.1x its unique weights plus code (for models whose weights dominate).
Peak RSS is each command's own maximum (GNU time, Debian package "time"). Prints figures,
ratios and the host.

Usage: /usr/bin/python3 bench/bench_memory.py [--bin build/bin] [--weights-mb 512] [--matmuls 20000]"""
import argparse
import os
import struct
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def run_peak(cmd, cwd):
    """Runs cmd under GNU time (a small process forks it: the peak is the command's own, not
    this Python process's, which a forked child inherits in ru_maxrss before exec). Returns
    (exit code, peak RSS in MB)."""
    r = subprocess.run(["/usr/bin/time", "-f", "maxrss_kb=%M"] + cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    kb = [int(l.split("=")[1]) for l in r.stderr.splitlines() if l.startswith("maxrss_kb=")]
    if r.returncode != 0:
        print(r.stderr[-2000:])
    return r.returncode, (kb[-1] if kb else 0) / 1024.0


def partitions(path):
    b = open(path, "rb").read()
    n = struct.unpack_from("<I", b, 256)[0]
    out = {}
    for i in range(n):
        t, _, s = struct.unpack_from("<IQQ", b, 260 + 20 * i)
        out[t] = s
    return len(b), out


def matmul_chain(path, weights_mb, external=True):
    n = 2048
    layers = max(1, int(weights_mb * 2**20 // (n * n * 4)))
    rng = np.random.default_rng(0)
    inits, nodes, prev = [], [], "x"
    for i in range(layers):
        inits.append(numpy_helper.from_array((rng.standard_normal((n, n)) * 0.02).astype(np.float32), f"w{i}"))
        nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [f"h{i}"]))
        prev = f"h{i}"
    g = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, n])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    if external:
        onnx.save(m, path, save_as_external_data=True, all_tensors_to_one_file=True, location="big.data")
    else:
        onnx.save(m, path)
    return layers * n * n * 4 / 2**20


def shared_matmuls(path, count):
    w = numpy_helper.from_array((np.random.default_rng(0).standard_normal((64, 64)) * 0.1).astype(np.float32), "w")
    nodes, prev = [], "x"
    for i in range(count):
        out = f"h{i}" if i < count - 1 else "y"
        nodes.append(helper.make_node("MatMul", [prev, "w"], [out], name=f"mm{i}"))
        prev = out
    g = helper.make_graph(nodes, "shared", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])], [w])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)


def report(atc, omrun, t, name, prec, wmb):
    out = f"{name[:-5]}_{prec}"
    rc, atc_mb = run_peak([atc, f"--model={name}", "--framework=5", f"--output={out}", "--soc_version=x86-64-v3",
                           f"--precision_mode={prec}", f"--op_compiler_cache_dir={t}/cache"], t)
    if rc != 0:
        print(f"  {prec}: atc FAILED")
        return
    size, parts = partitions(os.path.join(t, f"{out}.om"))
    om_w = parts.get(1, 0) / 2**20
    rc2, run_mb = run_peak([omrun, f"--model={out}.om", "--loop=1"], t)
    code = parts.get(3, 0)
    print(f"  {prec:>22}: atc peak {atc_mb:7.0f} MB = {atc_mb / wmb:.2f}x the weights (target 1.5x: "
          f"{verdict(atc_mb <= 1.5 * wmb)}); omrun peak {run_mb:7.0f} MB = {run_mb / om_w:.2f}x the .om's "
          f"{om_w:.0f} MB of weights (target 1.2x: {verdict(rc2 == 0 and run_mb <= 1.2 * om_w)}); "
          f".om {size / 2**20:.1f} MB = {size / (parts.get(1, 0) + code):.3f}x weights+code "
          f"(target 1.1x: {verdict(size <= 1.1 * (parts.get(1, 0) + code))})")
    os.remove(os.path.join(t, f"{out}.om"))


def graph_cache(atc, t, name, wmb):
    """A build that stores a whole-model cache entry, then one served from it (peak RSS each)."""
    os.makedirs(f"{t}/gcache", exist_ok=True)
    for what in ("stores the entry", "is a cache hit"):
        rc, mb = run_peak([atc, f"--model={name}", "--framework=5", "--output=gc", "--soc_version=x86-64-v3",
                           "--precision_mode=must_keep_origin_dtype", f"--op_compiler_cache_dir={t}/cache",
                           f"--graph_compiler_cache_dir={t}/gcache"], t)
        print(f"  --graph_compiler_cache_dir, build that {what}: atc peak {mb:7.0f} MB = {mb / wmb:.2f}x the weights "
              f"(target 1.5x: {verdict(rc == 0 and mb <= 1.5 * wmb)})")
    os.remove(os.path.join(t, "gc.om"))


def verdict(ok):
    return "met" if ok else "NOT met"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--weights-mb", type=float, default=512)
    ap.add_argument("--matmuls", type=int, default=20000)
    a = ap.parse_args()
    atc, omrun = os.path.join(a.bin, "atc"), os.path.join(a.bin, "omrun")
    print(f"host: {cpu_name()}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as t:
        for external in (True, False):
            name = "big.onnx" if external else "big_in.onnx"
            wmb = matmul_chain(os.path.join(t, name), a.weights_mb if external else min(a.weights_mb, 1024), external)
            print(f"MatMul chain, {wmb:.0f} MB of float32 weights " + ("in external data" if external else "inside the .onnx"))
            for prec in ["must_keep_origin_dtype", "force_fp16"]:
                report(atc, omrun, t, name, prec, wmb)
            if external:
                graph_cache(atc, t, name, wmb)
        shared_matmuls(os.path.join(t, "shared.onnx"), a.matmuls)
        rc, atc_mb = run_peak([atc, "--model=shared.onnx", "--framework=5", "--output=shared",
                               "--soc_version=x86-64-v3", "--precision_mode=must_keep_origin_dtype",
                               f"--op_compiler_cache_dir={t}/cache"], t)
        if rc != 0:
            print(f"{a.matmuls} MatMuls sharing one weight: atc FAILED")
            return
        size, parts = partitions(os.path.join(t, "shared.om"))
        print(f"{a.matmuls} MatMuls sharing one 16 KB weight: .om {size / 2**20:.2f} MB (target < 2 MB: "
              f"{verdict(size < 2 * 2**20)}), weights {parts.get(1, 0)} B, code {parts.get(3, 0)} B, "
              f"graph {parts.get(0, 0)} B and plan {parts.get(2, 0)} B (stored); atc peak {atc_mb:.0f} MB")


if __name__ == "__main__":
    main()
