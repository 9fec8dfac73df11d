#!/usr/bin/env python3
"""Differential tester: random valid ONNX graphs, compiled with atc and run with omrun, compared
with an independent numpy reference (refeval.py). See README.md in this folder.

Usage: gen_and_check.py --bin BUILD/bin [--seed N] [--count N] [--per-model N]
                        [--hours H] [--keep-failures DIR] [--jobs N] [-v]
Exit 1 when any graph mismatches or fails (crash, signal, timeout); refusals (a compile error
on a valid graph) are counted by error code and reported, not failed on.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refeval import eval_node, evaluate  # noqa: E402

MAX_NUMEL = 2048
AVOID_KNOWN_BUGS = True  # narrowings of the generator for open compiler bugs (none open now)
F32, F16, I32 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT32
ONNX_OF = {np.dtype(np.float32): F32, np.dtype(np.float16): F16, np.dtype(np.int32): I32,
           np.dtype(np.int64): TensorProto.INT64, np.dtype(np.bool_): TensorProto.BOOL,
           np.dtype(np.float64): TensorProto.DOUBLE}
# Ops whose result is exactly determined by exact inputs (no rounding): a value built only from
# them may be truncated to int32 and compared exactly.
EXACT_OPS = {'Relu', 'Abs', 'Neg', 'Max', 'Min', 'Reshape', 'Transpose', 'Flatten', 'Unsqueeze', 'Squeeze',
             'Concat', 'Slice', 'MaxPool', 'ReduceMax', 'Clip', 'Where', 'Cast', 'CastLike', 'Constant',
             'Identity'}
# Ops that accumulate: their error scales with the sum of |inputs|, so their magnitude is taken
# from the same op on |inputs|.
ACCUM_OPS = {'ReduceSum', 'ReduceMean', 'MatMul', 'Gemm', 'Conv', 'AveragePool'}


class Sub:
    """One random subgraph: its nodes, initializers, inputs and reference values."""

    def __init__(self, rng, prefix, opset):
        self.rng, self.p, self.opset = rng, prefix, opset
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.env, self.info, self.n = {}, {}, 0

    def fresh(self, hint):
        self.n += 1
        return '%s%s%d' % (self.p, hint, self.n)

    def add_input(self, shape):
        name = self.fresh('in')
        arr = self.rng_np().uniform(-3, 3, size=shape).astype(np.float32)
        self.inputs.append((name, arr))
        self.env[name] = arr
        self.info[name] = dict(exact=True, mag=float(np.abs(arr).max(initial=0)), rtol=1e-4, depth=0)
        return name

    def rng_np(self):
        return np.random.default_rng(self.rng.randrange(1 << 30))

    def init(self, arr):
        name = self.fresh('w')
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        self.env[name] = np.asarray(arr)
        self.info[name] = dict(exact=True, mag=float(np.abs(np.asarray(arr, np.float64)).max(initial=0)),
                               rtol=1e-4, depth=0)
        return name

    def node(self, op, ins, **attrs):
        out = self.fresh(op[:4].lower())
        nd = helper.make_node(op, ins, [out], **attrs)
        vals = [self.env[i] if i else None for i in ins]
        y = np.asarray(eval_node(nd, vals, self.opset)[0])
        self.nodes.append(nd)
        self.env[out] = y
        known = [self.info[i] for i in ins if i]
        mag = max([k['mag'] for k in known] + [float(np.abs(y.astype(np.float64)).max(initial=0))])
        if op in ACCUM_OPS:
            absed = [np.abs(v) if v is not None and v.dtype.kind == 'f' else v for v in vals]
            mag = max(mag, float(np.abs(eval_node(nd, absed, self.opset)[0]).max(initial=0)))
        self.info[out] = dict(exact=op in EXACT_OPS and all(k['exact'] for k in known), mag=mag,
                              rtol=max([1e-4] + [k['rtol'] for k in known]),
                              depth=1 + max([0] + [k['depth'] for k in known]))
        return out

    def shape(self, name):
        return tuple(self.env[name].shape)

    def absmax(self, name):
        return float(np.abs(self.env[name].astype(np.float64)).max(initial=0))


def i64(vals):
    return np.array(vals, dtype=np.int64)


def numel(shape):
    return int(np.prod(shape, dtype=np.int64))


# ---- constants: every form a constant can take in a graph --------------------------------------

def make_const(s, arr, donor):
    """A float32 constant of value arr, as one of the forms ONNX graphs use for constants."""
    arr = np.asarray(arr, dtype=np.float32)
    forms = ['init', 'const', 'cast64', 'castsame']
    if arr.ndim == 0:
        forms.append('value_float')
    if s.opset >= 15 and donor is not None:
        forms += ['castlike_same', 'castlike_same', 'castlike64']
    form = s.rng.choice(forms)
    if form == 'init':
        return s.init(arr)
    if form == 'value_float':
        return s.node('Constant', [], value_float=float(arr))
    tensor = lambda a: numpy_helper.from_array(a, s.fresh('c'))
    if form == 'const':
        return s.node('Constant', [], value=tensor(arr))
    if form == 'cast64':
        c = s.node('Constant', [], value=tensor(arr.astype(np.float64)))
        return s.node('Cast', [c], to=F32)
    if form == 'castsame':
        return s.node('Cast', [s.node('Constant', [], value=tensor(arr))], to=F32)
    if form == 'castlike64':
        c = s.node('Constant', [], value=tensor(arr.astype(np.float64)))
        return s.node('CastLike', [c, donor])
    # CastLike of a float32 constant to a float32 donor: the equal-dtype case of bug e8ae319.
    return s.node('CastLike', [s.node('Constant', [], value=tensor(arr)), donor])


def bcast_shape(s, shape):
    """A random shape that broadcasts with shape (numpy rules) without growing past MAX_NUMEL."""
    for _ in range(10):
        r = s.rng.randint(0, min(4, len(shape) + 1))
        out = []
        for d in (shape[len(shape) - r:] if r <= len(shape) else shape):
            out.append(s.rng.choice([1, d]) if d != 1 else s.rng.choice([1, 1, s.rng.randint(2, 4)]))
        if r > len(shape):
            out = [s.rng.randint(1, 3) for _ in range(r - len(shape))] + out
        # (A size-1 operand of higher rank in a fused chain, y = Neg(x[]) - c[1,1], used to lose
        # the broadcast rank: found by this tester with seed 20261124, fixed in the eltwise
        # grouping; no narrowing is needed any more.)
        if numel(np.broadcast_shapes(tuple(shape), tuple(out))) <= MAX_NUMEL:
            return tuple(out)
    return ()


def other_operand(s, cur):
    """A float32 operand for a binary op with cur: a constant, another value or a new input."""
    shp = bcast_shape(s, s.shape(cur))
    k = s.rng.random()
    if k < 0.55:
        if not shp or s.rng.random() < 0.4:
            return make_const(s, np.float32(round(s.rng.uniform(-2, 2), 3)), cur)
        return make_const(s, s.rng_np().uniform(-2, 2, size=shp).astype(np.float32), cur)
    pool = [n for n, v in s.env.items() if v.dtype == np.float32 and n != cur and s.info[n]['depth'] > 0]
    pool = [n for n in pool if _bcast_ok(s.shape(cur), s.shape(n))]
    if pool and k < 0.8:
        return s.rng.choice(pool)
    return s.add_input(shp)


def _bcast_ok(a, b):
    try:
        return numel(np.broadcast_shapes(a, b)) <= MAX_NUMEL
    except ValueError:
        return False


# ---- one step each: they take the current float32 value and return the next (or None) -------

def st_unary(s, cur):
    op = s.rng.choice(['Relu', 'Sigmoid', 'Tanh', 'Abs', 'Neg', 'LeakyRelu', 'Exp', 'Sqrt', 'Log'])
    if op == 'LeakyRelu':
        return s.node(op, [cur], alpha=round(s.rng.uniform(0.01, 0.5), 3))
    if op == 'Exp':  # bounded input
        return s.node('Exp', [s.node('Tanh', [cur])])
    if op in ('Sqrt', 'Log'):  # positive input: Abs(x) + c
        c = make_const(s, np.float32(s.rng.choice([0.5, 1.0, 1.25])), cur)
        return s.node(op, [s.node('Add', [s.node('Abs', [cur]), c])])
    return s.node(op, [cur])


def st_binary(s, cur):
    op = s.rng.choice(['Add', 'Sub', 'Mul', 'Div', 'Max', 'Min', 'Max3'])
    other = other_operand(s, cur)
    ins = [cur, other] if s.rng.random() < 0.7 else [other, cur]
    if op == 'Div':  # denominator away from zero
        c = make_const(s, np.float32(0.5), cur)
        return s.node('Div', [cur, s.node('Add', [s.node('Abs', [other]), c])])
    if op == 'Max3':
        return s.node(s.rng.choice(['Max', 'Min']), ins + [make_const(s, np.float32(0.25), cur)])
    return s.node(op, ins)


def st_clip(s, cur):
    lo = make_const(s, np.float32(round(s.rng.uniform(-2, 0), 3)), None)
    hi = make_const(s, np.float32(round(s.rng.uniform(0, 2), 3)), None)
    form = s.rng.choice(['both', 'lo', 'hi'])
    ins = [cur, lo, hi] if form == 'both' else [cur, lo] if form == 'lo' else [cur, '', hi]
    return s.node('Clip', ins)


def st_where(s, cur):
    other = other_operand(s, cur)
    c = make_const(s, np.float32(round(s.rng.uniform(-1, 1), 3) + 0.0001), None)
    cond = s.node(s.rng.choice(['Greater', 'Less']), [cur, c])
    return s.node('Where', [cond, cur, other] if s.rng.random() < 0.5 else [cond, other, cur])


def st_reduce(s, cur):
    shp = s.shape(cur)
    if not shp:
        return None
    op = s.rng.choice(['ReduceSum', 'ReduceMean', 'ReduceMax'])
    axes = sorted(s.rng.sample(range(len(shp)), s.rng.randint(1, len(shp))))
    axes = [a - len(shp) if s.rng.random() < 0.3 else a for a in axes]
    kd = s.rng.choice([0, 1])
    if op == 'ReduceSum':
        if s.rng.random() < 0.15:
            return s.node(op, [cur], keepdims=kd)
        return s.node(op, [cur, s.init(i64(axes))], keepdims=kd)
    if s.rng.random() < 0.15:
        return s.node(op, [cur], keepdims=kd)
    return s.node(op, [cur], axes=axes, keepdims=kd)


def st_reshape(s, cur):
    shp = s.shape(cur)
    op = s.rng.choice(['Reshape', 'Transpose', 'Flatten', 'Unsqueeze', 'Squeeze'])
    if op == 'Reshape':
        n = numel(shp)
        dims = []
        while n > 1 and len(dims) < 3:
            d = s.rng.choice([f for f in range(1, n + 1) if n % f == 0])
            dims.append(d)
            n //= d
        dims.append(n)
        s.rng.shuffle(dims)
        if s.rng.random() < 0.5:
            dims[s.rng.randrange(len(dims))] = -1
        return s.node('Reshape', [cur, s.init(i64(dims))])
    if op == 'Transpose' and len(shp) >= 2:
        perm = list(range(len(shp)))
        s.rng.shuffle(perm)
        return s.node('Transpose', [cur], perm=perm)
    if op == 'Flatten' and shp:
        return s.node('Flatten', [cur], axis=s.rng.randint(-len(shp), len(shp)))
    if op == 'Unsqueeze' and len(shp) < 4:
        return s.node('Unsqueeze', [cur, s.init(i64([s.rng.randint(-len(shp) - 1, len(shp))]))])
    ones = [i for i, d in enumerate(shp) if d == 1]
    if op == 'Squeeze' and ones:
        if s.rng.random() < 0.3:
            return s.node('Squeeze', [cur])
        return s.node('Squeeze', [cur, s.init(i64(s.rng.sample(ones, s.rng.randint(1, len(ones)))))])
    return None


def st_concat(s, cur):
    shp = s.shape(cur)
    if not shp:
        return None
    ax = s.rng.randrange(len(shp))
    oshp = list(shp)
    oshp[ax] = s.rng.randint(1, 3)
    if numel(shp) + numel(oshp) > MAX_NUMEL:
        return None
    other = s.node('Neg', [cur]) if s.rng.random() < 0.3 else \
        make_const(s, s.rng_np().uniform(-2, 2, size=oshp).astype(np.float32), None)
    ins = [cur, other] if s.rng.random() < 0.5 else [other, cur]
    return s.node('Concat', ins, axis=ax - len(shp) if s.rng.random() < 0.3 else ax)


def st_slice(s, cur):
    shp = s.shape(cur)
    if not shp:
        return None
    axes = s.rng.sample(range(len(shp)), s.rng.randint(1, len(shp)))
    starts, ends, steps = [], [], []
    for a in axes:
        d, st = shp[a], s.rng.choice([1, 1, 2, -1, -2])
        b = s.rng.randint(-d, d - 1)
        e = s.rng.choice([s.rng.randint(-d - 1, d + 1), (1 << 62) if st > 0 else -(1 << 62)])
        starts.append(b), ends.append(e), steps.append(st)
    y = s.node('Slice', [cur, s.init(i64(starts)), s.init(i64(ends)), s.init(i64(axes)), s.init(i64(steps))])
    if numel(s.shape(y)) == 0:  # an empty slice is valid but checks nothing: undo it
        s.nodes.pop()
        del s.env[y], s.info[y]
        return None
    return y


def st_matmul(s, cur):
    shp = s.shape(cur)
    if not shp:
        return None
    k, n = shp[-1], s.rng.randint(1, 6)
    if s.rng.random() < 0.5 or len(shp) < 2:
        if numel(shp) // k * n > MAX_NUMEL:
            return None
        w = s.rng_np().uniform(-1, 1, size=(k, n)).astype(np.float32)
        return s.node('MatMul', [cur, make_const(s, w, None)])
    # Gemm on a 2-D view, transA/transB, alpha, beta and a broadcast C.
    a = s.node('Flatten', [cur], axis=len(shp) - 1) if len(shp) != 2 else cur
    m, kk = s.shape(a)
    ta, tb = s.rng.choice([0, 1]), s.rng.choice([0, 1])
    if ta:
        m, kk = kk, m
    if m * n > MAX_NUMEL:
        return None
    w = s.rng_np().uniform(-1, 1, size=(n, kk) if tb else (kk, n)).astype(np.float32)
    ins = [a, s.init(w)]
    if s.rng.random() < 0.7:
        ins.append(s.init(s.rng_np().uniform(-1, 1, size=s.rng.choice([(n,), (1, n), (m, n), ()])).astype(np.float32)))
    return s.node('Gemm', ins, transA=ta, transB=tb, alpha=s.rng.choice([1.0, 0.5]), beta=s.rng.choice([1.0, 2.0]))


def as_nchw(s, cur):
    """cur viewed as [1, C, H, W] (Reshape), or None."""
    shp = s.shape(cur)
    if len(shp) == 4:
        return cur
    n = numel(shp)
    cs = [c for c in range(1, 9) if n % c == 0]
    c = s.rng.choice(cs)
    m = n // c
    hs = [h for h in range(2, m + 1) if m % h == 0 and m // h >= 2]
    if not hs:
        return None
    h = s.rng.choice(hs)
    return s.node('Reshape', [cur, s.init(i64([1, c, h, m // h]))])


def st_conv(s, cur):
    x = as_nchw(s, cur)
    if x is None:
        return None
    nb, c, h, w = s.shape(x)
    g = s.rng.choice([d for d in range(1, c + 1) if c % d == 0])
    m = g * s.rng.randint(1, 3)
    kh, kw = s.rng.randint(1, min(3, h)), s.rng.randint(1, min(3, w))
    pads = [s.rng.randint(0, kh - 1), s.rng.randint(0, kw - 1), s.rng.randint(0, kh - 1), s.rng.randint(0, kw - 1)]
    strides = [s.rng.randint(1, 2), s.rng.randint(1, 2)]
    dil = [1, 1] if s.rng.random() < 0.7 else [2 if h + pads[0] + pads[2] >= 2 * kh else 1, 1]
    wt = s.rng_np().uniform(-1, 1, size=(m, c // g, kh, kw)).astype(np.float32)
    ins = [x, s.init(wt)]
    if s.rng.random() < 0.6:
        ins.append(s.init(s.rng_np().uniform(-1, 1, size=(m,)).astype(np.float32)))
    if nb * m * h * w > MAX_NUMEL * 2:
        return None
    return s.node('Conv', ins, group=g, kernel_shape=[kh, kw], pads=pads, strides=strides, dilations=dil)


def st_pool(s, cur):
    x = as_nchw(s, cur)
    if x is None:
        return None
    _, _, h, w = s.shape(x)
    kh, kw = s.rng.randint(1, min(3, h)), s.rng.randint(1, min(3, w))
    pads = [s.rng.randint(0, kh - 1), s.rng.randint(0, kw - 1), s.rng.randint(0, kh - 1), s.rng.randint(0, kw - 1)]
    at = dict(kernel_shape=[kh, kw], pads=pads, strides=[s.rng.randint(1, 2), s.rng.randint(1, 2)])
    if s.rng.random() < 0.5:
        return s.node('MaxPool', [x], **at)
    return s.node('AveragePool', [x], count_include_pad=s.rng.choice([0, 1]), **at)


def st_softmax(s, cur):
    shp = s.shape(cur)
    if not shp:
        return None
    return s.node('Softmax', [cur], axis=s.rng.randint(-len(shp), len(shp) - 1))


def st_fp16(s, cur):
    """float32 -> float16 (maybe one float16 op) -> float32."""
    h = s.node('Cast', [cur], to=F16)
    if not s.info[cur]['exact']:
        s.info[h]['rtol'] = max(s.info[h]['rtol'], 2e-3)  # one float16 ulp of a rounded value
    if s.rng.random() < 0.4:
        op = s.rng.choice(['Add', 'Mul', 'Max', 'Relu'])
        if op == 'Relu':
            h = s.node('Relu', [h])
        else:
            c = s.node('Constant', [], value=numpy_helper.from_array(np.array(0.375, np.float16), s.fresh('c')))
            h = s.node(op, [h, c])
        s.info[h]['rtol'] = max(s.info[h]['rtol'], 2e-3)
    return s.node('Cast', [h], to=F32)


def st_int(s, cur):
    """An exact float value truncated to int32, a few int32 ops (an int32 output, compared
    exactly), and back to float32."""
    if not s.info[cur]['exact'] or s.absmax(cur) > 100:
        return None
    t = s.node('Cast', [cur], to=I32)
    for _ in range(s.rng.randint(1, 3)):
        op = s.rng.choice(['Add', 'Sub', 'Mul', 'Max', 'Min', 'Abs', 'Neg'])
        if op in ('Abs', 'Neg'):
            t = s.node(op, [t])
            continue
        shp = bcast_shape(s, s.shape(t))
        k = s.rng_np().integers(-3, 4, size=shp).astype(np.int32)
        c = s.init(k) if s.rng.random() < 0.5 else \
            s.node('Cast', [s.node('Constant', [], value=numpy_helper.from_array(k.astype(np.float32), s.fresh('c')))], to=I32)
        t = s.node(op, [t, c] if s.rng.random() < 0.7 else [c, t])
    s.outputs.append(t)
    return s.node('Cast', [t], to=F32)


STEPS = [(st_unary, 5), (st_binary, 6), (st_clip, 1), (st_where, 1), (st_reduce, 2), (st_reshape, 3),
         (st_concat, 1), (st_slice, 2), (st_matmul, 2), (st_conv, 1.5), (st_pool, 1), (st_softmax, 1),
         (st_fp16, 1), (st_int, 1)]


def tame(s, cur):
    """Keeps values bounded (no overflow, tolerances that still mean something)."""
    if s.absmax(cur) > 20:
        return s.node('Tanh', [cur]) if s.rng.random() < 0.5 else \
            s.node('Div', [cur, make_const(s, np.float32(s.absmax(cur) / 4), cur)])
    return cur


def random_shape(rng):
    r = rng.randint(0, 4)
    while True:
        shp = [rng.randint(1, 7) for _ in range(r)]
        if numel(shp) <= 512:
            return shp


def gen_sub(rng, prefix, opset):
    s = Sub(rng, prefix, opset)
    cur = s.add_input(random_shape(rng))
    fns, weights = zip(*STEPS)
    for _ in range(rng.randint(2, 8)):
        for _try in range(6):
            nxt = rng.choices(fns, weights)[0](s, cur)
            if nxt is not None:
                cur = tame(s, nxt)
                break
    if not s.nodes:
        cur = s.node('Relu', [cur])
    s.outputs.append(cur)
    return s


# ---- models ----------------------------------------------------------------------------------

def value_info(name, arr):
    return helper.make_tensor_value_info(name, ONNX_OF[arr.dtype], list(arr.shape))


def make_model(subs, opset):
    nodes = [n for s in subs for n in s.nodes]
    inits = [i for s in subs for i in s.inits]
    ins = [value_info(n, a) for s in subs for n, a in s.inputs]
    outs = [value_info(o, s.env[o]) for s in subs for o in s.outputs]
    g = helper.make_graph(nodes, 'difftest', ins, outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)], producer_name='difftest')
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def tolerance(s, out):
    """(rtol, atol) for an output: exact for integers, else rtol from the chain (looser for long
    chains) and atol relative to the largest magnitude met along the chain."""
    if s.env[out].dtype != np.float32:
        return 0.0, 0.0
    info = s.info[out]
    rtol = info['rtol'] * (1 + info['depth'] / 8)
    return rtol, rtol * max(1.0, info['mag'])


def compare(s, out, got):
    want = s.env[out]
    if got.shape != want.shape or got.dtype != want.dtype:
        return 'shape/dtype %s %s, expected %s %s' % (got.dtype, got.shape, want.dtype, want.shape)
    rtol, atol = tolerance(s, out)
    if rtol == 0:
        bad = got != want
    else:
        g64, w64 = got.astype(np.float64), want.astype(np.float64)
        bad = ~(np.abs(g64 - w64) <= atol + rtol * np.abs(w64))
    if not bad.any():
        return None
    i = tuple(int(v) for v in np.argwhere(bad)[0])
    return '%d of %d elements differ (rtol %.2g atol %.2g); first at %s: got %r, expected %r' % (
        int(bad.sum()), bad.size, rtol, atol, i, got[i].item(), want[i].item())


# ---- running atc and omrun -------------------------------------------------------------------

ERR_RE = re.compile(r'^(E\d{5}):', re.M)


def run_cmd(cmd, timeout, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode('utf-8', 'replace')
    except subprocess.TimeoutExpired as e:
        return 'timeout', (e.stdout or b'').decode('utf-8', 'replace')


def describe_rc(tool, rc):
    return '%s %s' % (tool, 'timed out' if rc == 'timeout' else 'killed by signal %d' % -rc if rc < 0 else 'exit %d' % rc)


def atc_cmd(args, onnx_path, out_base, cache):
    return [os.path.join(args.bin, 'atc'), '--model=' + onnx_path, '--framework=5', '--output=' + out_base,
            '--soc_version=native', '--precision_mode=must_keep_origin_dtype', '--op_compiler_cache_dir=' + cache]


def omrun_cmd(args, om, inputs, out_dir):
    return [os.path.join(args.bin, 'omrun'), '--model=' + om, '--input=' + ','.join(inputs), '--output=' + out_dir]


def compile_and_run(args, subs, opset, work, cache):
    """Builds one model of subs, compiles and runs it. Returns ('ok', {out name: array}) or
    (kind, detail) with kind 'refused', 'failure'."""
    os.makedirs(work, exist_ok=True)
    model = make_model(subs, opset)
    mpath = os.path.join(work, 'model.onnx')
    onnx.save(model, mpath)
    feeds = {n: a for s in subs for n, a in s.inputs}
    ref = evaluate(model, feeds)  # the reference, re-evaluated from the saved model
    for s in subs:
        for o in s.outputs:
            assert ref[o].dtype == s.env[o].dtype and np.array_equal(ref[o], s.env[o], equal_nan=True), o
    rc, log = run_cmd(atc_cmd(args, mpath, os.path.join(work, 'm'), cache), args.timeout, work)
    if rc != 0:
        codes = ERR_RE.findall(log)
        if rc == 1 and codes:
            return 'refused', (codes[0], log)
        return 'failure', (describe_rc('atc', rc), log)
    inputs = []
    for i, (n, a) in enumerate(feeds.items()):
        inputs.append(os.path.join(work, 'in%d.npy' % i))
        np.save(inputs[-1], a)
    rc, log = run_cmd(omrun_cmd(args, os.path.join(work, 'm.om'), inputs, os.path.join(work, 'out')), args.timeout, work)
    if rc != 0:
        return 'failure', (describe_rc('omrun', rc), log)
    names = [o.name for o in model.graph.output]
    return 'ok', {n: np.load(os.path.join(work, 'out', 'output_%d.npy' % i)) for i, n in enumerate(names)}


def check_subs(args, subs, opset, work, cache):
    """Returns [(sub, kind, detail)] with kind in ok, mismatch, refused, failure. A refused or
    failed model of several subgraphs is split so each subgraph gets its own verdict."""
    kind, res = compile_and_run(args, subs, opset, work, cache)
    if kind != 'ok' and len(subs) > 1:
        out = []
        for i, s in enumerate(subs):
            out += check_subs(args, [s], opset, os.path.join(work, 'single%d' % i), cache)
        return out
    if kind != 'ok':
        return [(subs[0], kind, res, work)]
    out = []
    for s in subs:
        errs = ['%s: %s' % (o, e) for o in s.outputs for e in [compare(s, o, res[o])] if e]
        out.append((s, 'mismatch' if errs else 'ok', '\n'.join(errs), work))
    return out


def keep_failure(args, s, opset, kind, detail, seed):
    d = os.path.join(args.keep_failures, '%s_seed%d_%s' % (kind, seed, s.p.rstrip('_')))
    os.makedirs(d, exist_ok=True)
    onnx.save(make_model([s], opset), os.path.join(d, 'model.onnx'))
    ins = []
    for i, (n, a) in enumerate(s.inputs):
        np.save(os.path.join(d, 'in%d.npy' % i), a)
        ins.append('in%d.npy' % i)
    for i, o in enumerate(s.outputs):
        np.save(os.path.join(d, 'expected_%d.npy' % i), s.env[o])
    binp = os.path.abspath(args.bin)
    with open(os.path.join(d, 'repro.sh'), 'w') as f:
        f.write('#!/bin/bash\n# %s (seed %d, subgraph %s, opset %d): compare out/output_<i>.npy with expected_<i>.npy\n'
                '# %s\ncd "$(dirname "$0")"\n' % (kind, seed, s.p, opset, (detail or '').replace('\n', '\n# ')[:4000]))
        f.write('%s/atc --model=model.onnx --framework=5 --output=m --soc_version=native '
                '--precision_mode=must_keep_origin_dtype --op_compiler_cache_dir=$PWD/cache && \\\n' % binp)
        f.write('%s/omrun --model=m.om --input=%s --output=out\n' % (binp, ','.join(ins)))


def model_seed(seed, k):
    return seed * 1000003 + k


def one_model(args, k, tmp, cache):
    seed = model_seed(args.seed, k)
    rng = random.Random(seed)
    opset = rng.randint(13, 17)
    n = min(args.per_model, args.count - k * args.per_model) if args.count else args.per_model
    subs = [gen_sub(rng, 'g%d_' % i, opset) for i in range(n)]
    results = check_subs(args, subs, opset, os.path.join(tmp, 'model%d' % k), cache)
    shutil.rmtree(os.path.join(tmp, 'model%d' % k), ignore_errors=True)
    return seed, opset, results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--bin', required=True, help='folder with atc and omrun')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=200, help='graphs (ignored with --hours)')
    ap.add_argument('--per-model', type=int, default=10, help='independent subgraphs per model file')
    ap.add_argument('--hours', type=float, default=0, help='run until this time is up')
    ap.add_argument('--keep-failures', default='', help='save failing subgraphs, inputs and repro.sh here')
    ap.add_argument('--jobs', type=int, default=2, help='models compiled at once')
    ap.add_argument('--timeout', type=int, default=120, help='seconds per atc or omrun run')
    ap.add_argument('--with-known-bugs', action='store_true',
                    help='also generate what the generator avoids because of known open compiler bugs')
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    global AVOID_KNOWN_BUGS
    AVOID_KNOWN_BUGS = not args.with_known_bugs
    if args.hours:
        args.count = 0
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix='difftest_')
    cache = os.path.join(tmp, 'kernel_cache')
    os.makedirs(cache)
    stats = dict(graphs=0, ok=0, mismatch=0, failure=0, refused={})
    try:
        run_all(args, tmp, cache, stats, t0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    refused = ', '.join('%s: %d' % kv for kv in sorted(stats['refused'].items())) or 'none'
    print('difftest: seed %d, %d graphs in %.1f s: %d ok, %d mismatches, %d failures, refused %d (%s)' % (
        args.seed, stats['graphs'], time.time() - t0, stats['ok'], stats['mismatch'], stats['failure'],
        sum(stats['refused'].values()), refused))
    return 1 if stats['mismatch'] or stats['failure'] else 0


def run_all(args, tmp, cache, stats, t0):
    def models():
        k = 0
        while (args.count and k * args.per_model < args.count) or \
                (not args.count and time.time() - t0 < args.hours * 3600):
            yield k
            k += 1

    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        pending = []
        for k in models():
            pending.append(ex.submit(one_model, args, k, tmp, cache))
            while len(pending) >= args.jobs * 2 or (pending and pending[0].done()):
                report(args, pending.pop(0).result(), stats)
        for f in pending:
            report(args, f.result(), stats)


def report(args, res, stats):
    seed, opset, results = res
    for s, kind, detail, _ in results:
        stats['graphs'] += 1
        if kind == 'ok':
            stats['ok'] += 1
            continue
        if kind == 'refused':
            code, log = detail
            stats['refused'][code] = stats['refused'].get(code, 0) + 1
            msg = log
        else:
            stats[kind] += 1
            msg = detail if kind == 'mismatch' else '%s\n%s' % detail
        ops = sorted({n.op_type for n in s.nodes})
        print('%s: model seed %d, subgraph %s, opset %d, ops %s' % (kind.upper(), seed, s.p, opset, ' '.join(ops)))
        if args.verbose or kind != 'refused':
            print('    ' + msg.strip()[-2000:].replace('\n', '\n    '))
        if args.keep_failures and kind != 'ok':
            keep_failure(args, s, opset, kind, msg, seed)
    sys.stdout.flush()


if __name__ == '__main__':
    sys.exit(main())
