#!/usr/bin/env bash
# Builds the shared ONNX and TF models under several option sets into OUT_DIR, so that two
# builds of atc (before and after a refactoring) can be compared byte for byte:
#   tests/structure/om_identity.sh BIN_DIR OUT_DIR [SHARED_MODELS_DIR]
#   cmp -r / diff -r OUT_BEFORE OUT_AFTER
# The .om records its command line, so every build uses the same fixed work paths (one run at
# a time per work folder; $ATC_OM_IDENTITY_WORK picks another, for both runs compared).
set -euo pipefail
BIN=$(cd "$1" && pwd)
OUT=$2
SRC=$(cd "$(dirname "$0")/../.." && pwd)
MODELS=${3:-$SRC/../shared/models}
WORK=${ATC_OM_IDENTITY_WORK:-/tmp/atc_om_identity_work}
rm -rf "$WORK" && mkdir -p "$WORK/files" "$OUT"
cat > "$WORK/files/switch.cfg" <<'CFG'
{"Switch":{"GraphFusion":{"SoftmaxFusionPass":"off"},"UBFusion":{"TbeEltwiseFusionPass":"off"}}}
CFG
printf '{"black-list":{"to-add":["Softmax"]},"white-list":{"to-remove":["Conv"]}}\n' > "$WORK/files/mix.json"
printf 'OpType::Gemm\n' > "$WORK/files/keep.cfg"
printf '[ByOpType]\nSoftmax=high_precision\n' > "$WORK/files/op_precision.ini"
build() {  # tag model framework args...
  local tag=$1 model=$2 fw=$3; shift 3
  (cd "$WORK" && "$BIN/atc" --model="$model" --framework="$fw" --output="$WORK/model" --soc_version=x86-64-v3 \
      --op_compiler_cache_dir="$WORK/cache" "$@" > "$WORK/log.txt" 2>&1) || { cat "$WORK/log.txt"; echo "FAIL $tag"; exit 1; }
  cp "$WORK/model.om" "$OUT/$tag.om"
  echo "built $tag"
}
for m in resnet18 mobilenet_v2 squeezenet1_1 bert_tiny; do
  build "$m.default" "$MODELS/onnx/$m.onnx" 5
  build "$m.fp32" "$MODELS/onnx/$m.onnx" 5 --precision_mode=must_keep_origin_dtype
done
build resnet18.mix "$MODELS/onnx/resnet18.onnx" 5 --precision_mode=allow_mix_precision \
  --modify_mixlist="$WORK/files/mix.json" --keep_dtype="$WORK/files/keep.cfg" \
  --op_precision_mode="$WORK/files/op_precision.ini" --fusion_switch_file="$WORK/files/switch.cfg"
build bert_tiny.bf16 "$MODELS/onnx/bert_tiny.onnx" 5 --precision_mode=allow_fp32_to_bf16 --op_select_implmode=high_precision
/usr/bin/python3 - "$MODELS/tf/manifest.json" > "$WORK/tf_list.txt" <<'PY'
import json, sys
for name, m in json.load(open(sys.argv[1])).items():
    print(name, m["model"], m["atc_args"])
PY
while read -r name file args; do
  # shellcheck disable=SC2086
  build "tf.$name" "$MODELS/tf/$file" 3 ${args#--framework=3}
  # shellcheck disable=SC2086
  build "tf.$name.scope" "$MODELS/tf/$file" 3 ${args#--framework=3} --enable_scope_fusion_passes=ScopeGeluPass,ScopeLayerNormPass --precision_mode=must_keep_origin_dtype
done < "$WORK/tf_list.txt"
echo "om_identity: $(ls "$OUT" | wc -l) models in $OUT"
