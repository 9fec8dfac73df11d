"""Generated TF graphs covering the converters, each with numpy references (TF semantics).
A case: (name, build(G) -> (inputs {placeholder: array}, outputs [(node:idx, expected)]), opts)."""
import numpy as np
from scipy_free_math import erf
import ref

R = np.random.RandomState(7)


def rnd(*s, lo=-1.0, hi=1.0):
    return R.uniform(lo, hi, s).astype(np.float32)


CASES = []


def case(name, text=False, args=(), expect=None):
    """expect: {pass name: effect_times} that fusion_result.json must report (graph_fusion)."""
    def deco(fn):
        CASES.append((name, fn, text, list(args), expect or {}))
        return fn
    return deco


def conv_case(fmt, padding, stride, dil=1):
    def build(g):
        x = rnd(1, 9, 10, 3)
        w = rnd(3, 3, 3, 4)
        b = rnd(4)
        xin = x if fmt == "NHWC" else x.transpose(0, 3, 1, 2)
        g.placeholder("x", xin.shape)
        g.const("w", w)
        g.const("b", b)
        st = [1, stride, stride, 1] if fmt == "NHWC" else [1, 1, stride, stride]
        dl = [1, dil, dil, 1] if fmt == "NHWC" else [1, 1, dil, dil]
        g.op("Conv2D", "conv", ["x", "w"], strides=st, padding=padding, data_format=fmt, dilations=dl)
        g.op("BiasAdd", "bias", ["conv", "b"], data_format=fmt)
        g.op("Relu", "out", ["bias"])
        y = np.maximum(ref.conv2d(x, w, (stride, stride), padding, (dil, dil)) + b, 0)
        return {"x": xin}, [("out:0", y if fmt == "NHWC" else y.transpose(0, 3, 1, 2))]
    return build


for fmt in ("NHWC", "NCHW"):
    for pad in ("SAME", "VALID"):
        for s in (1, 2):
            case(f"conv_{fmt}_{pad}_s{s}")(conv_case(fmt, pad, s))
case("conv_NHWC_SAME_dil2")(conv_case("NHWC", "SAME", 1, 2))


@case("depthwise_relu6")
def _(g):
    x, w = rnd(1, 8, 7, 3, lo=-4, hi=4), rnd(3, 3, 3, 2)
    g.placeholder("x", x.shape)
    g.const("w", w)
    g.op("DepthwiseConv2dNative", "dw", ["x", "w"], strides=[1, 2, 2, 1], padding="SAME")
    g.op("Relu6", "out", ["dw"])
    return {"x": x}, [("out:0", np.clip(ref.depthwise(x, w, (2, 2), "SAME"), 0, 6))]


def pool_case(kind, padding, stride, fmt):
    def build(g):
        x = rnd(1, 7, 8, 3)
        xin = x if fmt == "NHWC" else x.transpose(0, 3, 1, 2)
        g.placeholder("x", xin.shape)
        ks = [1, 3, 3, 1] if fmt == "NHWC" else [1, 1, 3, 3]
        st = [1, stride, stride, 1] if fmt == "NHWC" else [1, 1, stride, stride]
        g.op("MaxPool" if kind == "max" else "AvgPool", "out", ["x"], ksize=ks, strides=st, padding=padding,
             data_format=fmt)
        y = ref.pool(x, (3, 3), (stride, stride), padding, kind)
        return {"x": xin}, [("out:0", y if fmt == "NHWC" else y.transpose(0, 3, 1, 2))]
    return build


for kind in ("max", "avg"):
    for pad, s, fmt in (("SAME", 2, "NHWC"), ("VALID", 1, "NHWC"), ("SAME", 1, "NCHW"), ("VALID", 2, "NCHW")):
        case(f"{kind}pool_{fmt}_{pad}_s{s}")(pool_case(kind, pad, s, fmt))


