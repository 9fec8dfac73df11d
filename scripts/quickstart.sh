#!/usr/bin/env bash
# Sets up, builds, compiles the bundled sample model (SqueezeNet 1.1) with atc, runs it with
# omrun on the reference input and compares with the reference output.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh build
mkdir -p out
build/bin/atc --model=samples/models/squeezenet1_1.onnx --framework=5 --output=out/squeezenet1_1 \
  --soc_version=native --precision_mode=must_keep_origin_dtype
build/bin/omrun --model=out/squeezenet1_1.om --input=samples/models/squeezenet1_1.in.npy \
  --output=out/squeezenet1_1_result --loop=20 --warmup=2 --summary=out/squeezenet1_1_perf.json
/usr/bin/python3 scripts/compare_npy.py out/squeezenet1_1_result/output_0.npy \
  samples/models/squeezenet1_1.out.npy
echo "perf summary: $(cat out/squeezenet1_1_perf.json)"
