"""DeformConv (opset 19) through atc and omrun against torchvision.ops.deform_conv2d.

Usage: deform_conv_check.py BIN_DIR WORK_DIR
Random offsets (several pixels, many taps outside the map) and masks, groups and offset groups,
strides, dilations, pads, a row wider than the kernel's 64-pixel blocks; the default precision
mode (DeformConv keeps float32) and must_keep_origin_dtype. A wrong offset shape is refused with
an error block and no .om. Prints one PASS/FAIL line per case; exits 1 on any failure.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
import torch
import torchvision
from onnx import TensorProto, helper, numpy_helper

BIN, WORK = sys.argv[1], sys.argv[2]
failures = 0


def build(name, x, w, off, b, mask, attrs, offset_shape=None):
    inits = [numpy_helper.from_array(w, "W")] + ([numpy_helper.from_array(b, "B")] if b is not None else [])
    ins = ["X", "W", "offset", "B" if b is not None else "", "mask" if mask is not None else ""]
    while ins[-1] == "":
        ins.pop()
    vi = [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x.shape)),
          helper.make_tensor_value_info("offset", TensorProto.FLOAT, list(offset_shape or off.shape))]
    if mask is not None:
        vi.append(helper.make_tensor_value_info("mask", TensorProto.FLOAT, list(mask.shape)))
    g = helper.make_graph([helper.make_node("DeformConv", ins, ["Y"], **attrs)], name, vi,
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], initializer=inits)
    path = os.path.join(WORK, name + ".onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)]), path)
    return path


def atc(name, path, extra=()):
    r = subprocess.run([BIN + "/atc", "--model=" + path, "--framework=5", "--output=" + os.path.join(WORK, name),
                        "--soc_version=native", *extra], capture_output=True, text=True)
    return r, os.path.join(WORK, name + ".om")


def case(name, N, C, H, W, M, G, OG, k, stride, pad, dil, bias, use_mask, spread):
    global failures
    rng = np.random.default_rng(len(name))
    oh = (H + 2 * pad - dil * (k - 1) - 1) // stride + 1
    ow = (W + 2 * pad - dil * (k - 1) - 1) // stride + 1
    x = rng.standard_normal((N, C, H, W)).astype(np.float32)
    w = rng.standard_normal((M, C // G, k, k)).astype(np.float32)
    off = (rng.standard_normal((N, 2 * OG * k * k, oh, ow)) * spread).astype(np.float32)
    b = rng.standard_normal(M).astype(np.float32) if bias else None
    mask = rng.random((N, OG * k * k, oh, ow)).astype(np.float32) if use_mask else None
    want = torchvision.ops.deform_conv2d(
        torch.from_numpy(x), torch.from_numpy(off), torch.from_numpy(w), None if b is None else torch.from_numpy(b),
        stride=stride, padding=pad, dilation=dil, mask=None if mask is None else torch.from_numpy(mask)).numpy()
    attrs = dict(kernel_shape=[k, k], strides=[stride] * 2, pads=[pad] * 4, dilations=[dil] * 2, group=G,
                 offset_group=OG)
    path = build(name, x, w, off, b, mask, attrs)
    feeds = [x, off] + ([mask] if mask is not None else [])
    files = []
    for i, a in enumerate(feeds):
        files.append(os.path.join(WORK, "%s_in%d.npy" % (name, i)))
        np.save(files[-1], a)
    for extra in ([], ["--precision_mode=must_keep_origin_dtype"]):
        r, om = atc(name, path, extra)
        if r.returncode:
            failures += 1
            print("FAIL %s %s: atc\n%s" % (name, extra, r.stdout + r.stderr))
            continue
        out = os.path.join(WORK, name + "_out")
        r = subprocess.run([BIN + "/omrun", "--model=" + om, "--input=" + ",".join(files), "--output=" + out],
                           capture_output=True, text=True)
        got = np.load(os.path.join(out, "output_0.npy")) if r.returncode == 0 else None
        ok = got is not None and got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-4)
        print(("PASS " if ok else "FAIL ") + "%s %s" % (name, " ".join(extra)))
        if not ok:
            failures += 1
            print(r.stderr if got is None else "  max abs diff %g" % np.abs(got - want).max())


case("dcn_plain", 1, 3, 7, 9, 4, 1, 1, 3, 1, 1, 1, False, False, 1.5)
case("dcn_v2_groups", 2, 8, 11, 10, 6, 2, 2, 3, 2, 1, 1, True, True, 3.0)
case("dcn_dilated_wide", 1, 4, 5, 70, 3, 1, 4, 3, 1, 2, 2, True, True, 2.0)
case("dcn_1x1_og", 1, 6, 4, 4, 6, 3, 3, 1, 1, 0, 1, False, True, 0.7)

x = np.zeros((1, 2, 5, 5), np.float32)
w = np.zeros((2, 2, 3, 3), np.float32)
path = build("dcn_bad", x, w, np.zeros((1, 18, 3, 3), np.float32), None, None, dict(kernel_shape=[3, 3]),
             offset_shape=[1, 17, 3, 3])
r, om = atc("dcn_bad", path)
text = r.stdout + r.stderr
ok = r.returncode != 0 and "offset must be float32[1,18,3,3]" in text and not os.path.exists(om)
print(("PASS " if ok else "FAIL ") + "a wrong offset shape is refused, no .om")
if not ok:
    failures += 1
    print(text)
sys.exit(1 if failures else 0)