def bn_case(op, fmt):
    def build(g):
        x = rnd(2, 4, 5, 3)
        sc, of, mu, var = rnd(3), rnd(3), rnd(3), rnd(3, lo=0.5, hi=2)
        xin = x if fmt == "NHWC" else x.transpose(0, 3, 1, 2)
        g.placeholder("x", xin.shape)
        for n, v in (("s", sc), ("o", of), ("m", mu), ("v", var)):
            g.const(n, v)
        g.op(op, "bn", ["x", "s", "o", "m", "v"], epsilon=0.001, is_training=False, data_format=fmt)
        y = (x - mu) / np.sqrt(var + 0.001) * sc + of
        return {"x": xin}, [("bn:0", y if fmt == "NHWC" else y.transpose(0, 3, 1, 2))]
    return build


case("fused_bn_v3_NHWC")(bn_case("FusedBatchNormV3", "NHWC"))
case("fused_bn_NCHW")(bn_case("FusedBatchNorm", "NCHW"))


@case("conv2d_backprop_input_same_s2")
def _(g):
    dy, w = rnd(1, 4, 5, 3), rnd(3, 3, 2, 3)
    g.placeholder("dy", dy.shape)
    g.const("w", w)
    g.const("sizes", np.array([1, 8, 9, 2], np.int32))
    g.op("Conv2DBackpropInput", "out", ["sizes", "w", "dy"], strides=[1, 2, 2, 1], padding="SAME")
    return {"dy": dy}, [("out:0", ref.conv2d_transpose(dy, w, (1, 8, 9, 2), (2, 2), "SAME"))]


@case("conv2d_backprop_input_valid_s2")
def _(g):
    dy, w = rnd(1, 3, 4, 3), rnd(3, 3, 2, 3)
    g.placeholder("dy", dy.shape)
    g.const("w", w)
    g.const("sizes", np.array([1, 7, 10, 2], np.int32))
    g.op("Conv2DBackpropInput", "out", ["sizes", "w", "dy"], strides=[1, 2, 2, 1], padding="VALID")
    return {"dy": dy}, [("out:0", ref.conv2d_transpose(dy, w, (1, 7, 10, 2), (2, 2), "VALID"))]


@case("matmul_softmax")
def _(g):
    a, b, c = rnd(3, 5), rnd(4, 5), rnd(5, 3)
    g.placeholder("a", a.shape)
    g.const("b", b)
    g.const("c", c)
    g.op("MatMul", "mm", ["a", "b"], transpose_b=True)
    g.op("Softmax", "sm", ["mm"])
    g.op("MatMul", "mm2", ["c", "a"], transpose_a=True, transpose_b=True)
    g.op("LogSoftmax", "lsm", ["mm2"])
    z = a @ b.T
    e = np.exp(z - z.max(-1, keepdims=True))
    z2 = (c.T @ a.T)
    ls = z2 - z2.max(-1, keepdims=True)
    ls = ls - np.log(np.exp(ls).sum(-1, keepdims=True))
    return {"a": a}, [("sm:0", e / e.sum(-1, keepdims=True)), ("lsm:0", ls)]


@case("select_v1_rows")
def _(g):
    """Select (v1) with a vector condition picks rows of [4, 4] operands (SelectV2 would take it
    as the last dim: with a square shape nothing would fail, the numbers would be wrong)."""
    c = np.array([True, False, False, True])
    x, y = rnd(4, 4), rnd(4, 4)
    g.placeholder("c", c.shape, np.bool_)
    g.placeholder("x", x.shape)
    g.const("y", y)
    g.op("Select", "sel", ["c", "x", "y"])
    g.op("SelectV2", "sel2", ["c", "x", "y"])
    return {"c": c, "x": x}, [("sel:0", np.where(c[:, None], x, y)), ("sel2:0", np.where(c, x, y))]


@case("batch_matmul")
def _(g):
    a, b = rnd(2, 4, 3), rnd(2, 5, 4)
    g.placeholder("a", a.shape)
    g.placeholder("b", b.shape)
    g.op("BatchMatMulV2", "out", ["a", "b"], adj_x=True, adj_y=True)
    g.op("BatchMatMul", "out2", ["a", "a"], adj_x=True)
    return {"a": a, "b": b}, [("out:0", a.transpose(0, 2, 1) @ b.transpose(0, 2, 1)),
                             ("out2:0", a.transpose(0, 2, 1) @ a)]


