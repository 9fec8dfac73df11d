#!/usr/bin/python3
"""Recurrent models exported from PyTorch, with PyTorch's fp32 outputs as references.

    make_rnn_models.py OUT_DIR

Writes per model NAME.onnx, its inputs and PyTorch's outputs:
  lstm_lm     Embedding(1000, 64) -> 2-layer bidirectional LSTM(128, batch_first) -> Linear(1000):
              a language model over int64 token ids [2, 12]
  gru_speech  2-layer GRU(40 -> 96, batch_first) -> Linear(30) -> LogSoftmax over [1, 50, 40]
              feature frames (a small speech recogniser's acoustic model)
  rnn_relu    a 1-layer RNN(relu) over [7, 3, 16] (sequence-major) with an initial state input,
              both outputs (Y and Y_h)
Inputs are NAME.in0.npy, NAME.in1.npy...; references NAME.out0.npy...
For tests only (tests/scripts/rnn_models.sh).
"""
import os
import sys

import numpy as np
import torch

torch.manual_seed(0)


class LstmLm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(1000, 64)
        self.rnn = torch.nn.LSTM(64, 128, num_layers=2, bidirectional=True, batch_first=True)
        self.out = torch.nn.Linear(256, 1000)

    def forward(self, ids):
        y, _ = self.rnn(self.emb(ids))
        return self.out(y)


class GruSpeech(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.GRU(40, 96, num_layers=2, batch_first=True)
        self.out = torch.nn.Linear(96, 30)

    def forward(self, x):
        y, _ = self.rnn(x)
        return torch.log_softmax(self.out(y), dim=-1)


class RnnRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.RNN(16, 32, nonlinearity="relu")

    def forward(self, x, h0):
        y, h = self.rnn(x, h0)
        return y, h


def export(out, name, model, inputs, names):
    model.eval()
    with torch.no_grad():
        ref = model(*inputs)
    refs = ref if isinstance(ref, tuple) else (ref,)
    torch.onnx.export(model, tuple(inputs), os.path.join(out, name + ".onnx"), opset_version=14,
                      input_names=names, output_names=["out%d" % i for i in range(len(refs))])
    for i, t in enumerate(inputs):
        np.save(os.path.join(out, "%s.in%d.npy" % (name, i)), t.numpy())
    for i, r in enumerate(refs):
        np.save(os.path.join(out, "%s.out%d.npy" % (name, i)), r.numpy())
    print("wrote", name)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    export(out, "lstm_lm", LstmLm(), [torch.randint(0, 1000, (2, 12))], ["ids"])
    export(out, "gru_speech", GruSpeech(), [torch.randn(1, 50, 40)], ["feats"])
    export(out, "rnn_relu", RnnRelu(), [torch.randn(7, 3, 16), torch.randn(1, 3, 32)], ["x", "h0"])


if __name__ == "__main__":
    main()
