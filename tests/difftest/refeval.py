"""Independent numpy reference evaluator for the ONNX ops that gen_and_check.py generates.

ONNX semantics (opsets 13..17) written from the operator specification; it calls nothing of
the compiler. Float ops compute in float64 and round once to the node's output dtype (float32
or float16); Cast/CastLike convert directly from the source dtype (float -> int truncates
toward zero); integer ops compute in int64 and wrap to int32.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

NP_OF = {TensorProto.FLOAT: np.float32, TensorProto.FLOAT16: np.float16, TensorProto.DOUBLE: np.float64,
         TensorProto.INT32: np.int32, TensorProto.INT64: np.int64, TensorProto.BOOL: np.bool_}


def attrs_of(node):
    out = {}
    for a in node.attribute:
        v = helper.get_attribute_value(a)
        out[a.name] = numpy_helper.to_array(v) if isinstance(v, TensorProto) else v
    return out


def _isfloat(a):
    return np.issubdtype(a.dtype, np.floating)


def _unary(x, fn):
    if _isfloat(x):
        return fn(x.astype(np.float64)).astype(x.dtype)
    return fn(x.astype(np.int64)).astype(x.dtype)


def _binary(a, b, fn):
    wide = np.float64 if _isfloat(a) else np.int64
    return np.asarray(fn(a.astype(wide), b.astype(wide))).astype(a.dtype)


def _cast(x, np_to):
    if _isfloat(x) and np.issubdtype(np_to, np.integer):
        return np.trunc(x.astype(np.float64)).astype(np_to)
    return x.astype(np_to)


def _axes_norm(axes, rank):
    return sorted(int(a) + rank if int(a) < 0 else int(a) for a in axes)


def _reduce(x, axes, keepdims, fn, noop_empty=0):
    if axes is None or len(axes) == 0:
        if noop_empty:
            return x.copy()
        axes = list(range(x.ndim))
    ax = tuple(_axes_norm(axes, x.ndim))
    wide = fn(x.astype(np.float64), axis=ax, keepdims=bool(keepdims))
    return np.asarray(wide).astype(x.dtype)


def _reshape(x, shape):
    shape = [int(s) for s in shape]
    out = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return x.reshape(out)


def _slice(x, starts, ends, axes, steps):
    axes = list(range(len(starts))) if axes is None else [int(a) for a in axes]
    steps = [1] * len(starts) if steps is None else [int(s) for s in steps]
    for s, e, a, st in zip(starts, ends, axes, steps):
        a = a + x.ndim if a < 0 else a
        d = x.shape[a]
        s, e = int(s), int(e)
        s = s + d if s < 0 else s
        e = e + d if e < 0 else e
        if st > 0:
            s, e = min(max(s, 0), d), min(max(e, 0), d)
        else:
            s, e = min(max(s, 0), d - 1), min(max(e, -1), d - 1)
        x = np.take(x, np.arange(s, e, st, dtype=np.int64), axis=a)
    return x


def _windows(xp, kh, kw, sh, sw, dh, dw, ho, wo):
    """Yields (i, j, patch) where patch[..., oh, ow] = xp[..., oh*sh + i*dh, ow*sw + j*dw]."""
    for i in range(kh):
        for j in range(kw):
            yield i, j, xp[:, :, i * dh:i * dh + sh * (ho - 1) + 1:sh, j * dw:j * dw + sw * (wo - 1) + 1:sw]


def _out_hw(h, w, kh, kw, pads, strides, dil):
    ho = (h + pads[0] + pads[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    wo = (w + pads[1] + pads[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    return ho, wo


def _conv(x, w, b, at):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    group = at.get('group', 1)
    pads = list(at.get('pads', [0, 0, 0, 0]))
    strides = list(at.get('strides', [1, 1]))
    dil = list(at.get('dilations', [1, 1]))
    ho, wo = _out_hw(h, wd, kh, kw, pads, strides, dil)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    out = np.zeros((n, m, ho, wo))
    mg = m // group
    w64 = w.astype(np.float64)
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        for i, j, patch in _windows(xs, kh, kw, strides[0], strides[1], dil[0], dil[1], ho, wo):
            out[:, g * mg:(g + 1) * mg] += np.einsum('nchw,mc->nmhw', patch, w64[g * mg:(g + 1) * mg, :, i, j])
    if b is not None:
        out += b.astype(np.float64)[None, :, None, None]
    return out.astype(x.dtype)


def _pool(x, at, is_max):
    kh, kw = at['kernel_shape']
    pads = list(at.get('pads', [0, 0, 0, 0]))
    strides = list(at.get('strides', [1, 1]))
    ho, wo = _out_hw(x.shape[2], x.shape[3], kh, kw, pads, strides, [1, 1])
    padw = ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3]))
    x64 = x.astype(np.float64)
    if is_max:
        xp = np.pad(x64, padw, constant_values=-np.inf)
        out = np.full(x.shape[:2] + (ho, wo), -np.inf)
        for _, _, p in _windows(xp, kh, kw, strides[0], strides[1], 1, 1, ho, wo):
            out = np.maximum(out, p)
        return out.astype(x.dtype)
    xp = np.pad(x64, padw)
    ones = np.pad(np.ones((1, 1) + x.shape[2:]), padw)
    out = np.zeros(x.shape[:2] + (ho, wo))
    cnt = np.zeros((1, 1, ho, wo))
    for (_, _, p), (_, _, q) in zip(_windows(xp, kh, kw, strides[0], strides[1], 1, 1, ho, wo),
                                    _windows(ones, kh, kw, strides[0], strides[1], 1, 1, ho, wo)):
        out += p
        cnt += q
    if at.get('count_include_pad', 0):
        cnt = np.full_like(cnt, kh * kw)
    return (out / cnt).astype(x.dtype)


def _softmax(x, axis):
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(x.dtype)


def _gemm(a, b, c, at):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if at.get('transA', 0):
        a64 = a64.T
    if at.get('transB', 0):
        b64 = b64.T
    y = at.get('alpha', 1.0) * (a64 @ b64)
    if c is not None:
        y = y + at.get('beta', 1.0) * c.astype(np.float64)
    return y.astype(a.dtype)


def _constant(at):
    if 'value' in at:
        return at['value']
    if 'value_float' in at:
        return np.array(at['value_float'], dtype=np.float32)
    if 'value_floats' in at:
        return np.array(at['value_floats'], dtype=np.float32)
    if 'value_int' in at:
        return np.array(at['value_int'], dtype=np.int64)
    if 'value_ints' in at:
        return np.array(at['value_ints'], dtype=np.int64)
    raise ValueError('Constant: unsupported attribute %s' % list(at))


def _flatten(x, axis):
    axis = axis + x.ndim if axis < 0 else axis
    return x.reshape(int(np.prod(x.shape[:axis], dtype=np.int64)), -1)


def _unsqueeze(x, axes):
    rank = x.ndim + len(axes)
    for a in _axes_norm(axes, rank):
        x = np.expand_dims(x, a)
    return x


def _squeeze(x, axes):
    if axes is None:
        return x.reshape([d for d in x.shape if d != 1])
    return np.squeeze(x, axis=tuple(_axes_norm(axes, x.ndim)))


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


UNARY = {'Relu': lambda v: np.maximum(v, 0), 'Sigmoid': _sigmoid, 'Tanh': np.tanh, 'Abs': np.abs,
         'Neg': np.negative, 'Exp': np.exp, 'Sqrt': np.sqrt, 'Log': np.log, 'Identity': lambda v: v}
BINARY = {'Add': np.add, 'Sub': np.subtract, 'Mul': np.multiply, 'Div': np.divide}


def eval_node(node, ins, opset):
    """ins: list of numpy arrays or None (absent optional input). Returns the list of outputs."""
    op, at = node.op_type, attrs_of(node)
    x = ins[0] if ins else None
    opt = lambda i: ins[i] if len(ins) > i and ins[i] is not None else None
    if op in UNARY:
        return [_unary(x, UNARY[op])]
    if op in BINARY:
        return [_binary(x, ins[1], BINARY[op])]
    if op in ('Max', 'Min'):
        fn = np.maximum if op == 'Max' else np.minimum
        acc = ins[0]
        for other in ins[1:]:
            acc = _binary(acc, other, fn)
        return [acc]
    if op == 'LeakyRelu':
        alpha = at.get('alpha', 0.01)
        return [_unary(x, lambda v: np.where(v < 0, alpha * v, v))]
    if op == 'Clip':
        lo, hi = opt(1), opt(2)
        y = x
        if lo is not None:
            y = _binary(y, lo, np.maximum)
        if hi is not None:
            y = _binary(y, hi, np.minimum)
        return [y]
    if op in ('Greater', 'Less'):
        fn = np.greater if op == 'Greater' else np.less
        return [fn(x.astype(np.float64), ins[1].astype(np.float64))]
    if op == 'Where':
        return [np.where(x, ins[1], ins[2]).astype(ins[1].dtype)]
    if op == 'Constant':
        return [_constant(at)]
    if op == 'Cast':
        return [_cast(x, NP_OF[at['to']])]
    if op == 'CastLike':
        return [_cast(x, ins[1].dtype)]
    if op == 'ReduceSum':
        return [_reduce(x, opt(1), at.get('keepdims', 1), np.sum, at.get('noop_with_empty_axes', 0))]
    if op in ('ReduceMean', 'ReduceMax'):
        fn = np.mean if op == 'ReduceMean' else np.max
        return [_reduce(x, at.get('axes'), at.get('keepdims', 1), fn)]
    if op == 'Reshape':
        return [_reshape(x, ins[1])]
    if op == 'Transpose':
        return [np.transpose(x, at.get('perm', list(range(x.ndim))[::-1]))]
    if op == 'Flatten':
        return [_flatten(x, at.get('axis', 1))]
    if op == 'Unsqueeze':
        return [_unsqueeze(x, [int(a) for a in ins[1]])]
    if op == 'Squeeze':
        return [_squeeze(x, None if opt(1) is None else [int(a) for a in ins[1]])]
    if op == 'Concat':
        return [np.concatenate(ins, axis=at['axis'])]
    if op == 'Slice':
        return [_slice(x, ins[1], ins[2], opt(3), opt(4))]
    if op == 'MatMul':
        return [np.matmul(x.astype(np.float64), ins[1].astype(np.float64)).astype(x.dtype)]
    if op == 'Gemm':
        return [_gemm(x, ins[1], opt(2), at)]
    if op == 'Conv':
        return [_conv(x, ins[1], opt(2), at)]
    if op in ('MaxPool', 'AveragePool'):
        return [_pool(x, at, op == 'MaxPool')]
    if op == 'Softmax':
        return [_softmax(x, at.get('axis', -1))]
    raise NotImplementedError('reference evaluator: no %s' % op)


def evaluate(model, feeds):
    """Runs the whole graph on feeds (name -> array); returns {output name: array}."""
    env = dict(feeds)
    for init in model.graph.initializer:
        env[init.name] = numpy_helper.to_array(init)
    opset = max(o.version for o in model.opset_import if o.domain in ('', 'ai.onnx'))
    for node in model.graph.node:
        ins = [env[n] if n else None for n in node.input]
        for name, val in zip(node.output, eval_node(node, ins, opset)):
            env[name] = np.asarray(val)
    return {o.name: env[o.name] for o in model.graph.output}