@case("eltwise_binary")
def _(g):
    x, y = rnd(2, 3, 4, lo=0.5, hi=2), rnd(3, 4, lo=0.5, hi=2)
    g.placeholder("x", x.shape)
    g.placeholder("y", y.shape)
    outs = []
    for op, f in (("Add", np.add), ("AddV2", np.add), ("Sub", np.subtract), ("Mul", np.multiply),
                  ("RealDiv", np.divide), ("Maximum", np.maximum), ("Minimum", np.minimum),
                  ("SquaredDifference", lambda a, b: (a - b) ** 2), ("Pow", np.power)):
        g.op(op, op.lower(), ["x", "y"])
        outs.append((op.lower() + ":0", f(x, y)))
    g.op("AddN", "addn", ["x", "x", "x"])
    outs.append(("addn:0", 3 * x))
    return {"x": x, "y": y}, outs


@case("eltwise_unary")
def _(g):
    x = rnd(3, 5, lo=0.2, hi=2)
    xs = rnd(3, 5, lo=-2, hi=2)
    g.placeholder("p", x.shape)
    g.placeholder("q", xs.shape)
    outs = []
    for op, f in (("Rsqrt", lambda a: 1 / np.sqrt(a)), ("Sqrt", np.sqrt), ("Log", np.log)):
        g.op(op, op.lower(), ["p"])
        outs.append((op.lower() + ":0", f(x)))
    selu_a, selu_s = 1.6732632423543772, 1.0507009873554805
    for op, f, kw in (("Square", np.square, {}), ("Exp", np.exp, {}), ("Neg", np.negative, {}), ("Abs", np.abs, {}),
                      ("Erf", erf, {}), ("Sigmoid", lambda a: 1 / (1 + np.exp(-a)), {}), ("Tanh", np.tanh, {}),
                      ("Elu", lambda a: np.where(a > 0, a, np.exp(a) - 1), {}),
                      ("Selu", lambda a: selu_s * np.where(a > 0, a, selu_a * (np.exp(a) - 1)), {}),
                      ("LeakyRelu", lambda a: np.where(a > 0, a, 0.1 * a), {"alpha": 0.1}),
                      ("Relu", lambda a: np.maximum(a, 0), {})):
        g.op(op, op.lower(), ["q"], **kw)
        outs.append((op.lower() + ":0", f(xs)))
    return {"p": x, "q": xs}, outs


@case("reductions")
def _(g):
    x = rnd(2, 3, 4, lo=0.5, hi=1.5)
    g.placeholder("x", x.shape)
    g.const("ax", np.array([1, 2], np.int32))
    g.const("ax1", np.array(-1, np.int32))
    outs = []
    for op, f, keep in (("Mean", np.mean, True), ("Sum", np.sum, False), ("Max", np.max, True),
                        ("Min", np.min, False), ("Prod", np.prod, False)):
        g.op(op, op.lower(), ["x", "ax"], keep_dims=keep, Tidx=np.int32)
        outs.append((op.lower() + ":0", f(x, axis=(1, 2), keepdims=keep)))
    g.op("ArgMax", "argmax", ["x", "ax1"], output_type=np.int32)
    outs.append(("argmax:0", np.argmax(x, -1).astype(np.int32)))
    return {"x": x}, outs


