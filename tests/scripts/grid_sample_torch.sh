#!/usr/bin/env bash
# GridSample against PyTorch's torch.nn.functional.grid_sample: 2-D and 3-D inputs, nearest and
# (bi)linear, zeros / border / reflection padding, align_corners 0 and 1, grid points inside
# and outside [-1, 1], with the opset-16 mode names (bilinear) and the opset-22 ones (linear);
# then bicubic (2-D, zeros padding, points inside the border, where the two definitions
# agree). Each model is compiled with atc and run with omrun. Bad attributes are refused.
# Usage: grid_sample_torch.sh BIN_DIR SRC_DIR
set -u
BIN=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd)
. "$SRC/tests/scripts/lib/torch_e2e.sh"
torch_e2e_setup "torch, onnx"
cd "$TMP"
/usr/bin/python3 - <<'PY' > make.log 2>&1 || { echo "FAIL: making the models"; cat make.log; exit 1; }
import numpy as np, onnx, torch
from onnx import helper, TensorProto as TP
rng = np.random.default_rng(7)
cases = []
for dims, modes in (((5, 7), ("nearest", "bilinear", "bicubic")), ((4, 5, 6), ("nearest", "bilinear"))):
    for mode in modes:
        for pad in ("zeros", "border", "reflection"):
            for align in (0, 1):
                if mode == "bicubic" and pad != "zeros":
                    continue
                cases.append((dims, mode, pad, align))
for k, (dims, mode, pad, align) in enumerate(cases):
    r = len(dims)
    x = rng.standard_normal((2, 3) + dims).astype(np.float32)
    out = (4, 3) if r == 2 else (3, 2, 4)
    span = 0.9 if mode == "bicubic" else 1.3
    g = rng.uniform(-span, span, (2,) + out + (r,)).astype(np.float32)
    opset = 16 if (r == 2 and k % 2 == 0) else 22
    name = mode if opset == 16 else {"bilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    node = helper.make_node("GridSample", ["X", "G"], ["Y"], mode=name, padding_mode=pad, align_corners=align)
    graph = helper.make_graph([node], "gs", [helper.make_tensor_value_info("X", TP.FLOAT, x.shape),
                                             helper.make_tensor_value_info("G", TP.FLOAT, g.shape)],
                              [helper.make_tensor_value_info("Y", TP.FLOAT, None)])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.save(m, "gs%d.onnx" % k)
    np.save("gs%d.x.npy" % k, x)
    np.save("gs%d.g.npy" % k, g)
    tmode = "nearest" if mode == "nearest" else ("bicubic" if mode == "bicubic" else "bilinear")
    y = torch.nn.functional.grid_sample(torch.from_numpy(x), torch.from_numpy(g), mode=tmode, padding_mode=pad,
                                        align_corners=bool(align)).numpy()
    np.save("gs%d.ref.npy" % k, y)
    print("gs%d %s r=%d %s align=%d opset %d" % (k, name, r, pad, align, opset))
bad = helper.make_node("GridSample", ["X", "G"], ["Y"], mode="area")
graph = helper.make_graph([bad], "gs", [helper.make_tensor_value_info("X", TP.FLOAT, (1, 1, 4, 4)),
                                        helper.make_tensor_value_info("G", TP.FLOAT, (1, 2, 2, 2))],
                          [helper.make_tensor_value_info("Y", TP.FLOAT, None)])
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]); m.ir_version = 8
onnx.save(m, "bad_mode.onnx")
# Grid points that are not numbers or lie absurdly far away, under every padding mode.
for pad in ("zeros", "border", "reflection"):
    node = helper.make_node("GridSample", ["X", "G"], ["Y"], mode="linear", padding_mode=pad)
    graph = helper.make_graph([node], "gs", [helper.make_tensor_value_info("X", TP.FLOAT, (1, 2, 4, 4)),
                                             helper.make_tensor_value_info("G", TP.FLOAT, (1, 1, 6, 2))],
                              [helper.make_tensor_value_info("Y", TP.FLOAT, None)])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]); m.ir_version = 8
    onnx.save(m, "odd_%s.onnx" % pad)
np.save("odd.x.npy", rng.standard_normal((1, 2, 4, 4)).astype(np.float32))
np.save("odd.g.npy", np.array([[[[np.nan, 0], [np.inf, 0], [-np.inf, 0.5], [1e30, -1e30], [3e38, 0.2], [0.1, 0.1]]]],
                              np.float32))
PY
pass=0; fail=0
while read -r k desc; do
  if "$BIN/atc" --model="$k.onnx" --framework=5 --output="$k" --soc_version=native \
       --precision_mode=must_keep_origin_dtype > "$k.atc.log" 2>&1 &&
     "$BIN/omrun" --model="$k.om" --input="$k.x.npy,$k.g.npy" --output="$k.res" > "$k.run.log" 2>&1 &&
     line=$(/usr/bin/python3 -c "
import sys, numpy as np
a, b = np.load('$k.res/output_0.npy'), np.load('$k.ref.npy')
d = float(np.abs(a - b).max()) if a.shape == b.shape else float('inf')
print('max diff %.2e' % d); sys.exit(0 if d <= 1e-5 else 1)"); then
    echo "PASS $desc: $line"; pass=$((pass + 1))
  else
    echo "FAIL $desc: ${line:-}"; tail -3 "$k.atc.log" "$k.run.log" 2>/dev/null; fail=$((fail + 1))
  fi
done < <(grep "^gs" make.log)
"$BIN/atc" --model=bad_mode.onnx --framework=5 --output=bad --soc_version=native > bad.log 2>&1; rc=$?
if [ $rc -ne 0 ] && grep -q "E19999" bad.log && grep -q "mode 'area'" bad.log && [ ! -e bad.om ]; then
  echo "PASS mode 'area' refused (E19999)"; pass=$((pass + 1))
else
  echo "FAIL mode 'area' (rc $rc)"; cat bad.log; fail=$((fail + 1))
fi
for pad in zeros border reflection; do
  if "$BIN/atc" --model="odd_$pad.onnx" --framework=5 --output="odd_$pad" --soc_version=native > odd.log 2>&1 &&
     "$BIN/omrun" --model="odd_$pad.om" --input=odd.x.npy,odd.g.npy --output="odd_$pad.res" > odd.run.log 2>&1 &&
     /usr/bin/python3 -c "
import numpy as np, sys
y = np.load('odd_$pad.res/output_0.npy')[0, :, 0]
sys.exit(0 if np.isnan(y[:, 0]).all() and np.isfinite(y[:, 1:]).all() else 1)"; then
    echo "PASS $pad padding: a NaN grid point gives NaN, infinite and huge ones finite values"; pass=$((pass + 1))
  else
    echo "FAIL $pad padding with odd grid points"; cat odd.log odd.run.log; fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
