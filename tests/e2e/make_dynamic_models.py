#!/usr/bin/env python3
"""Models for the dynamic-gear tests (tests/scripts/dynamic_cli.sh), written to OUT_DIR:
  cnn_cls.onnx  Conv-ReLU-Conv-ReLU-GlobalAveragePool-Flatten-Gemm, input x [N,3,16,16] (N symbolic)
  cnn_fc.onnx   fully convolutional Conv-ReLU-Conv(stride 2)-ReLU, input x [1,3,H,W] (H, W symbolic)
  encoder.onnx  (with torch) a BERT-shaped encoder: int64 ids [1,S] -> embeddings + positions,
                2 layers of multi-head attention + GELU MLP + LayerNorm; S symbolic, exported
                with torch's dynamic axes, and its fp32 outputs for S in SEQS: enc_ids_S.npy,
                enc_ref_S.npy
Inputs for the CNNs: cls_in_N.npy (N = 1, 2, 3, 4), fc_in_HxW.npy.
Usage: make_dynamic_models.py OUT_DIR [SEQS...]"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
seqs = [int(s) for s in sys.argv[2:]] or [16, 32, 64, 128]
os.chdir(out)
rng = np.random.default_rng(0)


def conv_net(name, in_shape, classifier):
    w1 = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.3, "w1")
    b1 = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32) * 0.1, "b1")
    w2 = numpy_helper.from_array(rng.standard_normal((16, 8, 3, 3)).astype(np.float32) * 0.2, "w2")
    b2 = numpy_helper.from_array(rng.standard_normal(16).astype(np.float32) * 0.1, "b2")
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("Relu", ["c2"], ["r2" if classifier else "y"])]
    inits = [w1, b1, w2, b2]
    if classifier:
        fw = numpy_helper.from_array(rng.standard_normal((10, 16)).astype(np.float32) * 0.3, "fw")
        fb = numpy_helper.from_array(rng.standard_normal(10).astype(np.float32) * 0.1, "fb")
        inits += [fw, fb]
        nodes += [helper.make_node("GlobalAveragePool", ["r2"], ["p"]),
                  helper.make_node("Flatten", ["p"], ["f"]),
                  helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], transB=1)]
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])
    else:
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, None, None])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)
    g = helper.make_graph(nodes, name, [x], [y], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(m)
    onnx.save(m, name + ".onnx")


conv_net("cnn_cls", ["N", 3, 16, 16], True)
conv_net("cnn_fc", [1, 3, "H", "W"], False)
for n in (1, 2, 3, 4):
    np.save("cls_in_%d.npy" % n, rng.standard_normal((n, 3, 16, 16)).astype(np.float32))
for h, w in ((16, 16), (24, 32), (20, 20)):
    np.save("fc_in_%dx%d.npy" % (h, w), rng.standard_normal((1, 3, h, w)).astype(np.float32))

try:
    import torch
except ImportError:
    print("no torch: encoder.onnx not written")
    sys.exit(0)

torch.manual_seed(0)


class Layer(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.o = torch.nn.Linear(d, d)
        self.ln1 = torch.nn.LayerNorm(d)
        self.ff1 = torch.nn.Linear(d, 4 * d)
        self.ff2 = torch.nn.Linear(4 * d, d)
        self.ln2 = torch.nn.LayerNorm(d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q = q.view(b, s, self.h, self.dh).transpose(1, 2)
        k = k.view(b, s, self.h, self.dh).transpose(1, 2)
        v = v.view(b, s, self.h, self.dh).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(-1, -2) / self.dh ** 0.5, dim=-1) @ v
        x = self.ln1(x + self.o(a.transpose(1, 2).reshape(b, s, d)))
        return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))


class Encoder(torch.nn.Module):
    def __init__(self, vocab=100, d=32, heads=4, layers=2, max_len=512):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Parameter(torch.randn(1, max_len, d) * 0.1)
        self.layers = torch.nn.ModuleList([Layer(d, heads) for _ in range(layers)])

    def forward(self, ids):
        x = self.emb(ids) + self.pos[:, : ids.shape[1]]
        for layer in self.layers:
            x = layer(x)
        return x


enc = Encoder().eval()
ids = torch.randint(0, 100, (1, 16))
torch.onnx.export(enc, ids, "encoder.onnx", input_names=["input_ids"], output_names=["hidden"],
                  dynamic_axes={"input_ids": {1: "S"}, "hidden": {1: "S"}}, opset_version=13)
with torch.no_grad():
    for s in seqs:
        ids = torch.randint(0, 100, (1, s))
        np.save("enc_ids_%d.npy" % s, ids.numpy())
        np.save("enc_ref_%d.npy" % s, enc(ids).numpy())
print("wrote cnn_cls.onnx, cnn_fc.onnx, encoder.onnx")