@case("array_ops")
def _(g):
    x = rnd(2, 3, 4)
    g.placeholder("x", x.shape)
    outs = []
    g.const("shape", np.array([4, -1], np.int32))
    g.op("Reshape", "reshape", ["x", "shape"])
    outs.append(("reshape:0", x.reshape(4, -1)))
    g.const("dim0", np.array(0, np.int32))
    g.op("ExpandDims", "expand", ["x", "dim0"])
    g.op("Squeeze", "squeeze", ["expand"], squeeze_dims=[0])
    outs.append(("squeeze:0", x))
    g.const("axis1", np.array(1, np.int32))
    g.op("ConcatV2", "concat", ["x", "x", "axis1"], N=2)
    outs.append(("concat:0", np.concatenate([x, x], 1)))
    g.op("Pack", "pack", ["x", "x"], axis=1, N=2)
    outs.append(("pack:0", np.stack([x, x], 1)))
    g.op("Unpack", "unpack", ["x"], num=3, axis=1)
    outs += [("unpack:0", x[:, 0]), ("unpack:2", x[:, 2])]
    g.const("axis2", np.array(2, np.int32))
    g.op("Split", "split", ["axis2", "x"], num_split=2)
    outs.append(("split:1", x[:, :, 2:]))
    g.const("sizes", np.array([1, -1], np.int32))
    g.op("SplitV", "splitv", ["x", "sizes", "axis2"], num_split=2)
    outs += [("splitv:0", x[:, :, :1]), ("splitv:1", x[:, :, 1:])]
    g.const("begin", np.array([0, 1, 1], np.int32))
    g.const("size", np.array([-1, 2, 2], np.int32))
    g.op("Slice", "slice", ["x", "begin", "size"])
    outs.append(("slice:0", x[:, 1:3, 1:3]))
    g.const("pads", np.array([[0, 0], [1, 2], [2, 1]], np.int32))
    g.op("Pad", "pad", ["x", "pads"])
    outs.append(("pad:0", np.pad(x, ((0, 0), (1, 2), (2, 1)))))
    g.const("cv", np.array(1.5, np.float32))
    g.op("PadV2", "padv2", ["x", "pads", "cv"])
    outs.append(("padv2:0", np.pad(x, ((0, 0), (1, 2), (2, 1)), constant_values=1.5)))
    g.op("MirrorPad", "mirror", ["x", "pads"], mode="REFLECT")
    outs.append(("mirror:0", np.pad(x, ((0, 0), (1, 2), (2, 1)), mode="reflect")))
    g.op("MirrorPad", "mirror_sym", ["x", "pads"], mode="SYMMETRIC")
    outs.append(("mirror_sym:0", np.pad(x, ((0, 0), (1, 2), (2, 1)), mode="symmetric")))
    g.const("perm", np.array([2, 0, 1], np.int32))
    g.op("Transpose", "transpose", ["x", "perm"])
    outs.append(("transpose:0", x.transpose(2, 0, 1)))
    g.op("Shape", "shape_of", ["x"], out_type=np.int32)
    g.op("Cast", "shape_f", ["shape_of"], T=None, SrcT=np.int32, DstT=np.float32)
    outs.append(("shape_f:0", np.array([2, 3, 4], np.float32)))
    g.const("mult", np.array([1, 2, 1], np.int32))
    g.op("Tile", "tile", ["x", "mult"])
    outs.append(("tile:0", np.tile(x, (1, 2, 1))))
    g.const("idx", np.array([2, 0, 2], np.int32))
    g.op("GatherV2", "gather", ["x", "idx", "axis2"])
    outs.append(("gather:0", x[:, :, [2, 0, 2]]))
    g.const("dims", np.array([2, 3], np.int32))
    g.const("val", np.array(0.25, np.float32))
    g.op("Fill", "fill", ["dims", "val"])
    outs.append(("fill:0", np.full((2, 3), 0.25, np.float32)))
    g.const("r0", np.array(1.0, np.float32))
    g.const("r1", np.array(4.0, np.float32))
    g.const("r2", np.array(0.5, np.float32))
    g.op("Range", "range", ["r0", "r1", "r2"], Tidx=np.float32)
    outs.append(("range:0", np.arange(1, 4, 0.5, dtype=np.float32)))
    return {"x": x}, outs


SS = [  # begin, end, strides, masks (begin, end, ellipsis, new_axis, shrink)
    ([0, 1, 0], [2, 3, 4], [1, 1, 2], (0, 0, 0, 0, 0)),
    ([1, 0, 0], [0, 2, 0], [1, 1, 1], (1, 4, 0, 0, 0)),
    ([0, 1], [0, 2], [1, 1], (0, 0, 1, 0, 0)),
    ([0, 0, 1], [0, 0, 3], [1, 1, 1], (0, 0, 0, 2, 0)),
    ([1, 0, -1], [2, 3, 0], [1, 1, 1], (2, 2, 0, 0, 5)),
    ([0, -1, 0], [0, -4, 0], [1, -1, -1], (5, 5, 0, 0, 0)),
    ([0, 2], [0, 3], [1, 1], (0, 0, 1, 0, 2)),
    ([0, 0, 1], [0, 0, 2], [1, 1, 1], (0, 0, 2, 1, 4)),
]


