#!/usr/bin/python3
"""QDQ (int8) models against their fp32 originals and ONNX Runtime, on this machine.

    /usr/bin/python3 bench/bench_qdq.py [--models resnet18,mobilenet_v2] [--threads 2] [--rounds 5]

For each model, tests/e2e/make_qdq_models.py --fp32 writes the fp32 torchvision export and its
QDQ form (min/max calibration, uint8 activations, int8 per-channel weights). atc compiles both
(fp32: must_keep_origin_dtype); omrun and ONNX Runtime 1.30 (npm, bench/ort_runner.js; it runs
QDQ models with its int8 kernels) time all four in interleaved rounds at the same thread
count. Prints the medians and the ratios the int8 work aims at (issue #16): our QDQ build over
our fp32 build (target: 1.8x faster, ratio <= 0.56) and our QDQ build over ONNX Runtime's (target
<= 1.0). The same rows as `bench/bench_vs_ort.py --models none --int8 ...` (models: resnet18,
mobilenet_v2, bert_base; resnet18_ort: ResNet-18 in ONNX Runtime's own QDQ form, which it runs
with its int8 kernels). Not part of the test suite.
"""
import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_vs_ort as bvo  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    bvo.add_run_args(ap, "resnet18,mobilenet_v2")
    a = ap.parse_args()
    ort_pkg = bvo.ensure_ort(a.cache)
    with tempfile.TemporaryDirectory() as tmp:
        bvo.print_int8_table(a, bvo.bench_int8(a, ort_pkg, a.models.split(","), tmp))


if __name__ == "__main__":
    sys.exit(main())
