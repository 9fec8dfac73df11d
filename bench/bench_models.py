"""The models bench_vs_ort.py measures: the four in ../shared/models/onnx and torchvision / BERT
exports made once (random weights, seed 0, opset 13, batch 1) and kept in a cache folder.
Each model is NAME.onnx with NAME.in.npy (one input) beside it."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared", "models", "onnx")
SHARED_MODELS = ["resnet18", "mobilenet_v2", "squeezenet1_1", "bert_tiny"]
TORCHVISION = ["resnet50", "googlenet", "densenet121", "efficientnet_b0", "mobilenet_v3_small",
               "regnet_y_400mf", "shufflenet_v2_x1_0", "convnext_tiny", "vit_b_16"]
ALL_MODELS = SHARED_MODELS + TORCHVISION + ["bert_base"]


def _bert_base():
    """A BERT-base-shaped encoder: 12 layers, d=768, 12 heads, ff=3072, seq 128."""
    import torch
    layer = torch.nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072,
                                             batch_first=True, dropout=0.0, activation="gelu")
    m = torch.nn.TransformerEncoder(layer, num_layers=12)
    for p in m.parameters():  # the 12 layers are copies of one: give each its own weights
        if p.dim() > 1:
            torch.nn.init.normal_(p, std=0.02)
    return m, torch.randn(1, 128, 768)


def _torchvision(name):
    import torch
    import torchvision
    kwargs = {"aux_logits": False, "init_weights": True} if name == "googlenet" else {}
    m = getattr(torchvision.models, name)(**kwargs)
    if name == "vit_b_16":  # its head is zero-initialised: give it random weights
        torch.nn.init.normal_(m.heads.head.weight, std=0.02)
    return m, torch.randn(1, 3, 224, 224)


def _export(name, folder):
    import numpy as np
    import torch
    torch.manual_seed(0)
    m, x = _bert_base() if name == "bert_base" else _torchvision(name)
    m.eval()
    path = os.path.join(folder, name + ".onnx")
    # not under no_grad: torch's fused attention fast path (eval + no_grad) does not export
    torch.onnx.export(m, x, path + ".tmp", opset_version=13)
    np.save(os.path.join(folder, name + ".in.npy"), x.numpy())
    os.replace(path + ".tmp", path)


def add_ours_only_args(ap):
    """The run options of the scripts that compare our builds with each other (bench_precision.py,
    bench_ab.py): models, target, threads, interleaved rounds of omrun --loop runs, model cache."""
    ap.add_argument("--models", default="resnet18")
    ap.add_argument("--soc", default="native")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--loop", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/atc-bench"))


def model_path(name, cache):
    """The .onnx path of a model, exporting it into CACHE/models first if needed."""
    if name in SHARED_MODELS:
        return os.path.join(SHARED, name + ".onnx")
    folder = os.path.join(cache, "models")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name + ".onnx")
    if not os.path.exists(path):
        print(f"exporting {name} (once) ...", flush=True)
        _export(name, folder)
    return path


def count_gflop(path):
    """Multiply-add work of Conv/ConvTranspose/MatMul/Gemm, in GFLOP (2 per multiply-add)."""
    import onnx
    from onnx import shape_inference
    m = shape_inference.infer_shapes(onnx.load(path))
    shapes = {}
    for vi in list(m.graph.value_info) + list(m.graph.input) + list(m.graph.output):
        dims = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        shapes[vi.name] = dims
    for init in m.graph.initializer:
        shapes[init.name] = list(init.dims)
    flop = 0
    for n in m.graph.node:
        flop += _node_flop(n, shapes)
    return flop / 1e9


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _node_flop(n, shapes):
    if n.op_type in ("Conv", "ConvTranspose"):
        w = shapes.get(n.input[1])
        big = shapes.get(n.output[0] if n.op_type == "Conv" else n.input[0])
        if not w or not big:
            return 0
        return 2 * _prod(big) // max(big[1], 1) * _prod(w)
    if n.op_type in ("MatMul", "Gemm"):
        a, y = shapes.get(n.input[0]), shapes.get(n.output[0])
        if not a or not y:
            return 0
        trans_a = any(at.name == "transA" and at.i for at in n.attribute)
        k = a[-2] if (n.op_type == "Gemm" and trans_a) else a[-1]
        return 2 * _prod(y) * k
    return 0