@case("strided_slice_masks")
def _(g):
    x = rnd(2, 3, 4)
    g.placeholder("x", x.shape)
    outs = []
    for k, (b, e, s, m) in enumerate(SS):
        g.const(f"b{k}", np.array(b, np.int32))
        g.const(f"e{k}", np.array(e, np.int32))
        g.const(f"s{k}", np.array(s, np.int32))
        g.op("StridedSlice", f"ss{k}", ["x", f"b{k}", f"e{k}", f"s{k}"], Index=np.int32, begin_mask=m[0],
             end_mask=m[1], ellipsis_mask=m[2], new_axis_mask=m[3], shrink_axis_mask=m[4])
        outs.append((f"ss{k}:0", ref.strided_slice(x, b, e, s, *m)))
    return {"x": x}, outs


@case("resize")
def _(g):
    x = rnd(1, 4, 5, 2)
    g.placeholder("x", x.shape)
    g.const("size", np.array([7, 3], np.int32))
    outs = []
    for op, bil in (("ResizeBilinear", True), ("ResizeNearestNeighbor", False)):
        for tag, align, half in (("plain", False, False), ("align", True, False), ("half", False, True)):
            name = f"{op}_{tag}"
            g.op(op, name, ["x", "size"], align_corners=align, half_pixel_centers=half)
            outs.append((name + ":0", ref.resize(x, (7, 3), bil, align, half)))
    return {"x": x}, outs


def structure(g, encoding):
    x = rnd(2, 3)
    g.placeholder("x", x.shape)
    g.placeholder("unused", [5])  # pruned: not needed by the outputs
    g.const("c", np.full((2, 3), 0.5, np.float32), encoding=encoding)
    g.op("NoOp", "init", [], T=None)
    g.op("Identity", "xi", ["x", "^init"])
    g.op("IdentityN", "idn", ["xi", "c"], T=None)
    g.op("StopGradient", "sg", ["idn:1"])
    g.op("Add", "out", ["idn:0", "sg"])
    g.op("Unique", "dead_branch", ["x"])  # unsupported op on a pruned branch
    return {"x": x}, [("out:0", x + 0.5)]


case("structure_content")(lambda g: structure(g, "content"))
case("structure_list")(lambda g: structure(g, "list"))
case("structure_splat_pbtxt", text=True)(lambda g: structure(g, "splat"))


@case("switch_merge_folds")
def _(g):
    x = rnd(2, 3)
    g.placeholder("x", x.shape)
    g.const("pred", np.array(False))
    g.op("Switch", "sw", ["x", "pred"])
    g.op("Relu", "t", ["sw:1"])
    g.op("Neg", "f", ["sw:0"])
    g.op("Merge", "out", ["t", "f"], N=2)
    return {"x": x}, [("out:0", -x)]


def tf_cond(g, pred, scope, x, true_fn, false_fn):
    """A TF1 tf.cond (cond_v1) as freezing leaves it: the pivots switch_t / switch_f, the data
    Switch, branch constants hung on the pivots by control inputs, Merge(false, true)."""
    g.op("Switch", scope + "/Switch", [pred, pred], T=np.bool_)
    g.op("Identity", scope + "/switch_t", [scope + "/Switch:1"], T=np.bool_)
    g.op("Identity", scope + "/switch_f", [scope + "/Switch:0"], T=np.bool_)
    g.op("Identity", scope + "/pred_id", [pred], T=np.bool_)
    g.op("Switch", scope + "/Switch_1", [x, scope + "/pred_id"])
    t = true_fn(scope + "/t", scope + "/Switch_1:1", "^" + scope + "/switch_t")
    f = false_fn(scope + "/f", scope + "/Switch_1:0", "^" + scope + "/switch_f")
    g.op("Merge", scope + "/Merge", [f, t], N=2)
    return scope + "/Merge"


def branch_const(g, name, value, pivot):
    g.const(name, value)
    g.gd.node[-1].input.append(pivot)
    return name


