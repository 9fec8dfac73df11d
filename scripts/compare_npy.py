#!/usr/bin/python3
"""Compares an output .npy with a reference: max abs error relative to the largest reference
magnitude. Exit 1 when the relative error exceeds --tol (default 1e-3)."""
import argparse
import sys

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("got")
ap.add_argument("ref")
ap.add_argument("--tol", type=float, default=1e-3)
a = ap.parse_args()
got = np.load(a.got)
ref = np.load(a.ref)
if got.shape != ref.shape:
    print(f"FAIL shape {got.shape} != reference {ref.shape}")
    sys.exit(1)
err = float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64)))) if ref.size else 0.0
scale = float(np.max(np.abs(ref))) if ref.size else 1.0
rel = err / max(scale, 1e-30)
ok = rel <= a.tol
extra = ""
if ref.ndim == 2 and ref.shape[1] > 1:
    extra = f" top1 {'same' if np.array_equal(got.argmax(1), ref.argmax(1)) else 'DIFFERENT'}"
print(f"{'OK' if ok else 'FAIL'} max_abs_err={err:.3e} ref_max={scale:.3e} rel={rel:.3e} (tol {a.tol}){extra}")
sys.exit(0 if ok else 1)
