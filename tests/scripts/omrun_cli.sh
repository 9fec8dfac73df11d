#!/bin/bash
# omrun command-line checks: runs a tiny compiled model, then feeds it bad inputs.
# Usage: bash omrun_cli.sh BIN_DIR SRC_DIR
BIN=$1
PY=/usr/bin/python3
if [ ! -x "$BIN/atc" ] || [ ! -x "$BIN/omrun" ]; then
  echo "SKIP: $BIN/atc or $BIN/omrun not built"
  exit 0
fi
W=$(mktemp -d)
export ASCEND_CACHE_PATH="$W/atc_cache"  # the kernel cache stays out of $HOME
trap 'rm -rf "$W"' EXIT
pass=0
fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
ko() { echo "FAIL: $1"; fail=$((fail + 1)); }

# Model: y = Transpose(x) with x float32[2,3], plus an int64 pass-through z = Identity(i).
$PY - "$W" <<'PYEOF'
import sys, numpy as np, onnx
from onnx import helper, TensorProto
w = sys.argv[1]
x = helper.make_tensor_value_info('x', TensorProto.FLOAT, [2, 3])
i = helper.make_tensor_value_info('i', TensorProto.INT64, [4])
y = helper.make_tensor_value_info('y', TensorProto.FLOAT, [3, 2])
z = helper.make_tensor_value_info('z', TensorProto.INT64, [4])
g = helper.make_graph([helper.make_node('Transpose', ['x'], ['y'], perm=[1, 0]),
                       helper.make_node('Identity', ['i'], ['z'])], 'cli', [x, i], [y, z])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), w + '/m.onnx')
np.save(w + '/x.npy', np.arange(6, dtype=np.float32).reshape(2, 3))
np.save(w + '/i.npy', np.array([5, 6, 7, 8], dtype=np.int64))
np.save(w + '/x_bad_shape.npy', np.zeros((3, 2), dtype=np.float32))
np.save(w + '/x_bad_dtype.npy', np.zeros((2, 3), dtype=np.float64))
np.arange(6, dtype=np.float32).tofile(w + '/x.bin')
np.zeros(5, dtype=np.float32).tofile(w + '/x_short.bin')
PYEOF

if "$BIN/atc" --model="$W/m.onnx" --framework=5 --output="$W/m" --soc_version=native --precision_mode=must_keep_origin_dtype > "$W/atc.log" 2>&1; then
  ok "atc compiles the test model"
else
  ko "atc compiles the test model"; cat "$W/atc.log"
  echo "$pass passed, $fail failed"; exit 1
fi

# 1. Good run with .npy inputs; outputs checked with numpy.
if "$BIN/omrun" --model "$W/m.om" --input "$W/x.npy,$W/i.npy" --output "$W/out/nested" \
     --summary "$W/s.json" --loop 3 --warmup 1 --threads 2 > "$W/run.log" 2>&1 &&
   $PY - "$W" <<'PYEOF'
import sys, json, numpy as np
w = sys.argv[1]
y = np.load(w + '/out/nested/output_0.npy'); z = np.load(w + '/out/nested/output_1.npy')
assert y.dtype == np.float32 and y.shape == (3, 2), y
assert (y == np.arange(6, dtype=np.float32).reshape(2, 3).T).all()
assert z.dtype == np.int64 and list(z) == [5, 6, 7, 8]
s = json.load(open(w + '/s.json'))
assert s['loop'] == 3 and s['threads'] == 2
for k in ('min', 'median', 'mean', 'p99'): assert s['latency_ms'][k] >= 0
PYEOF
then ok "run with npy inputs, outputs and summary"; else ko "run with npy inputs"; cat "$W/run.log"; fi

# 2. Raw .bin input and random inputs.
if "$BIN/omrun" --model "$W/m.om" --input "$W/x.bin,$W/i.npy" --output "$W/out2" > /dev/null 2>&1 &&
   $PY -c "import numpy as np; assert (np.load('$W/out2/output_0.npy') == np.arange(6, dtype=np.float32).reshape(2,3).T).all()"; then
  ok "raw .bin input"; else ko "raw .bin input"; fi
if "$BIN/omrun" --model "$W/m.om" --loop 2 > /dev/null 2>&1; then ok "random inputs"; else ko "random inputs"; fi
# ATC_PROFILE's per-step table, with omrun's exception dump guard on (the default) and off.
for e in 1 0; do
  if ATC_PROFILE=1 "$BIN/omrun" --model "$W/m.om" --loop 3 --enable_exception_dump=$e 2>&1 | grep -q "\[ATC_PROFILE\] .*: 3 runs"; then
    ok "ATC_PROFILE table (--enable_exception_dump=$e)"
  else ko "ATC_PROFILE table (--enable_exception_dump=$e)"; fi