def runtime_cond(g, p):
    """out = -(x * 2 if p else relu(x) + 0.5); k = 3.0 if p else -1.0 (branches of constants only);
    inside the true branch a nested cond on q: x * 2 + (1 if q else x)."""
    x, q = rnd(2, 3), not p
    g.placeholder("x", x.shape)
    g.placeholder("p", [], dtype=np.bool_)
    g.placeholder("q", [], dtype=np.bool_)

    def true_fn(sc, xin, pivot):
        g.op("Mul", sc + "/mul", [xin, branch_const(g, sc + "/two", np.float32(2), pivot)])
        inner = tf_cond(g, "q", sc + "/inner", sc + "/mul",
                        lambda s2, xi, pv: g.op("Add", s2 + "/add", [xi, branch_const(g, s2 + "/one", np.float32(1), pv)]),
                        lambda s2, xi, pv: g.op("Add", s2 + "/addx", [xi, "x"]))
        return inner

    def false_fn(sc, xin, pivot):
        g.op("Relu", sc + "/relu", [xin])
        return g.op("Add", sc + "/add", [sc + "/relu", branch_const(g, sc + "/half", np.float32(0.5), pivot)])

    m = tf_cond(g, "p", "cond", "x", true_fn, false_fn)
    g.op("Neg", "out", [m])
    k = tf_cond(g, "p", "cond_k", "x", lambda sc, xi, pv: branch_const(g, sc + "/c", np.float32(3), pv),
                lambda sc, xi, pv: branch_const(g, sc + "/c", np.float32(-1), pv))
    g.op("Identity", "k", [k])
    y = x * 2 + (1 if q else x) if p else np.maximum(x, 0) + 0.5
    return {"x": x, "p": np.array(p), "q": np.array(q)}, [("out:0", -y), ("k:0", np.float32(3 if p else -1)),
                                                             ("cond/Merge:1", np.int32(1 if p else 0))]


case("cond_runtime_pred_true")(lambda g: runtime_cond(g, True))
case("cond_runtime_pred_false")(lambda g: runtime_cond(g, False))


@case("placeholder_order")
def _(g):
    b, a = rnd(2, 2), rnd(2, 2)
    g.placeholder("b_input", b.shape)
    g.placeholder("a_input", a.shape)
    g.op("Sub", "out", ["b_input", "a_input"])
    return {"a_input": a, "b_input": b}, [("out:0", b - a)]


def layer_norm(g):
    x, gamma, beta = rnd(2, 3, 8), rnd(8), rnd(8)
    g.placeholder("x", x.shape)
    g.const("axes", np.array([-1], np.int32))
    g.const("gamma", gamma)
    g.const("beta", beta)
    g.const("eps", np.array(1e-3, np.float32))
    g.op("Mean", "ln/moments/mean", ["x", "axes"], keep_dims=True, Tidx=np.int32)
    g.op("StopGradient", "ln/moments/StopGradient", ["ln/moments/mean"])
    g.op("SquaredDifference", "ln/moments/SquaredDifference", ["x", "ln/moments/StopGradient"])
    g.op("Mean", "ln/moments/variance", ["ln/moments/SquaredDifference", "axes"], keep_dims=True, Tidx=np.int32)
    g.op("AddV2", "ln/batchnorm/add", ["ln/moments/variance", "eps"])
    g.op("Rsqrt", "ln/batchnorm/Rsqrt", ["ln/batchnorm/add"])
    g.op("Mul", "ln/batchnorm/mul", ["ln/batchnorm/Rsqrt", "gamma"])
    g.op("Mul", "ln/batchnorm/mul_1", ["x", "ln/batchnorm/mul"])
    g.op("Mul", "ln/batchnorm/mul_2", ["ln/moments/mean", "ln/batchnorm/mul"])
    g.op("Sub", "ln/batchnorm/sub", ["beta", "ln/batchnorm/mul_2"])
    g.op("AddV2", "ln/batchnorm/add_1", ["ln/batchnorm/mul_1", "ln/batchnorm/sub"])
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return {"x": x}, [("ln/batchnorm/add_1:0", (x - m) / np.sqrt(v + 1e-3) * gamma + beta)]


case("layer_norm_decomposed")(layer_norm)
case("layer_norm_scope_fused", args=["--enable_scope_fusion_passes=ScopeLayerNormPass,NoSuchPass"])(layer_norm)


