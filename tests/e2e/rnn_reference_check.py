#!/usr/bin/python3
"""RNN / GRU / LSTM attributes the ONNX node tests and PyTorch exports leave out, against a numpy
reference written from the ONNX specification: reverse and bidirectional runs with
sequence_lens, clip, LSTM input_forget and peepholes, GRU linear_before_reset 0 and 1, layout 1,
activations with alpha/beta (consumed in order by the functions that take them).

    rnn_reference_check.py BIN_DIR WORK_DIR      (exit 1 on a mismatch)
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper as nh, TensorProto as TP

ACTS = {
    "Sigmoid": (lambda x, a, b: 1 / (1 + np.exp(-x)), 0, 0),
    "Tanh": (lambda x, a, b: np.tanh(x), 0, 0),
    "Relu": (lambda x, a, b: np.maximum(x, 0), 0, 0),
    "LeakyRelu": (lambda x, a, b: np.where(x >= 0, x, a * x), 1, 0),
    "HardSigmoid": (lambda x, a, b: np.clip(a * x + b, 0, 1), 1, 1),
    "ScaledTanh": (lambda x, a, b: a * np.tanh(b * x), 1, 1),
    "Affine": (lambda x, a, b: a * x + b, 1, 1),
    "Softsign": (lambda x, a, b: x / (1 + np.abs(x)), 0, 0),
}
DEFAULT_AB = {"LeakyRelu": (0.01, 0), "HardSigmoid": (0.2, 0.5), "ScaledTanh": (1, 1), "Affine": (1, 0)}


def act_fns(names, alphas, betas, clip):
    fns, ai, bi = [], 0, 0
    for n in names:
        f, ua, ub = ACTS[n]
        a, b = DEFAULT_AB.get(n, (0, 0))
        if ua and ai < len(alphas):
            a, ai = alphas[ai], ai + 1
        if ub and bi < len(betas):
            b, bi = betas[bi], bi + 1
        fns.append(lambda x, f=f, a=a, b=b: f(np.clip(x, -clip, clip) if clip else x, a, b))
    return fns


def reference(kind, X, W, R, B, lens, h0, c0, P, attrs):
    """X [S, N, I] (layout 0). Returns Y [S, D, N, H], Y_h, Y_c [D, N, H] in float64."""
    S, N, _ = X.shape
    D, GH, H = R.shape
    slots = {"RNN": 1, "GRU": 2, "LSTM": 3}[kind]
    names = attrs.get("activations") or {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"],
                                         "LSTM": ["Sigmoid", "Tanh", "Tanh"]}[kind] * D
    fns = act_fns(names, attrs.get("activation_alpha", []), attrs.get("activation_beta", []), attrs.get("clip"))
    Y = np.zeros((S, D, N, H))
    Yh, Yc = np.zeros((D, N, H)), np.zeros((D, N, H))
    rev = attrs.get("direction") == "reverse"
    for d in range(D):
        f = fns[d * slots:(d + 1) * slots]
        Wb, Rb = (B[d, :GH], B[d, GH:]) if B is not None else (np.zeros(GH), np.zeros(GH))
        for n in range(N):
            h = h0[d, n].astype(np.float64) if h0 is not None else np.zeros(H)
            c = c0[d, n].astype(np.float64) if c0 is not None else np.zeros(H)
            L = int(lens[n]) if lens is not None else S
            order = range(L - 1, -1, -1) if (rev or d == 1) else range(L)
            for t in order:
                x = X[t, n].astype(np.float64)
                if kind == "RNN":
                    h = f[0](W[d] @ x + R[d] @ h + Wb + Rb)
                elif kind == "GRU":
                    gx = W[d] @ x + Wb
                    z = f[0](gx[:H] + R[d, :H] @ h + Rb[:H])
                    r = f[0](gx[H:2 * H] + R[d, H:2 * H] @ h + Rb[H:2 * H])
                    if attrs.get("linear_before_reset"):
                        hh = f[1](gx[2 * H:] + r * (R[d, 2 * H:] @ h + Rb[2 * H:]))
                    else:
                        hh = f[1](gx[2 * H:] + R[d, 2 * H:] @ (r * h) + Rb[2 * H:])
                    h = (1 - z) * hh + z * h
                else:
                    g = W[d] @ x + R[d] @ h + Wb + Rb
                    p = P[d] if P is not None else np.zeros(3 * H)
                    i = f[0](g[:H] + p[:H] * c)
                    fg = 1 - i if attrs.get("input_forget") else f[0](g[2 * H:3 * H] + p[2 * H:] * c)
                    c = fg * c + i * f[1](g[3 * H:])
                    o = f[0](g[H:2 * H] + p[H:2 * H] * c)
                    h = o * f[2](c)
                Y[t, d, n] = h
            Yh[d, n], Yc[d, n] = h, c
    return Y, Yh, Yc


CASES = [
    ("LSTM", {"direction": "bidirectional", "clip": 2.5, "input_forget": 1}, True, True),
    ("LSTM", {"direction": "reverse", "activations": ["HardSigmoid", "LeakyRelu", "ScaledTanh"],
              "activation_alpha": [0.3, 0.05, 1.5], "activation_beta": [0.4, 0.7]}, True, True),
    ("GRU", {"direction": "reverse", "linear_before_reset": 0}, True, False),
    ("GRU", {"direction": "bidirectional", "linear_before_reset": 1, "layout": 1}, True, False),
    ("RNN", {"direction": "bidirectional", "activations": ["Affine", "Softsign"],
             "activation_alpha": [0.7], "activation_beta": [0.1]}, True, False),
]


def main():
    bindir, work = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(7)
    bad = 0
    for k, (kind, attrs, with_lens, peep) in enumerate(CASES):
        S, N, I, H = 6, 3, 5, 4
        D = 2 if attrs.get("direction") == "bidirectional" else 1
        G = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
        X = rng.uniform(-1, 1, (S, N, I)).astype(np.float32)
        W = rng.uniform(-0.6, 0.6, (D, G * H, I)).astype(np.float32)
        R = rng.uniform(-0.6, 0.6, (D, G * H, H)).astype(np.float32)
        Bv = rng.uniform(-0.3, 0.3, (D, 2 * G * H)).astype(np.float32)
        lens = np.array([6, 3, 1], np.int32) if with_lens else None
        h0 = rng.uniform(-0.5, 0.5, (D, N, H)).astype(np.float32)
        c0 = rng.uniform(-0.5, 0.5, (D, N, H)).astype(np.float32) if kind == "LSTM" else None
        P = rng.uniform(-0.4, 0.4, (D, 3 * H)).astype(np.float32) if peep else None
        Y, Yh, Yc = reference(kind, X, W, R, Bv, lens, h0, c0, P, attrs)
        layout = attrs.get("layout", 0)
        xin = X.transpose(1, 0, 2) if layout else X
        st = (lambda a: a.transpose(1, 0, 2)) if layout else (lambda a: a)
        inits = [nh.from_array(W, "W"), nh.from_array(R, "R"), nh.from_array(Bv, "B"),
                 nh.from_array(lens if lens is not None else np.full(N, S, np.int32), "L"),
                 nh.from_array(st(h0), "h0")]
        ins = ["x", "W", "R", "B", "L", "h0"]
        outs = ["Y", "Yh"]
        if kind == "LSTM":
            inits += [nh.from_array(st(c0), "c0")] + ([nh.from_array(P, "P")] if peep else [])
            ins += ["c0"] + (["P"] if peep else [])
            outs.append("Yc")
        node = helper.make_node(kind, ins, outs, hidden_size=H, **attrs)
        g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TP.FLOAT, list(xin.shape))],
                              [helper.make_tensor_value_info(o, TP.FLOAT, None) for o in outs], inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
        base = os.path.join(work, "case%d" % k)
        onnx.save(m, base + ".onnx")
        np.save(base + ".x.npy", xin)
        r = subprocess.run([os.path.join(bindir, "atc"), "--model=" + base + ".onnx", "--framework=5",
                            "--output=" + base, "--soc_version=native", "--precision_mode=must_keep_origin_dtype"],
                           capture_output=True, text=True)
        r2 = r.returncode == 0 and subprocess.run([os.path.join(bindir, "omrun"), "--model=" + base + ".om",
                                                   "--input=" + base + ".x.npy", "--output=" + base + ".res"],
                                                  capture_output=True).returncode == 0
        if not r2:
            print("FAIL case %d %s %s: atc/omrun failed %s" % (k, kind, attrs, r.stdout[-300:]))
            bad += 1
            continue
        wants = [Y.transpose(2, 0, 1, 3) if layout else Y, st(Yh)] + ([st(Yc)] if kind == "LSTM" else [])
        err = max(float(np.abs(np.load("%s.res/output_%d.npy" % (base, i)) - w).max()) for i, w in enumerate(wants))
        ok = err <= 1e-5
        bad += 0 if ok else 1
        print("%s case %d %s %s: max error %.2e" % ("PASS" if ok else "FAIL", k, kind, attrs, err))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
