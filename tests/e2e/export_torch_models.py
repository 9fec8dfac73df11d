#!/usr/bin/python3
"""Exports torchvision CNNs (random weights, seed 0) and a small BERT-style encoder to ONNX
(opset 13, as ../shared/models were made) with their PyTorch fp32 reference outputs.
Usage: export_torch_models.py OUT_DIR NAME..."""
import os
import torch, torchvision, numpy as np, sys
torch.manual_seed(0)
os.chdir(sys.argv[1])
names = sys.argv[2:]
for n in names:
    if n == "encoder":
        layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True, dropout=0.0)
        m = torch.nn.TransformerEncoder(layer, num_layers=2)
        x = torch.randn(1, 16, 64)
    else:
        m = getattr(torchvision.models, n)()
        x = torch.randn(1, 3, 224, 224)
    m.eval()
    with torch.no_grad():
        y = m(x)
        if isinstance(y, tuple): y = y[0]
    torch.onnx.export(m, x, n + ".onnx", opset_version=13)
    np.save(n + ".in.npy", x.numpy()); np.save(n + ".out.npy", y.numpy())
    print("exported", n)