@case("mirror_pad_symmetric_full")
def _(g):
    # SYMMETRIC allows pads up to the dim size (REFLECT only up to size - 1); NCHW-like 4-D image.
    x = rnd(1, 2, 3, 4)
    g.placeholder("x", x.shape)
    g.const("pads", np.array([[0, 0], [2, 1], [3, 0], [1, 4]], np.int32))
    g.op("MirrorPad", "out", ["x", "pads"], mode="SYMMETRIC", Tpaddings=np.int32)
    return {"x": x}, [("out:0", np.pad(x, ((0, 0), (2, 1), (3, 0), (1, 4)), mode="symmetric"))]


# Gelu as TensorFlow decomposes it, inside a dense layer (BERT feed-forward style).
def gelu_graph(g, form):
    x, w, b = rnd(2, 8), rnd(8, 16), rnd(16)
    g.placeholder("x", x.shape)
    g.const("w", w)
    g.const("b", b)
    g.op("MatMul", "dense/MatMul", ["x", "w"], transpose_a=False, transpose_b=False)
    g.op("BiasAdd", "dense/BiasAdd", ["dense/MatMul", "b"])
    h = "dense/BiasAdd"
    s = "gelu/"
    if form == "tf_erf":  # tf.nn.gelu(approximate=False): 0.5 * x * (1 + erf(x / 1.4142135))
        g.const(s + "half", np.array(0.5, np.float32))
        g.const(s + "sqrt2", np.array(1.4142135623730951, np.float32))
        g.const(s + "one", np.array(1.0, np.float32))
        g.op("Mul", s + "mul", [s + "half", h])
        g.op("RealDiv", s + "truediv", [h, s + "sqrt2"])
        g.op("Erf", s + "Erf", [s + "truediv"])
        g.op("AddV2", s + "add", [s + "one", s + "Erf"])
        g.op("Mul", s + "mul_1", [s + "mul", s + "add"])
    elif form == "bert_erf":  # cdf = 0.5 * (1 + erf(x / tf.sqrt(2.0))); x * cdf
        g.const(s + "two", np.array(2.0, np.float32))
        g.op("Sqrt", s + "Sqrt", [s + "two"])
        g.const(s + "half", np.array(0.5, np.float32))
        g.const(s + "one", np.array(1.0, np.float32))
        g.op("RealDiv", s + "truediv", [h, s + "Sqrt"])
        g.op("Erf", s + "Erf", [s + "truediv"])
        g.op("AddV2", s + "add", [s + "one", s + "Erf"])
        g.op("Mul", s + "mul", [s + "half", s + "add"])
        g.op("Mul", s + "mul_1", [h, s + "mul"])
    elif form == "tf_tanh":  # tf.nn.gelu(approximate=True)
        g.const(s + "half", np.array(0.5, np.float32))
        g.const(s + "c", np.array(0.7978845608028654, np.float32))
        g.const(s + "k", np.array(0.044715, np.float32))
        g.const(s + "three", np.array(3.0, np.float32))
        g.const(s + "one", np.array(1.0, np.float32))
        g.op("Mul", s + "mul", [s + "half", h])
        g.op("Pow", s + "Pow", [h, s + "three"])
        g.op("Mul", s + "mul_1", [s + "k", s + "Pow"])
        g.op("AddV2", s + "add", [h, s + "mul_1"])
        g.op("Mul", s + "mul_2", [s + "c", s + "add"])
        g.op("Tanh", s + "Tanh", [s + "mul_2"])
        g.op("AddV2", s + "add_1", [s + "one", s + "Tanh"])
        g.op("Mul", s + "mul_3", [s + "mul", s + "add_1"])
    else:  # keras/BERT tanh with x * x * x: x * (0.5 * (1 + tanh(c * (x + 0.044715 * x^3))))
        g.const(s + "half", np.array(0.5, np.float32))
        g.const(s + "c", np.array(0.7978845608028654, np.float32))
        g.const(s + "k", np.array(0.044715, np.float32))
        g.const(s + "one", np.array(1.0, np.float32))
        g.op("Mul", s + "x2", [h, h])
        g.op("Mul", s + "x3", [s + "x2", h])
        g.op("Mul", s + "mul_1", [s + "x3", s + "k"])
        g.op("AddV2", s + "add", [s + "mul_1", h])
        g.op("Mul", s + "mul_2", [s + "add", s + "c"])
        g.op("Tanh", s + "Tanh", [s + "mul_2"])
        g.op("AddV2", s + "add_1", [s + "Tanh", s + "one"])
        g.op("Mul", s + "mul", [s + "add_1", s + "half"])
        g.op("Mul", s + "mul_3", [h, s + "mul"])
    out = g.gd.node[-1].name
    g.op("Relu", "out", [out])  # something after the Gelu
    z = (x.astype(np.float64) @ w + b)
    if "erf" in form:
        y = 0.5 * z * (1 + erf(z / np.sqrt(2)))
    else:
        y = 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z ** 3)))
    return {"x": x}, [("out:0", np.maximum(y, 0))]