done

# 3. Bad inputs: exit code 1 and a message naming what was expected.
expect_error() {  # name, expected text, omrun args...
  local name=$1 text=$2; shift 2
  "$BIN/omrun" "$@" > "$W/err.log" 2>&1
  local rc=$?
  if [ $rc -eq 1 ] && grep -q -- "$text" "$W/err.log"; then ok "$name"
  else ko "$name (rc=$rc)"; cat "$W/err.log"; fi
}
expect_error "wrong input count" "2 input(s)" --model "$W/m.om" --input "$W/x.npy"
expect_error "wrong shape" "expected float32\[2,3\]" --model "$W/m.om" --input "$W/x_bad_shape.npy,$W/i.npy"
expect_error "wrong dtype" "float64" --model "$W/m.om" --input "$W/x_bad_dtype.npy,$W/i.npy"
expect_error "short .bin" "expected float32\[2,3\] (24 bytes)" --model "$W/m.om" --input "$W/x_short.bin,$W/i.npy"
expect_error "missing input file" "cannot open" --model "$W/m.om" --input "$W/nope.npy,$W/i.npy"
expect_error "missing model" "cannot" --model "$W/nope.om"
head -c 100 "$W/m.om" > "$W/trunc.om"
expect_error "truncated model" "truncated" --model "$W/trunc.om"
cp "$W/m.om" "$W/corrupt.om"
printf '\x55' | dd of="$W/corrupt.om" bs=1 seek=400 conv=notrunc 2>/dev/null
expect_error "corrupted model" "checksum" --model "$W/corrupt.om"
"$BIN/omrun" > /dev/null 2>&1; [ $? -ne 0 ] && ok "missing --model is an error" || ko "missing --model is an error"

# 4. 0-d and zero-size tensors through a model: s2 = Neg(s) (float32 scalar), e2 = Identity(e) (float32[0,3]).
$PY - "$W" <<'PYEOF'
import sys, numpy as np, onnx
from onnx import helper, TensorProto
w = sys.argv[1]
s = helper.make_tensor_value_info('s', TensorProto.FLOAT, [])
e = helper.make_tensor_value_info('e', TensorProto.FLOAT, [0, 3])
s2 = helper.make_tensor_value_info('s2', TensorProto.FLOAT, [])
e2 = helper.make_tensor_value_info('e2', TensorProto.FLOAT, [0, 3])
g = helper.make_graph([helper.make_node('Neg', ['s'], ['s2']), helper.make_node('Identity', ['e'], ['e2'])],
                      'edge', [s, e], [s2, e2])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), w + '/edge.onnx')
np.save(w + '/s.npy', np.array(2.5, dtype=np.float32))
np.save(w + '/e.npy', np.zeros((0, 3), dtype=np.float32))
PYEOF
if "$BIN/atc" --model="$W/edge.onnx" --framework=5 --output="$W/edge" --soc_version=native --precision_mode=must_keep_origin_dtype > "$W/atc2.log" 2>&1 &&
   "$BIN/omrun" --model "$W/edge.om" --input "$W/s.npy,$W/e.npy" --output "$W/out3" > "$W/run3.log" 2>&1 &&
   $PY -c "
import numpy as np
s = np.load('$W/out3/output_0.npy'); e = np.load('$W/out3/output_1.npy')
assert s.shape == () and s.dtype == np.float32 and s == -2.5, s
assert e.shape == (0, 3) and e.dtype == np.float32, e.shape"; then
  ok "0-d and zero-size tensors"
else
  ko "0-d and zero-size tensors"; cat "$W/atc2.log" "$W/run3.log"
fi

# Signed models: atc --sign_key, omrun --verify_key (docs/security.md).
openssl genpkey -algorithm ed25519 -out "$W/key.pem" 2>/dev/null
openssl pkey -in "$W/key.pem" -pubout -out "$W/key.pub.pem" 2>/dev/null
openssl genpkey -algorithm ed25519 -out "$W/other.pem" 2>/dev/null
openssl pkey -in "$W/other.pem" -pubout -out "$W/other.pub.pem" 2>/dev/null
run_signed() { "$BIN/omrun" --model "$1" --input "$W/x.npy,$W/i.npy" --verify_key "$2" > "$W/sig.log" 2>&1; }
if "$BIN/atc" --model="$W/m.onnx" --framework=5 --output="$W/ms" --soc_version=native --precision_mode=must_keep_origin_dtype \
     --sign_key="$W/key.pem" > "$W/atcs.log" 2>&1 && run_signed "$W/ms.om" "$W/key.pub.pem"; then
  ok "a signed model runs with its verify key"
