#!/usr/bin/python3
"""Latency of our compiled models against PyTorch on the CPU, in one run, as ratios.

For each model: cold-compiles the ONNX file with atc (kernel cache disabled, timed), runs it with omrun
(--loop/--warmup/--threads, median latency from --summary), and times the same architecture in
PyTorch (Debian python3-torch: torch.jit.freeze + optimize_for_inference, same thread count,
batch 1). PyTorch latency does not depend on the weight values, so the PyTorch models use
torchvision's definitions (and a BERT-tiny module of the same shape as the exported one).

Usage: bench/bench_vs_pytorch.py [--bin build/bin] [--models resnet18,mobilenet_v2,bert_tiny]
       [--threads 2] [--loop 50] [--warmup 5]
Install libopenblas0-pthread first so PyTorch's matrix products use an optimised BLAS.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = os.path.join(ROOT, "..", "shared", "models", "onnx")


def torch_model(name):
    import torch
    import torchvision
    if name == "resnet18":
        return torchvision.models.resnet18(), torch.randn(1, 3, 224, 224)
    if name == "mobilenet_v2":
        return torchvision.models.mobilenet_v2(), torch.randn(1, 3, 224, 224)
    if name == "squeezenet1_1":
        return torchvision.models.squeezenet1_1(), torch.randn(1, 3, 224, 224)
    if name == "bert_tiny":
        return BertTiny(), torch.randint(0, 30522, (1, 64))
    raise ValueError(name)


def _bert_tiny_class():
    import torch
    import torch.nn as nn

    class Layer(nn.Module):
        def __init__(self, d=128, heads=2, ff=512):
            super().__init__()
            self.heads = heads
            self.qkv = nn.Linear(d, 3 * d)
            self.o = nn.Linear(d, d)
            self.ln1 = nn.LayerNorm(d)
            self.ff1 = nn.Linear(d, ff)
            self.ff2 = nn.Linear(ff, d)
            self.ln2 = nn.LayerNorm(d)

        def forward(self, x):
            b, s, d = x.shape
            q, k, v = self.qkv(x).split(d, dim=-1)
            h = self.heads
            q = q.reshape(b, s, h, d // h).transpose(1, 2)
            k = k.reshape(b, s, h, d // h).permute(0, 2, 3, 1)
            v = v.reshape(b, s, h, d // h).transpose(1, 2)
            a = torch.softmax(q @ k / (d // h) ** 0.5, dim=-1) @ v
            x = self.ln1(x + self.o(a.transpose(1, 2).reshape(b, s, d)))
            return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(30522, 128)
            self.pos = nn.Parameter(torch.zeros(1, 64, 128))
            self.ln = nn.LayerNorm(128)
            self.layers = nn.ModuleList([Layer(), Layer()])
            self.head = nn.Linear(128, 2)

        def forward(self, ids):
            x = self.ln(self.emb(ids) + self.pos)
            for l in self.layers:
                x = l(x)
            return self.head(x[:, 0])

    return Bert


def BertTiny():
    return _bert_tiny_class()()


def time_pytorch(name, threads, loop, warmup):
    import torch
    torch.set_num_threads(threads)
    model, x = torch_model(name)
    model.eval()
    with torch.no_grad():
        m = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(model, x)))
        for _ in range(warmup):
            m(x)
        ts = []
        for _ in range(loop):
            t0 = time.perf_counter()
            m(x)
            ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def time_ours(name, bindir, threads, loop, warmup, tmp):
    model = os.path.join(MODELS, name + ".onnx")
    out = os.path.join(tmp, name)
    t0 = time.perf_counter()
    subprocess.run([os.path.join(bindir, "atc"), "--model=" + model, "--framework=5",
                    "--output=" + out, "--soc_version=native",
                    "--precision_mode=must_keep_origin_dtype",
                    "--op_compiler_cache_mode=disable"],  # a true cold compile
                   check=True, stdout=subprocess.DEVNULL)
    compile_s = time.perf_counter() - t0
    summary = os.path.join(tmp, name + ".json")
    subprocess.run([os.path.join(bindir, "omrun"), "--model=" + out + ".om",
                    "--input=" + os.path.join(MODELS, name + ".in.npy"),
                    "--loop=%d" % loop, "--warmup=%d" % warmup, "--threads=%d" % threads,
                    "--summary=" + summary], check=True, stdout=subprocess.DEVNULL)
    with open(summary) as f:
        return compile_s, json.load(f)["latency_ms"]["median"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--models", default="resnet18,mobilenet_v2,bert_tiny")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--loop", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.models.split(","):
            compile_s, ours = time_ours(name, a.bin, a.threads, a.loop, a.warmup, tmp)
            theirs = time_pytorch(name, a.threads, a.loop, a.warmup)
            rows.append((name, compile_s, ours, theirs))
    print(f"threads={a.threads} loop={a.loop} warmup={a.warmup}")
    print(f"{'model':<14} {'atc cold s':>10} {'ours ms':>9} {'pytorch ms':>10} {'ours/pytorch':>12}")
    for name, c, o, t in rows:
        print(f"{name:<14} {c:>10.2f} {o:>9.2f} {t:>10.2f} {o / t:>12.2f}")


if __name__ == "__main__":
    sys.exit(main())
