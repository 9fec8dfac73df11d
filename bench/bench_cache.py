#!/usr/bin/env python3
"""Cold and warm atc compile times with the kernel cache (docs/cache.md).

For each model: a cold build into an empty cache folder, then warm builds (best of --repeat)
reusing it. Prints a table and checks warm >= 5x faster than cold and warm ResNet-18 < 1 s.
Usage: bench_cache.py [--bin build/bin] [--models DIR] [--repeat 3]
--bin defaults to the repository's build/bin, --models to ../shared/models/onnx beside the
repository (both found from this file's location, so it runs from any folder).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def build(atc, model, out, cache, extra=()):
    env = dict(os.environ, ASCEND_CACHE_PATH=cache)
    t0 = time.perf_counter()
    p = subprocess.run([atc, "--model=" + model, "--framework=5", "--output=" + out, "--soc_version=native"] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=os.path.dirname(out))
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("atc failed on %s:\n%s" % (model, p.stdout.decode(errors="replace")))
    return dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "build", "bin"), help="folder with atc")
    ap.add_argument("--models", default=os.path.join(HERE, "..", "..", "shared", "models", "onnx"))
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    atc = os.path.abspath(os.path.join(a.bin, "atc"))
    if not os.access(atc, os.X_OK):
        sys.exit("bench_cache.py: no atc at %s: build it first (scripts/quickstart.sh builds build/bin) "
                 "or pass --bin" % atc)
    tmp = tempfile.mkdtemp(prefix="atc_bench_cache_")
    ok = True
    try:
        print("%-14s %9s %9s %8s" % ("model", "cold s", "warm s", "speedup"))
        for name in ("resnet18", "mobilenet_v2", "bert_tiny"):
            model = os.path.join(a.models, name + ".onnx")
            if not os.path.exists(model):
                print("%-14s skipped (no %s)" % (name, model))
                continue
            cache = os.path.join(tmp, "cache_" + name)
            cold = build(atc, model, os.path.join(tmp, name + "_cold"), cache)
            warm = min(build(atc, model, os.path.join(tmp, name + "_warm"), cache) for _ in range(a.repeat))
            speed = cold / warm
            print("%-14s %9.3f %9.3f %7.1fx" % (name, cold, warm, speed), flush=True)
            if speed < 5:
                ok = False
                print("  warm is less than 5x faster than cold")
            if name == "resnet18" and warm >= 1.0:
                ok = False
                print("  warm ResNet-18 compile is not under 1 s")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