else
  ko "a signed model runs with its verify key"; cat "$W/atcs.log" "$W/sig.log"
fi
if ! run_signed "$W/m.om" "$W/key.pub.pem" && grep -q "not signed" "$W/sig.log"; then
  ok "an unsigned model is refused with --verify_key"
else
  ko "an unsigned model is refused with --verify_key"; cat "$W/sig.log"
fi
if ! run_signed "$W/ms.om" "$W/other.pub.pem" && grep -q "another key" "$W/sig.log"; then
  ok "a model signed by another key is refused"
else
  ko "a model signed by another key is refused"; cat "$W/sig.log"
fi
if "$BIN/atc" --mode=1 --om="$W/ms.om" --json="$W/ms.json" > /dev/null 2>&1 &&
   [ "$($PY -c "import json; print(json.load(open('$W/ms.json'))['signed_by'])")" = \
     "$(openssl pkey -pubin -in "$W/key.pub.pem" -outform DER | tail -c 32 | sha256sum | cut -c1-64)" ]; then
  ok "atc --mode=1 names the signing key's fingerprint"
else
  ko "atc --mode=1 names the signing key's fingerprint"
fi
# Flip one byte of the model name and recompute the checksum, as an attacker could.
$PY - "$W/ms.om" "$W/ms_altered.om" <<'PYEOF'
import sys, struct
b = bytearray(open(sys.argv[1], 'rb').read())
b[41] ^= 1
def fnv(data, h=0xcbf29ce484222325):
    for c in data:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h
body = bytes(b[256:]); n = len(body)
lanes = [0xcbf29ce484222325, 0x84222325cbf29ce4, 0x9ce484222325cbf2, 0x2325cbf29ce48422]
i = 0
while i + 32 <= n:
    for k in range(4):
        w = struct.unpack_from('<Q', body, i + 8 * k)[0]
        lanes[k] = ((lanes[k] ^ w) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    i += 32
h = fnv(body[i:])
for k in range(4): h = fnv(struct.pack('<Q', lanes[k]), h)
h = fnv(struct.pack('<Q', n), h)
head = bytearray(b[:256]); head[16:24] = bytes(8)
struct.pack_into('<Q', b, 16, fnv(bytes(head), h))
open(sys.argv[2], 'wb').write(b)
PYEOF
if ! run_signed "$W/ms_altered.om" "$W/key.pub.pem" && grep -q "does not verify" "$W/sig.log"; then
  ok "a signed model changed after signing is refused"
else
  ko "a signed model changed after signing is refused"; cat "$W/sig.log"
fi
if ! "$BIN/atc" --model="$W/m.onnx" --framework=5 --output="$W/mk" --soc_version=native --sign_key="$W/key.pub.pem" > "$W/atck.log" 2>&1 &&
   grep -q "E10001" "$W/atck.log" && [ ! -e "$W/mk.om" ]; then
  ok "atc refuses a public key as --sign_key"
else
  ko "atc refuses a public key as --sign_key"; cat "$W/atck.log"
fi

# Whole-model cache hits of signed builds: served from the entry and signed with this build's key.
gsign() { "$BIN/atc" --model="$W/m.onnx" --framework=5 --output="$W/$1" --soc_version=native --precision_mode=must_keep_origin_dtype \
            --sign_key="$W/$2" --graph_compiler_cache_dir="$W/gcache" --log=info > "$W/atcg.log" 2>&1; }
mkdir -p "$W/gcache"
if gsign g1 key.pem && gsign g2 key.pem && grep -q "whole-model cache hit" "$W/atcg.log" && run_signed "$W/g2.om" "$W/key.pub.pem" &&
   gsign g3 other.pem && grep -q "whole-model cache hit" "$W/atcg.log" && run_signed "$W/g3.om" "$W/other.pub.pem" &&
   ! run_signed "$W/g3.om" "$W/key.pub.pem"; then
  ok "a whole-model cache hit of a signed build is signed with the build's own key"
else
  ko "a whole-model cache hit of a signed build is signed with the build's own key"; cat "$W/atcg.log" "$W/sig.log"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
