#!/usr/bin/python3
"""Makes QDQ (QuantizeLinear/DequantizeLinear) ONNX models from fp32 PyTorch models, with a
simple min/max calibration on random inputs, and their fake-quant references.

    make_qdq_models.py [--fp32] OUT_DIR [resnet18 mobilenet_v2 encoder cnn bert_base staged_residual qdq_ops
                                resnet18_ort]

Every Conv2d and Linear is wrapped so that its input activation is fake-quantized per tensor
(uint8, asymmetric, range from min/max over the calibration inputs) and its weight per output
channel (int8, symmetric); the model's output is fake-quantized too (uint8), so it lies on a
grid whose step is the output scale. torch.onnx.export turns each fake-quant into a
QuantizeLinear/DequantizeLinear pair (opset 13), the form ONNX Runtime's and other quantizers
write. The reference is PyTorch evaluating the same fake-quantized model in float32 (Q/DQ as
rounding). Writes per model: NAME.onnx, NAME.in.npy, NAME.out.npy (reference) and
NAME.json ({"step": output scale, "zero_point": ...}); with --fp32 also NAME.fp32.onnx, the
same model before quantization (bench/bench_qdq.py compares the two builds).

For tests and benchmarks only: not a product feature (atc compiles QDQ models from any
quantizer).
"""
import json
import os
import sys

import numpy as np
import torch
import torchvision

torch.manual_seed(0)


class Observer(torch.nn.Module):
    """Records the min/max of what flows through it, then fake-quantizes it (uint8)."""

    def __init__(self):
        super().__init__()
        self.lo, self.hi, self.calibrating = 0.0, 0.0, True

    def qparams(self):
        lo, hi = min(self.lo, 0.0), max(self.hi, 0.0)
        scale = max((hi - lo) / 255.0, 1e-8)
        zp = int(np.clip(round(-lo / scale), 0, 255))
        return float(scale), zp

    def forward(self, x):
        if self.calibrating:
            self.lo = min(self.lo, float(x.min()))
            self.hi = max(self.hi, float(x.max()))
            return x
        scale, zp = self.qparams()
        return torch.fake_quantize_per_tensor_affine(x, scale, zp, 0, 255)


def weight_fq(w):
    """Per-output-channel symmetric int8 fake quantization of a weight."""
    amax = w.detach().abs().reshape(w.shape[0], -1).amax(dim=1).clamp(min=1e-8)
    scale = (amax / 127.0).float()
    zp = torch.zeros(w.shape[0], dtype=torch.int32)
    return torch.fake_quantize_per_channel_affine(w, scale, zp, 0, -128, 127)


class QConv(torch.nn.Module):
    def __init__(self, conv):
        super().__init__()
        self.conv, self.obs = conv, Observer()

    def forward(self, x):
        c = self.conv
        return torch.nn.functional.conv2d(self.obs(x), weight_fq(c.weight), c.bias, c.stride, c.padding,
                                          c.dilation, c.groups)


class QLinear(torch.nn.Module):
    def __init__(self, lin):
        super().__init__()
        self.lin, self.obs = lin, Observer()

    def forward(self, x):
        return torch.nn.functional.linear(self.obs(x), weight_fq(self.lin.weight), self.lin.bias)


def wrap(module):
    for name, child in module.named_children():
        if isinstance(child, torch.nn.Conv2d):
            setattr(module, name, QConv(child))
        elif isinstance(child, torch.nn.Linear):
            setattr(module, name, QLinear(child))
        else:
            wrap(child)


class QModel(torch.nn.Module):
    def __init__(self, inner):
        super().__init__()
        if not getattr(inner, "quantizes_itself", False):
            wrap(inner)
        self.inner, self.out = inner, Observer()

    def forward(self, x):
        return self.out(self.inner(x))

    def calibrating(self, on):
        for m in self.modules():
            if isinstance(m, Observer):
                m.calibrating = on


