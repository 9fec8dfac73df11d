#!/usr/bin/python3
"""Shape ranges against static builds (docs/dynamic-shapes.md, "Ranges"), on the same machine in
one run:

- a BERT-shaped encoder (torch.nn.TransformerEncoder, LAYERS x D, exported with a dynamic
  sequence length and cached) built once with --input_shape="x:1,1~512,D" and once statically
  per length of --seqs: compile time, .om size, omrun's load (with one run) and peak RSS against
  the static build's, each length's output against PyTorch's fp32 output, and each length's
  latency against its static build in interleaved rounds (target at 128: <= 1.5x);
- a CNN (bench_models.py's, batch 1 exported) built with a batch range 1~16 and statically at
  each batch of --batches: outputs, latency ratios.

Usage: bench/bench_ranges.py [--bin build/bin] [--threads 2] [--rounds 3] [--loop 5]
       [--seqs 1,7,128,333,512] [--layers 12] [--d 768] [--cnn resnet18] [--batches 1,3,16]
       [--cache ~/.cache/atc-bench]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_models  # noqa: E402
from peak_probe import cpu_name  # noqa: E402


def export_encoder(layers, d, cache, seqs):
    """The encoder with a dynamic sequence length, and PyTorch's outputs for seqs (cached)."""
    folder = os.path.join(cache, "models", f"encoder_seq_{layers}x{d}")
    path = os.path.join(folder, "model.onnx")
    refs = {s: (os.path.join(folder, f"x_{s}.npy"), os.path.join(folder, f"y_{s}.npy")) for s in seqs}
    if os.path.exists(path) and all(os.path.exists(y) for _, y in refs.values()):
        return path, refs
    import torch
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(0)
    heads = max(1, d // 64)
    layer = torch.nn.TransformerEncoderLayer(d_model=d, nhead=heads, dim_feedforward=4 * d, batch_first=True,
                                             dropout=0.0, activation="gelu")
    m = torch.nn.TransformerEncoder(layer, num_layers=layers)
    for p in m.parameters():
        if p.dim() > 1:
            torch.nn.init.normal_(p, std=0.02)
    m.eval()
    print(f"exporting the {layers}x{d} encoder (once) ...", flush=True)
    torch.onnx.export(m, torch.randn(1, 128, d), path + ".tmp", opset_version=13, input_names=["x"],
                      output_names=["y"], dynamic_axes={"x": {1: "seq"}, "y": {1: "seq"}})
    os.replace(path + ".tmp", path)
    with torch.no_grad():
        for s, (xp, yp) in refs.items():
            x = torch.randn(1, s, d)
            np.save(xp, x.numpy())
            np.save(yp, m(x).numpy())
    return path, refs


def atc(a, model, out, shape, kc):
    t0 = time.perf_counter()
    r = subprocess.run([os.path.join(a.bin, "atc"), "--model=" + model, "--framework=5", "--output=" + out,
                        "--soc_version=native", "--precision_mode=must_keep_origin_dtype", "--input_shape=" + shape,
                        "--op_compiler_cache_dir=" + kc], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError("atc failed:\n" + r.stdout[-2000:])
    return out + ".om", time.perf_counter() - t0


def omrun(a, om, npy, tmp, loop, out=None, rss=None):
    """The median latency and omrun's wall time; rss (a list) gets its peak RSS in MB."""
    summary = os.path.join(tmp, "summary.json")
    cmd = [os.path.join(a.bin, "omrun"), "--model=" + om, "--input=" + npy, "--threads=%d" % a.threads,
           "--loop=%d" % loop, "--warmup=%d" % (1 if loop > 1 else 0), "--summary=" + summary]
    if out:
        cmd.append("--output=" + out)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak RSS
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    if rss is not None:
        rss.append(usage.ru_maxrss / 1024)
    with open(summary) as f:
        return json.load(f)["latency_ms"]["median"], wall


def compare(a, tmp, rng_om, statics, inputs, refs, label):
    """Outputs (against refs, or the static builds) and interleaved latencies; returns the rows."""
    rows = []
    for k, npy in inputs.items():
        omrun(a, rng_om, npy, tmp, 1, out=os.path.join(tmp, f"r{k}"))
        omrun(a, statics[k], npy, tmp, 1, out=os.path.join(tmp, f"s{k}"))
        r = np.load(os.path.join(tmp, f"r{k}", "output_0.npy"))
        s = np.load(os.path.join(tmp, f"s{k}", "output_0.npy"))
        ref = np.load(refs[k]) if refs else s
        rows.append([k, float(np.abs(r - ref).max()), float(np.abs(r - s).max()), [], []])
    for _ in range(a.rounds):
        for row in rows:
            row[3].append(omrun(a, rng_om, inputs[row[0]], tmp, a.loop)[0])
            row[4].append(omrun(a, statics[row[0]], inputs[row[0]], tmp, a.loop)[0])
    print(f"{label:>6} {'|range-ref|':>11} {'|range-static|':>14} {'range ms':>9} {'static ms':>9} {'ratio':>6}")
    for k, dref, dst, tr, ts in rows:
        mr, ms = statistics.median(tr), statistics.median(ts)
        print(f"{k:>6} {dref:>11.2e} {dst:>14.2e} {mr:>9.3f} {ms:>9.3f} {mr / ms:>6.3f}")
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=os.path.join(os.path.dirname(HERE), "build", "bin"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--loop", type=int, default=5)
    p.add_argument("--seqs", default="1,7,128,333,512")
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--d", type=int, default=768)
    p.add_argument("--cnn", default="resnet18")
    p.add_argument("--batches", default="1,3,16")
    p.add_argument("--cache", default=os.path.expanduser("~/.cache/atc-bench"))
    a = p.parse_args()
    seqs = [int(s) for s in a.seqs.split(",")]
    batches = [int(b) for b in a.batches.split(",")]
    print(f"host: {cpu_name()}, {os.cpu_count()} cpus; threads {a.threads}, fp32, {a.rounds} rounds of "
          f"omrun --loop={a.loop}")
    with tempfile.TemporaryDirectory() as tmp:
        kc = os.path.join(tmp, "kernel_cache")
        enc, refs = export_encoder(a.layers, a.d, a.cache, seqs)
        rng_om, t_rng = atc(a, enc, os.path.join(tmp, "enc_r"), f"x:1,1~512,{a.d}", kc)
        statics, t_static = {}, {}
        for s in seqs:
            statics[s], t_static[s] = atc(a, enc, os.path.join(tmp, f"enc_{s}"), f"x:1,{s},{a.d}", kc)
        print(f"encoder {a.layers}x{a.d}, range 1~512: compile {t_rng:.1f} s (static, length 128: "
              f"{t_static.get(128, max(t_static.values())):.1f} s), .om {os.path.getsize(rng_om) / 1e6:.1f} MB "
              f"(static: {os.path.getsize(statics[seqs[-1]]) / 1e6:.1f} MB)")
        rss_r, rss_s = [], []
        _, load_r = omrun(a, rng_om, refs[seqs[0]][0], tmp, 1, rss=rss_r)
        _, load_s = omrun(a, statics[seqs[0]], refs[seqs[0]][0], tmp, 1, rss=rss_s)
        print(f"omrun load + one run at length {seqs[0]}: range {load_r:.2f} s, static {load_s:.2f} s; "
              f"peak RSS range {rss_r[0]:.0f} MB, static {rss_s[0]:.0f} MB")
        rows = compare(a, tmp, rng_om, statics, {s: refs[s][0] for s in seqs}, {s: refs[s][1] for s in seqs}, "length")
        for k, _, _, tr, ts in rows:
            if k == 128:
                ratio = statistics.median(tr) / statistics.median(ts)
                print(f"range / static at 128: {ratio:.3f} (target <= 1.5): {'ok' if ratio <= 1.5 else 'MISSED'}")

        cnn = bench_models.model_path(a.cnn, a.cache)
        m = onnx.load(cnn, load_external_data=False)
        inits = {i.name for i in m.graph.initializer}
        inp = [i for i in m.graph.input if i.name not in inits][0]
        rest = [d.dim_value for d in inp.type.tensor_type.shape.dim][1:]
        tail = ",".join(str(d) for d in rest)
        crng, t_crng = atc(a, cnn, os.path.join(tmp, "cnn_r"), f"{inp.name}:1~16,{tail}", kc)
        cst, inputs = {}, {}
        rs = np.random.default_rng(0)
        for b in batches:
            cst[b], _ = atc(a, cnn, os.path.join(tmp, f"cnn_{b}"), f"{inp.name}:{b},{tail}", kc)
            inputs[b] = os.path.join(tmp, f"cin_{b}.npy")
            np.save(inputs[b], rs.standard_normal([b] + rest).astype(np.float32))
        print(f"{a.cnn}, batch range 1~16: compile {t_crng:.1f} s, .om {os.path.getsize(crng) / 1e6:.1f} MB "
              f"(static: {os.path.getsize(cst[batches[-1]]) / 1e6:.1f} MB)")
        compare(a, tmp, crng, cst, inputs, None, "batch")


if __name__ == "__main__":
    main()
