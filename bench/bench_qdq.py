#!/usr/bin/python3
"""QDQ (int8) models against their fp32 originals and ONNX Runtime, on this machine.

    /usr/bin/python3 bench/bench_qdq.py [--models resnet18,mobilenet_v2] [--threads 2] [--rounds 5]

For each model, tests/e2e/make_qdq_models.py --fp32 writes the fp32 torchvision export and its
QDQ form (min/max calibration, uint8 activations, int8 per-channel weights). atc compiles both
(fp32: must_keep_origin_dtype); omrun and ONNX Runtime 1.30 (npm, bench/ort_runner.js; it runs
QDQ models with its int8 kernels) time all four in interleaved rounds at the same thread
count. Prints the medians and the ratios the int8 work aims at (issue #16): our QDQ build over
our fp32 build (target: 1.8x faster, ratio <= 0.56) and our QDQ build over ONNX Runtime's (target
<= 1.0). Not part of the test suite.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_models  # noqa: E402
import bench_vs_ort as bvo  # noqa: E402
from peak_probe import cpu_name  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    bvo.add_run_args(ap, "resnet18,mobilenet_v2")
    a = ap.parse_args()
    ort_pkg = bvo.ensure_ort(a.cache)
    names = a.models.split(",")
    print(f"host: {cpu_name()}, {a.threads} thread(s), --soc_version={a.soc}")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["/usr/bin/python3", os.path.join(bench_models.ROOT, "tests", "e2e", "make_qdq_models.py"),
                        "--fp32", tmp] + names, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print("| model | ours fp32 ms | ours QDQ ms | ORT fp32 ms | ORT QDQ ms | ours QDQ / ours fp32 | ours QDQ / ORT QDQ |")
        print("|---|---|---|---|---|---|---|")
        for name in names:
            npy = os.path.join(tmp, name + ".in.npy")
            runs = {}
            for kind, path in (("fp32", os.path.join(tmp, name + ".fp32.onnx")),
                               ("qdq", os.path.join(tmp, name + ".onnx"))):
                om, _ = bvo.compile_model(a, name + "_" + kind, path, tmp)
                runs[kind] = (om, bvo.ort_spec(a, ort_pkg, path, npy, tmp, "ort_spec_%s.json" % kind))
            t = {k: [] for k in ("ours_fp32", "ours_qdq", "ort_fp32", "ort_qdq")}
            for _ in range(a.rounds):
                for kind in ("fp32", "qdq"):
                    t["ours_" + kind].append(bvo.run_ours(a, runs[kind][0], npy, tmp))
                    t["ort_" + kind].append(bvo.run_ort(runs[kind][1]))
            m = {k: statistics.median(v) for k, v in t.items()}
            print(f"| {name} | {m['ours_fp32']:.2f} | {m['ours_qdq']:.2f} | {m['ort_fp32']:.2f} | {m['ort_qdq']:.2f} | "
                  f"{m['ours_qdq'] / m['ours_fp32']:.2f} | {m['ours_qdq'] / m['ort_qdq']:.2f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
