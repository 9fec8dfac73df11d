"""numpy references with TensorFlow semantics (NHWC unless said otherwise)."""
import math

import numpy as np


def same_pads(n, k, s, d=1):
    ke = (k - 1) * d + 1
    o = -(-n // s)
    total = max((o - 1) * s + ke - n, 0)
    return total // 2, total - total // 2


def conv2d(x, w, strides=(1, 1), padding="SAME", dil=(1, 1), groups=1):
    """x NHWC, w HWIO (I = C/groups)."""
    N, H, W, C = x.shape
    KH, KW, CI, CO = w.shape
    pads = [same_pads(H, KH, strides[0], dil[0]), same_pads(W, KW, strides[1], dil[1])] if padding == "SAME" else [(0, 0), (0, 0)]
    xp = np.pad(x, ((0, 0), pads[0], pads[1], (0, 0)))
    OH = (xp.shape[1] - ((KH - 1) * dil[0] + 1)) // strides[0] + 1
    OW = (xp.shape[2] - ((KW - 1) * dil[1] + 1)) // strides[1] + 1
    out = np.zeros((N, OH, OW, CO), np.float64)
    cog = CO // groups
    for i in range(KH):
        for j in range(KW):
            patch = xp[:, i * dil[0]:i * dil[0] + strides[0] * (OH - 1) + 1:strides[0],
                       j * dil[1]:j * dil[1] + strides[1] * (OW - 1) + 1:strides[1], :]
            for g in range(groups):
                out[..., g * cog:(g + 1) * cog] += patch[..., g * CI:(g + 1) * CI] @ w[i, j, :, g * cog:(g + 1) * cog]
    return out.astype(np.float32)


def depthwise(x, w, strides=(1, 1), padding="SAME"):
    KH, KW, C, M = w.shape
    # out channel c*M+m = conv of channel c with w[..., c, m]
    w2 = np.zeros((KH, KW, 1, C * M), np.float32)
    for c in range(C):
        for m in range(M):
            w2[:, :, 0, c * M + m] = w[:, :, c, m]
    return conv2d(x, w2, strides, padding, groups=C)


def pool(x, k, s, padding, kind):
    N, H, W, C = x.shape
    pads = [same_pads(H, k[0], s[0]), same_pads(W, k[1], s[1])] if padding == "SAME" else [(0, 0), (0, 0)]
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x.astype(np.float64), ((0, 0), pads[0], pads[1], (0, 0)), constant_values=fill)
    cnt = np.pad(np.ones((1, H, W, 1)), ((0, 0), pads[0], pads[1], (0, 0)))
    OH = (xp.shape[1] - k[0]) // s[0] + 1
    OW = (xp.shape[2] - k[1]) // s[1] + 1
    out = np.zeros((N, OH, OW, C))
    for i in range(OH):
        for j in range(OW):
            win = xp[:, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1], :]
            if kind == "max":
                out[:, i, j, :] = win.max(axis=(1, 2))
            else:
                c = cnt[:, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1], :].sum()
                out[:, i, j, :] = win.sum(axis=(1, 2)) / c
    return out.astype(np.float32)


def conv2d_transpose(dy, w, out_shape, strides, padding):
    """dy NHWC [N,h,w,CO'], w [KH,KW,C_out,C_in(dy)], result out_shape NHWC (gradient of conv2d)."""
    N, OH, OW, C = out_shape
    KH, KW = w.shape[:2]
    if padding == "SAME":
        ph = same_pads(OH, KH, strides[0])[0]
        pw = same_pads(OW, KW, strides[1])[0]
    else:
        ph = pw = 0
    out = np.zeros((N, OH + KH + strides[0] * dy.shape[1], OW + KW + strides[1] * dy.shape[2], C))
    for i in range(dy.shape[1]):
        for j in range(dy.shape[2]):
            contrib = np.einsum("nk,hwck->nhwc", dy[:, i, j, :], w)
            out[:, i * strides[0]:i * strides[0] + KH, j * strides[1]:j * strides[1] + KW, :] += contrib
    return out[:, ph:ph + OH, pw:pw + OW, :].astype(np.float32)


def resize(x, size, bilinear, align=False, half=False):
    N, H, W, C = x.shape
    oh, ow = size

    def scale(i, o):
        return (i - 1) / (o - 1) if align and o > 1 else i / o

    if bilinear:
        def taps(n, o):
            s = scale(n, o)
            res = []
            for k in range(o):
                f = (k + 0.5) * s - 0.5 if half else k * s
                lo = math.floor(f)
                res.append((max(lo, 0), min(math.ceil(f), n - 1), f - lo))
            return res
        th, tw = taps(H, oh), taps(W, ow)
        out = np.zeros((N, oh, ow, C))
        for i, (t0, t1, ly) in enumerate(th):
            for j, (l0, l1, lx) in enumerate(tw):
                top = x[:, t0, l0] + (x[:, t0, l1] - x[:, t0, l0]) * lx
                bot = x[:, t1, l0] + (x[:, t1, l1] - x[:, t1, l0]) * lx
                out[:, i, j] = top + (bot - top) * ly
        return out.astype(np.float32)

    def idx(n, o):
        s = scale(n, o)
        r = []
        for k in range(o):
            if align:
                v = math.floor(k * s + 0.5)
            elif half:
                v = math.floor((k + 0.5) * s)
            else:
                v = math.floor(k * s)
            r.append(min(max(v, 0), n - 1))
        return np.array(r)
    return x[:, idx(H, oh)][:, :, idx(W, ow)]


def strided_slice(x, begin, end, strides, bm=0, em=0, elm=0, nam=0, sam=0):
    idx = []
    for k in range(len(begin)):
        if elm >> k & 1:
            idx.append(Ellipsis)
        elif nam >> k & 1:
            idx.append(None)
        elif sam >> k & 1:
            idx.append(begin[k])
        else:
            idx.append(slice(None if bm >> k & 1 else begin[k], None if em >> k & 1 else end[k], strides[k]))
    return x[tuple(idx)]