class Encoder(torch.nn.Module):
    """BERT-shaped encoder on embeddings: d=64, 4 heads, 2 layers, GELU MLP."""

    def __init__(self, d=64, heads=4, layers=2):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.blocks = torch.nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(torch.nn.ModuleDict({
                "qkv": torch.nn.Linear(d, 3 * d), "o": torch.nn.Linear(d, d), "ln1": torch.nn.LayerNorm(d),
                "ff1": torch.nn.Linear(d, 4 * d), "ff2": torch.nn.Linear(4 * d, d), "ln2": torch.nn.LayerNorm(d)}))

    def forward(self, x):
        b, s, d = x.shape
        for blk in self.blocks:
            q, k, v = blk["qkv"](x).split(d, dim=-1)
            q = q.reshape(b, s, self.h, self.dh).transpose(1, 2)
            k = k.reshape(b, s, self.h, self.dh).transpose(1, 2)
            v = v.reshape(b, s, self.h, self.dh).transpose(1, 2)
            a = torch.softmax(q @ k.transpose(-1, -2) / self.dh ** 0.5, dim=-1) @ v
            x = blk["ln1"](x + blk["o"](a.transpose(1, 2).reshape(b, s, d)))
            x = blk["ln2"](x + blk["ff2"](torch.nn.functional.gelu(blk["ff1"](x))))
        return x


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.c2 = torch.nn.Conv2d(16, 32, 3, stride=2, padding=1, groups=2)
        self.fc = torch.nn.Linear(32, 10)

    def forward(self, x):
        x = torch.relu(self.c2(torch.relu(self.c1(x))))
        return self.fc(x.mean(dim=(2, 3)))


class StagedResidual(torch.nn.Module):
    """Two residual blocks whose outputs are quantized once for all their readers (the next
    conv and the residual Add), as ONNX Runtime's quantizer writes them: the form in which a
    block output can stay uint8 (QdqConvFoldPass's residual read as uint8). Its weights are
    parameters, not Conv2d modules, so that QModel adds no per-conv input observer."""

    def __init__(self, c=16):
        super().__init__()
        shapes = [(c, 3, 3, 3)] + [(c, c, 3, 3)] * 4
        self.w = torch.nn.ParameterList([torch.nn.Parameter(torch.randn(s) * 0.2) for s in shapes])
        self.b = torch.nn.ParameterList([torch.nn.Parameter(torch.randn(c) * 0.1) for _ in shapes])
        self.obs = torch.nn.ModuleList([Observer() for _ in range(5)])

    def conv(self, i, x):
        return torch.nn.functional.conv2d(x, weight_fq(self.w[i]), self.b[i], 1, 1)

    def forward(self, x):
        x = self.obs[0](x)
        t = self.obs[1](torch.relu(self.conv(0, x)))
        a = self.obs[2](torch.relu(self.conv(1, t)))
        t2 = self.obs[3](torch.relu(self.conv(2, a) + t))
        a2 = self.obs[4](torch.relu(self.conv(3, t2)))
        return torch.relu(self.conv(4, a2) + t2)


