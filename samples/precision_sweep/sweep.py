#!/usr/bin/python3
"""Precision sweep: builds one model under every precision setting, runs each .om with omrun
on the reference input and compares with the fp32 reference output.

Writes <out>/<name>_sweep.csv, <out>/<name>_sweep.md and <out>/<name>_sweep.png (error
against median latency). A setting atc refuses (an option part of the compiler does not
implement yet) is recorded as "refused" with atc's error code.

  sweep.py --model m.onnx --input m.in.npy --ref m.out.npy [--bin build/bin] [--out sweep_results] \
           [--settings "precision_mode=force_fp16,op_select_implmode=high_precision"] [--loop 20]
--bin defaults to the repository's build/bin (found from this file's location).
A setting is one or more atc options joined by '+' (without the leading --), or
"ini:<mode>" for an --op_precision_mode file giving <mode> to every op type that has it.

Layer by layer (unless --no_layers): every setting's .om is also run once with omrun --dump
and compared with a must_keep_origin_dtype build's dump by atc-compare (docs/debugging.md):
the columns first_drift (the first layer whose cosine is below --cosine_threshold, with its
cosine) and worst_layer (the layer of lowest cosine) say where a setting loses accuracy.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import shutil
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BIN = os.path.normpath(os.path.join(HERE, "..", "..", "build", "bin"))

PRECISION_MODES = ["force_fp32", "must_keep_origin_dtype", "force_fp16", "allow_fp32_to_fp16",
                   "cube_fp16in_fp32out", "allow_mix_precision", "allow_mix_precision_bf16",
                   "allow_fp32_to_bf16"]
IMPL_MODES = ["high_performance", "high_precision", "high_performance_for_all", "high_precision_for_all"]
# Op types with a given mode (passes/implmode/implmode_select.cpp).
INI_OPS = {
    "super_performance": ["Exp", "Log", "Tanh", "Sigmoid", "Erf", "Gelu"],
    "keep_fp16": ["Exp", "Log", "Tanh", "Sigmoid", "Erf", "Gelu"],
    "high_precision": ["Exp", "Log", "Tanh", "Sigmoid", "Erf", "Gelu", "Softmax", "LogSoftmax",
                       "LayerNormalization", "ReduceSum", "ReduceMean", "ReduceL2", "ReduceLogSumExp"],
}


def default_settings():
    s = ["precision_mode=" + m for m in PRECISION_MODES]
    s += ["precision_mode=must_keep_origin_dtype+op_select_implmode=" + m for m in IMPL_MODES]
    s += ["precision_mode=must_keep_origin_dtype+ini:super_performance",
          "precision_mode=must_keep_origin_dtype+ini:keep_fp16"]
    return s


def slug(setting):
    return re.sub(r"[^A-Za-z0-9]+", "_", setting).strip("_")


def build(args, setting, work):
    """Returns (om path or None, error code or '', compile seconds)."""
    out = os.path.join(work, slug(setting))
    cmd = [os.path.join(args.bin, "atc"), "--model=" + args.model, "--framework=5", "--output=" + out,
           "--soc_version=" + args.soc_version]
    for part in setting.split("+"):
        if part.startswith("ini:"):
            mode = part[4:]
            ini = out + ".ini"
            with open(ini, "w") as f:
                f.write("[ByOpType]\n" + "".join("%s=%s\n" % (t, mode) for t in INI_OPS[mode]))
            cmd.append("--op_precision_mode=" + ini)
        else:
            cmd.append("--" + part)
    t0 = time.time()
    p = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    dt = time.time() - t0
    if p.returncode != 0:
        m = re.search(r"\b([EW]\d{5})\b", p.stdout)
        return None, (m.group(1) if m else "rc%d" % p.returncode), dt, p.stdout.strip().splitlines()[-1:]
    return out + ".om", "", dt, []


def run(args, om, work):
    outdir = om[:-3] + "_out"
    summary = om[:-3] + "_latency.json"
    cmd = [os.path.join(args.bin, "omrun"), "--model=" + om, "--input=" + args.input, "--output=" + outdir,
           "--warmup=2", "--loop=%d" % args.loop, "--summary=" + summary]
    if args.threads:
        cmd.append("--threads=%d" % args.threads)
    p = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError("omrun failed (rc %d) on %s:\n%s" % (p.returncode, om, p.stdout.strip()))
    with open(summary) as f:
        s = json.load(f)
    med = s["latency_ms"]["median"]
    return np.load(os.path.join(outdir, "output_0.npy")), med


def dump(args, om, work):
    """Runs the .om once with --dump; returns the dump folder."""
    d = om[:-3] + "_dump"
    cmd = [os.path.join(args.bin, "omrun"), "--model=" + om, "--input=" + args.input, "--dump=" + d, "--loop=1"]
    p = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError("omrun --dump failed (rc %d) on %s:\n%s" % (p.returncode, om, p.stdout.strip()))
    return d


def compare_layers(args, dump_a, dump_b, work, tag):
    """atc-compare A against the reference B: (first layer below the threshold, worst layer)."""
    out = os.path.join(work, tag + "_compare")
    cmd = [os.path.join(args.bin, "atc-compare"), dump_a, dump_b, "--output=" + out,
           "--cosine_threshold=%g" % args.cosine_threshold]
    p = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        return "compare failed", ""
    first, worst, worst_cos = "", "", 2.0
    with open(os.path.join(out, "compare.csv")) as f:
        for r in csv.DictReader(f):
            if r["status"] != "ok":
                continue
            cos = float(r["cosine"])
            if r["first_below_threshold"]:
                first = "%s (%.7f)" % (r["node"], cos)
            if not (cos >= worst_cos):  # NaN counts as worst
                worst, worst_cos = "%s (%.7f)" % (r["node"], cos), cos
    return first, worst


def metrics(y, ref, classifier):
    a = y.astype(np.float64).ravel()
    b = ref.astype(np.float64).ravel()
    cos = float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-300))
    d = np.abs(a - b)
    rel = float(d.max() / (np.abs(b).max() + 1e-30))
    top1 = ""
    if classifier:
        top1 = float(np.mean(np.argmax(y.reshape(y.shape[0], -1), 1) == np.argmax(ref.reshape(ref.shape[0], -1), 1)))
    return cos, float(d.max()), rel, top1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--bin", default=DEFAULT_BIN, help="folder with atc and omrun (default: %(default)s)")
    ap.add_argument("--out", default="sweep_results")
    ap.add_argument("--name", default=None)
    ap.add_argument("--settings", default=None, help="comma list (default: all precision modes and implmodes)")
    ap.add_argument("--soc_version", default="native")
    ap.add_argument("--loop", type=int, default=20)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--classifier", choices=["auto", "yes", "no"], default="auto")
    ap.add_argument("--no_layers", action="store_true", help="skip the layer-by-layer compare (atc-compare)")
    ap.add_argument("--cosine_threshold", type=float, default=0.9999,
                    help="first_drift: the first layer below this cosine (default %(default)s)")
    args = ap.parse_args()
    for k in ("model", "input", "ref", "bin", "out"):
        setattr(args, k, os.path.abspath(getattr(args, k)))
    name = args.name or os.path.splitext(os.path.basename(args.model))[0]
    settings = args.settings.split(",") if args.settings else default_settings()
    if not args.no_layers and not os.access(os.path.join(args.bin, "atc-compare"), os.X_OK):
        print("sweep.py: no atc-compare in %s: the layer columns stay empty" % args.bin, file=sys.stderr)
        args.no_layers = True
    for tool in ("atc", "omrun"):
        if not os.access(os.path.join(args.bin, tool), os.X_OK):
            sys.exit("sweep.py: no %s in %s: build it first (scripts/quickstart.sh builds build/bin) or pass --bin"
                     % (tool, args.bin))
    ref = np.load(args.ref)
    classifier = args.classifier == "yes" or (args.classifier == "auto" and ref.ndim == 2 and ref.shape[1] >= 10)
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="sweep_", dir=args.out)
    try:
        os.environ.setdefault("ASCEND_CACHE_PATH", os.path.join(work, "cache"))
        rows = sweep(args, settings, work, ref, classifier)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write(args, name, rows)
    if not any(r["status"] == "ok" for r in rows):
        print("no setting built", file=sys.stderr)
        return 1
    return 0


def sweep(args, settings, work, ref, classifier):
    rows = []
    base_dump = None
    if not args.no_layers:
        base_om, err, _, tail = build(args, "precision_mode=must_keep_origin_dtype", work)
        if base_om is None:
            sys.exit("sweep.py: the float32 reference build failed (%s): %s" % (err, " ".join(tail)))
        base_dump = dump(args, base_om, work)
    for s in settings:
        om, err, ct, tail = build(args, s, work)
        row = {"setting": s, "status": "ok", "error_code": "", "cosine": "", "max_abs_err": "",
               "max_rel_err": "", "top1_agree": "", "median_ms": "", "compile_s": "%.1f" % ct,
               "first_drift": "", "worst_layer": ""}
        if om is None:
            row["status"], row["error_code"] = "refused", err
            print("%-70s refused %s %s" % (s, err, " ".join(tail)[:120]), flush=True)
        else:
            y, med = run(args, om, work)
            cos, mae, mre, top1 = metrics(y, ref, classifier)
            row.update(cosine="%.7f" % cos, max_abs_err="%.3e" % mae, max_rel_err="%.3e" % mre,
                       top1_agree=("%.3f" % top1) if top1 != "" else "", median_ms="%.3f" % med)
            if base_dump:
                row["first_drift"], row["worst_layer"] = compare_layers(args, dump(args, om, work), base_dump, work, slug(s))
            print("%-70s cos %.7f maxabs %.3e med %.3f ms %s" % (s, cos, mae, med, row["first_drift"]), flush=True)
        rows.append(row)
    return rows


def write(args, name, rows):
    cols = ["setting", "status", "error_code", "cosine", "max_abs_err", "max_rel_err", "top1_agree", "median_ms",
            "compile_s", "first_drift", "worst_layer"]
    base = os.path.join(args.out, name + "_sweep")
    with open(base + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    with open(base + ".md", "w") as f:
        f.write("# Precision sweep: %s\n\nReference: %s (fp32). Latency: median of %d omrun runs.\n\n"
                % (name, os.path.basename(args.ref), args.loop))
        if not args.no_layers:
            f.write("Layers: each setting's dump against a must_keep_origin_dtype build's (atc-compare); "
                    "first_drift: the first layer below cosine %g; worst_layer: the lowest cosine.\n\n"
                    % args.cosine_threshold)
        f.write("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
        for r in rows:
            f.write("| " + " | ".join(str(r[c]) for c in cols) + " |\n")
    plot(rows, base + ".png", name)
    print("wrote %s.csv, %s.md, %s.png" % (base, base, base))


def plot(rows, path, name):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ok = [r for r in rows if r["status"] == "ok"]
    fig, ax = plt.subplots(figsize=(9, 6))
    for r in ok:
        err = max(float(r["max_abs_err"]), 1e-12)
        ax.scatter(float(r["median_ms"]), err)
        ax.annotate(r["setting"].replace("precision_mode=", "").replace("op_select_implmode=", "impl:"),
                    (float(r["median_ms"]), err), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_yscale("log")
    ax.set_xlabel("median latency (ms)")
    ax.set_ylabel("max abs error vs fp32 reference")
    refused = [r["setting"] + " (" + r["error_code"] + ")" for r in rows if r["status"] != "ok"]
    title = "Precision sweep: " + name
    if refused:
        title += "\nrefused: " + ", ".join(x.replace("precision_mode=", "") for x in refused)[:150]
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    sys.exit(main())
