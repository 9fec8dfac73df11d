#!/usr/bin/env bash
# Recurrent models exported from PyTorch (tests/e2e/make_rnn_models.py): a 2-layer
# bidirectional LSTM language model, a 2-layer GRU acoustic model and an RNN(relu) with an
# initial state, compiled under must_keep_origin_dtype (max error <= 1e-4 of the output's
# range) and the default force_fp16 (RNN/GRU/LSTM stay float32; the Linear heads go float16:
# <= 2e-2), run with omrun and compared with PyTorch's fp32 outputs; then
# tests/e2e/rnn_reference_check.py (reverse/bidirectional with sequence_lens, clip,
# input_forget, peepholes, linear_before_reset, layout 1, activations with alpha/beta).
# Usage: rnn_models.sh BIN_DIR SRC_DIR
set -u
BIN=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd)
. "$SRC/tests/scripts/lib/torch_e2e.sh"
torch_e2e_setup "torch"
/usr/bin/python3 "$SRC/tests/e2e/make_rnn_models.py" "$TMP" > "$TMP/make.log" 2>&1 || {
  echo "FAIL: make_rnn_models.py"; tail -20 "$TMP/make.log"; exit 1; }
cat > "$TMP/cmp.py" <<'PY'
import sys
import numpy as np
res, model, nout, tol = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
worst = 0.0
for i in range(nout):
    got, ref = np.load("%s/output_%d.npy" % (res, i)), np.load("%s.out%d.npy" % (model, i))
    if got.shape != ref.shape:
        sys.exit("output %d: shape %s, reference %s" % (i, got.shape, ref.shape))
    worst = max(worst, float(np.abs(got - ref).max()) / max(float(np.abs(ref).max()), 1e-6))
print("max error %.2e of the output range" % worst)
sys.exit(0 if worst <= tol else 1)
PY
pass=0; fail=0
cd "$TMP"
for spec in lstm_lm:1:lstm_lm.in0.npy gru_speech:1:gru_speech.in0.npy rnn_relu:2:rnn_relu.in0.npy,rnn_relu.in1.npy; do
  IFS=: read -r m nout ins <<< "$spec"
  for p in must_keep_origin_dtype:1e-4 force_fp16:2e-2; do
    prec=${p%%:*}; tol=${p##*:}
    if "$BIN/atc" --model="$m.onnx" --framework=5 --output="${m}_$prec" --soc_version=native \
         --precision_mode=$prec > "$m.$prec.atc.log" 2>&1 &&
       "$BIN/omrun" --model="${m}_$prec.om" --input="$ins" --output="$m.$prec.res" > "$m.$prec.run.log" 2>&1 &&
       line=$(/usr/bin/python3 cmp.py "$m.$prec.res" "$m" "$nout" "$tol"); then
      echo "PASS $m $prec: $line"; pass=$((pass + 1))
    else
      echo "FAIL $m $prec: ${line:-}"; tail -3 "$m.$prec.atc.log" "$m.$prec.run.log" 2>/dev/null; fail=$((fail + 1))
    fi
    line=""
  done
done
# The attributes the exports and node tests leave out, against a numpy reference.
mkdir -p "$TMP/ref"
if /usr/bin/python3 "$SRC/tests/e2e/rnn_reference_check.py" "$BIN" "$TMP/ref" > "$TMP/ref.log" 2>&1; then
  echo "PASS numpy reference: $(grep -c '^PASS' "$TMP/ref.log") attribute cases"; pass=$((pass + 1))
else
  echo "FAIL numpy reference"; grep -v '^PASS' "$TMP/ref.log" | tail -5; fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