class QdqOps(torch.nn.Module):
    """Q/DQ pairs around a MaxPool, two Adds (one with a Relu) and a Concat, as ONNX Runtime's
    quantizer writes them (each op's inputs and output quantized; the MaxPool's and the Concat's
    with one observer, so one scale and zero point): the folds that run them on the 8-bit
    tensors (MaxPool and Concat on the bytes, QuantizedAdd)."""

    def __init__(self, c=16):
        super().__init__()
        shapes = [(c, 3, 3, 3), (c, c, 3, 3), (c, c, 1, 1), (c, c, 3, 3), (c, c, 1, 1), (8, 2 * c, 3, 3)]
        self.w = torch.nn.ParameterList([torch.nn.Parameter(torch.randn(s) * 0.2) for s in shapes])
        self.b = torch.nn.ParameterList([torch.nn.Parameter(torch.randn(s[0]) * 0.1) for s in shapes])
        self.obs = torch.nn.ModuleList([Observer() for _ in range(7)])
        self.pads = [s[-1] // 2 for s in shapes]

    def conv(self, i, x):
        return torch.nn.functional.conv2d(x, weight_fq(self.w[i]), self.b[i], 1, self.pads[i])

    def forward(self, x):
        o = self.obs
        x = o[0](x)
        t = o[1](torch.relu(self.conv(0, x)))
        p = o[1](torch.nn.functional.max_pool2d(t, 3, 2, 1))
        a = o[2](torch.relu(self.conv(1, p)))
        b = o[3](self.conv(2, p))
        s = o[4](torch.relu(a + b))
        s2 = o[5](s + b)
        u = o[6](torch.relu(self.conv(3, s2)))
        v = o[6](torch.relu(self.conv(4, s)))
        return self.conv(5, o[6](torch.cat([u, v], 1)))


class OrtStyleResNet18(torch.nn.Module):
    """torchvision's ResNet-18 quantized as ONNX Runtime's quantizer (quantize_static, QDQ) writes
    it, for benchmarks against ONNX Runtime's int8 kernels: BatchNormalization folded into the
    convs, every conv's output (after its ReLU), every block's output (after the Add and ReLU),
    the MaxPool (its input's observer) and the average pool quantized, so that ONNX Runtime
    fuses DequantizeLinear -> Conv -> QuantizeLinear into QLinearConv, the Adds into QLinearAdd,
    and so on; fix_ort_biases then gives each Conv and Gemm an int32 bias behind a
    DequantizeLinear (scale x_scale * w_scale), as the quantizer does and as ONNX Runtime's
    fusion needs."""

    def __init__(self):
        super().__init__()
        m = torchvision.models.resnet18().eval()
        fuse = torch.ao.quantization.fuse_modules
        fuse(m, [["conv1", "bn1", "relu"]], inplace=True)
        for layer in (m.layer1, m.layer2, m.layer3, m.layer4):
            for blk in layer:
                groups = [["conv1", "bn1", "relu"], ["conv2", "bn2"]]
                if blk.downsample is not None:
                    groups.append(["downsample.0", "downsample.1"])
                fuse(blk, groups, inplace=True)
        self.m = m
        self.obs = torch.nn.ModuleDict()
        self.quantizes_itself = True  # QModel adds the output's observer only

    def q(self, key, x):
        if key not in self.obs:
            self.obs[key] = Observer()
        return self.obs[key](x)

    @staticmethod
    def conv(c, x):
        conv, relu = (c[0], True) if isinstance(c, torch.nn.Sequential) else (c, False)
        y = torch.nn.functional.conv2d(x, weight_fq(conv.weight), conv.bias, conv.stride, conv.padding)
        return torch.relu(y) if relu else y

    def forward(self, x):
        m = self.m
        x = self.q("in", x)
        x = self.q("stem", self.conv(m.conv1, x))
        x = self.q("stem", m.maxpool(x))
        for li, layer in enumerate((m.layer1, m.layer2, m.layer3, m.layer4)):
            for bi, blk in enumerate(layer):
                k = "l%d_%d" % (li, bi)
                idt = x
                o = self.q(k + "_c1", self.conv(blk.conv1, x))
                o = self.q(k + "_c2", self.conv(blk.conv2, o))
                if blk.downsample is not None:
                    idt = self.q(k + "_ds", self.conv(blk.downsample[0], x))
                x = self.q(k + "_out", torch.relu(o + idt))
        x = self.q("gap", torch.flatten(m.avgpool(x), 1))
        return torch.nn.functional.linear(x, weight_fq(m.fc.weight), m.fc.bias)


def fix_ort_biases(path):
    """Each Conv / Gemm of DequantizeLinear inputs gets its float bias as int32 behind a
    DequantizeLinear (scale x_scale * w_scale per output channel) and its weights as a constant
    int8 DequantizeLinear, as ONNX Runtime's quantizer writes them."""
    import onnx
    from onnx import numpy_helper as nh
    model = onnx.load(path)
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    consts = {n.output[0]: n for n in g.node if n.op_type == "Constant"}
    producer = {o: n for n in g.node for o in n.output}

    def value(name):
        while name in producer and producer[name].op_type == "Identity":  # shared initializers
            name = producer[name].input[0]
        if name in inits:
            return nh.to_array(inits[name])
        return nh.to_array(consts[name].attribute[0].t)

    def float_weight(name):  # the initializer at the start of the in-graph weight fake-quant
        n = producer[name]
        while n.op_type != "QuantizeLinear":
            n = producer[n.input[0]]
        return value(n.input[0])

    new_inits, new_nodes = [], []
    for n in g.node:
        if n.op_type not in ("Conv", "Gemm") or len(n.input) < 3:
            continue
        dx = producer.get(n.input[0])
        if dx is None or dx.op_type != "DequantizeLinear":
            continue
        xs = float(value(dx.input[1]))
        w = float_weight(n.input[1])
        amax = np.maximum(np.abs(w.reshape(w.shape[0], -1)).max(axis=1), 1e-8)
        ws = (amax / 127.0).astype(np.float32)
        wq = np.clip(np.rint(w / ws.reshape((-1,) + (1,) * (w.ndim - 1))), -128, 127).astype(np.int8)
        b = value(n.input[2]).astype(np.float32)
        bs = (xs * ws).astype(np.float32)
        bq = np.rint(b / bs).astype(np.int32)
        base = n.name or n.output[0]
        names = [base + s for s in ("_wq", "_ws", "_bq", "_bs")]
        for arr, nm in zip((wq, ws, bq, bs), names):
            new_inits.append(nh.from_array(arr, nm))
        new_nodes.append(onnx.helper.make_node("DequantizeLinear", names[0:2], [base + "_w"], axis=0))
        new_nodes.append(onnx.helper.make_node("DequantizeLinear", names[2:4], [base + "_b"], axis=0))
        n.input[1], n.input[2] = base + "_w", base + "_b"
    g.initializer.extend(new_inits)
    nodes = new_nodes + list(g.node)
    del g.node[:]
    g.node.extend(nodes)
    model = onnx.utils.Extractor(model).extract_model([i.name for i in g.input], [o.name for o in g.output])
    onnx.save(model, path)


def build(name):
    if name == "resnet18":
        return torchvision.models.resnet18(), (1, 3, 224, 224)
    if name == "mobilenet_v2":
        return torchvision.models.mobilenet_v2(), (1, 3, 224, 224)
    if name == "encoder":
        return Encoder(), (1, 32, 64)
    if name == "bert_base":  # benchmarks (bench/bench_qdq.py): BERT-base's shape, seq 128
        return Encoder(d=768, heads=12, layers=12), (1, 128, 768)
    if name == "cnn":
        return SmallCnn(), (1, 3, 20, 20)
    if name == "staged_residual":
        return StagedResidual(), (1, 3, 20, 24)
    if name == "qdq_ops":
        return QdqOps(), (1, 3, 22, 26)
    if name == "resnet18_ort":  # benchmarks: ONNX Runtime's QDQ form (fix_ort_biases)
        return OrtStyleResNet18(), (1, 3, 224, 224)
    raise SystemExit("unknown model " + name)


def make(out_dir, name, fp32=False):
    base, shape = build(name)
    path = os.path.join(out_dir, name)
    if fp32:
        example = torch.zeros(shape)
        # resnet18_ort's own forward fake-quantizes its weights: its fp32 twin is torchvision's.
        plain = torchvision.models.resnet18() if name == "resnet18_ort" else base
        torch.onnx.export(plain.eval(), example, path + ".fp32.onnx", input_names=["x"], output_names=["y"],
                          opset_version=13)
    model = QModel(base.eval()).eval()
    rng = np.random.default_rng(0)
    with torch.no_grad():
        model.calibrating(True)
        for _ in range(4):
            model(torch.from_numpy(rng.standard_normal(shape).astype(np.float32)))
        model.calibrating(False)
        x = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
        ref = model(x).numpy()
    torch.onnx.export(model, x, path + ".onnx", input_names=["x"], output_names=["y"], opset_version=13)
    if name == "resnet18_ort":
        fix_ort_biases(path + ".onnx")
    np.save(path + ".in.npy", x.numpy())
    np.save(path + ".out.npy", ref)
    scale, zp = model.out.qparams()
    with open(path + ".json", "w") as f:
        json.dump({"step": scale, "zero_point": zp}, f)


def main():
    args = sys.argv[1:]
    fp32 = "--fp32" in args
    args = [a for a in args if a != "--fp32"]
    if not args:
        raise SystemExit(__doc__)
    out_dir = args[0]
    os.makedirs(out_dir, exist_ok=True)
    for name in args[1:] or ["resnet18", "mobilenet_v2", "encoder", "cnn"]:
        make(out_dir, name, fp32)
        print("wrote", name)


if __name__ == "__main__":
    main()
