#!/usr/bin/env bash
# DeformConv (ops/cube/deform_conv.cpp): tests/e2e/deform_conv_check.py builds models with
# onnx.helper and compares omrun's outputs with torchvision.ops.deform_conv2d (groups, offset
# groups, masks, strides, dilations, pads), and checks that a wrong offset shape is refused.
# Usage: deform_conv.sh BIN_DIR SRC_DIR
set -u
BIN=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd)
. "$SRC/tests/scripts/lib/torch_e2e.sh"
torch_e2e_setup "onnx, numpy, torch, torchvision"
/usr/bin/python3 "$SRC/tests/e2e/deform_conv_check.py" "$BIN" "$TMP"