for form in ("tf_erf", "bert_erf", "tf_tanh", "keras_tanh"):
    case(f"gelu_{form}")(lambda g, f=form: gelu_graph(g, f))
    case(f"gelu_{form}_scope_fused", args=["--enable_scope_fusion_passes=ScopeGeluPass"],
         expect={"ScopeGeluPass": "1"})(lambda g, f=form: gelu_graph(g, f))

QUINT8, QINT8 = 12, 11


def tf_dequantize(q, mn, mx, mode, signed, narrow=False, axis=-1):
    """numpy reference of TF's Dequantize kernel (dequantize_op.cc), in float64."""
    q = q.astype(np.float64)
    lo, hi = (-128.0, 127.0) if signed else (0.0, 255.0)
    mn, mx = np.asarray(mn, np.float64), np.asarray(mx, np.float64)
    if axis >= 0:
        shape = [1] * q.ndim
        shape[axis] = -1
        mn, mx = mn.reshape(shape), mx.reshape(shape)
    if mode == "MIN_COMBINED":
        half = 128.0 if signed else 0.0
        return (q + half) * (mx - mn) / (hi - lo) + mn
    if mode == "MIN_FIRST":
        scale = (mx - mn) * (256.0 / 255.0) / 256.0
        return mn + (q - lo) * scale
    min_fixed = lo + 1 if narrow else lo
    from_min = np.where(min_fixed * mn > 0, mn / np.where(min_fixed == 0, 1, min_fixed), np.inf)
    from_max = np.where(hi * mx > 0, mx / hi, np.inf)
    return q * np.minimum(from_min, from_max)


def dequant_case(mode, signed, narrow=False, axis=-1):
    def build(g):
        x = rnd(3, 6)
        q = R.randint(-128 if signed else 0, 128 if signed else 256, (6, 4)).astype(np.int8 if signed else np.uint8)
        n = 4 if axis >= 0 else 1
        mn = -R.uniform(0.5, 3.0, n).astype(np.float32)
        mx = R.uniform(0.5, 3.0, n).astype(np.float32)
        g.placeholder("x", x.shape)
        g.const("q", q, tf_type=QINT8 if signed else QUINT8)
        g.const("mn", mn if axis >= 0 else mn[0])
        g.const("mx", mx if axis >= 0 else mx[0])
        g.op("Dequantize", "dq", ["q", "mn", "mx"], T=QINT8 if signed else QUINT8, mode=mode,
             narrow_range=narrow, axis=axis)
        g.op("MatMul", "out", ["x", "dq"])
        w = tf_dequantize(q, mn if axis >= 0 else mn[0], mx if axis >= 0 else mx[0], mode, signed, narrow, axis)
        return {"x": x}, [("out:0", x.astype(np.float64) @ w)]
    return build


for mode in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
    for signed in (False, True):
        case(f"dequantize_{mode.lower()}_{'qint8' if signed else 'quint8'}")(dequant_case(mode, signed))
case("dequantize_scaled_qint8_narrow_axis1")(dequant_case("SCALED", True, True, 1))
case("dequantize_min_combined_quint8_axis1")(dequant_case("MIN_COMBINED", False, False, 1))

import kws_models  # noqa: E402,F401  (keyword-spotting / speech-commands graphs, registered into CASES)
import while_cases  # noqa: E402,F401  (TF1 while loops and TensorArrays, registered into CASES)
