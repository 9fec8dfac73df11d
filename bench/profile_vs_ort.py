#!/usr/bin/python3
"""Per-layer times of our compiled model against ONNX Runtime's, for one model, in one run.

Runs our build under ATC_PROFILE=1 (per-step mean times) and ONNX Runtime with its profiler
(per-node kernel times, meaned over the same runs: 3 warm-ups and --loop, as ATC_PROFILE counts
them), in interleaved rounds, and keeps per entry the lowest mean over the rounds (a host whose
speed swings for minutes slows whole rounds). Convs are matched by shape, since the two sides
name and fuse nodes differently: the key is (weight shape, input H x W, output H x W, group),
and each row sums every layer of that shape on each side (our Winograd steps count to their
conv). Then the totals per kernel type (ours) and op type (ONNX Runtime). Shows where a model's
gap to ONNX Runtime is, layer shape by layer shape. ONNX Runtime's NCHWc convs pad their output
channels to its channel block (SqueezeNet's 1000-class conv runs as 1008); such a conv is
matched to ours. A row with no layers on our side is a shape only ONNX Runtime's rewrites made.

Usage: bench/profile_vs_ort.py MODEL.onnx INPUT.npy [--bin build/bin] [--soc native]
       [--precision must_keep_origin_dtype] [--threads 2] [--rounds 5] [--loop 10]
Needs /usr/bin/python3 with numpy and onnx, node and the ONNX Runtime package of
bench_vs_ort.py (installed into --cache when missing).
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_vs_ort as bvo  # noqa: E402
import peak_probe  # noqa: E402

STEP = re.compile(r"\[ATC_PROFILE\] step\s+\d+\s+([\d.]+) ms\s+[\d.]+%\s+k\d+ (\S+) (\S+)")


def conv_keys(path):
    """ONNX Conv node name -> shape key."""
    m = onnx.shape_inference.infer_shapes(onnx.load(path))
    dims = {}
    for v in list(m.graph.value_info) + list(m.graph.input) + list(m.graph.output):
        dims[v.name] = [d.dim_value for d in v.type.tensor_type.shape.dim]
    for t in m.graph.initializer:
        dims[t.name] = list(t.dims)
    keys = {}
    for n in m.graph.node:
        if n.op_type == "Conv" and all(x in dims for x in (n.input[0], n.input[1], n.output[0])):
            group = next((a.i for a in n.attribute if a.name == "group"), 1)
            keys[n.name] = key(dims[n.input[1]], dims[n.input[0]], dims[n.output[0]], group)
    return keys


def padded_keys(keys):
    """ONNX Runtime's NCHWc convs pad their output channels to the channel block (16 on AVX-512,
    8 on AVX2: SqueezeNet's 1000-class conv runs as 1008): its key -> ours."""
    out = {}
    for node_key in set(keys.values()):
        w = node_key.split(" ")[0][1:].split("x")
        for blk in (8, 16):
            m = (int(w[0]) + blk - 1) // blk * blk
            out["W" + "x".join([str(m)] + w[1:]) + node_key[len(node_key.split(" ")[0]):]] = node_key
    for node_key in set(keys.values()):
        out[node_key] = node_key
    return out


def key(w, x, y, group):
    g = "" if group == 1 else " g%d" % group
    return "W%s %s -> %s%s" % ("x".join(map(str, w)), "x".join(map(str, x[2:])), "x".join(map(str, y[2:])), g)


def ours_round(a, om, npy, keys):
    env = dict(os.environ, ATC_PROFILE="1")
    r = subprocess.run([os.path.join(a.bin, "omrun"), "--model=" + om, "--input=" + npy, "--loop=%d" % a.loop,
                        "--warmup=3", "--threads=%d" % a.threads], env=env, capture_output=True, text=True, check=True)
    conv, kinds = collections.Counter(), collections.Counter()
    for line in (r.stdout + r.stderr).splitlines():
        m = STEP.match(line)
        if not m:
            continue
        ms, kind, node = float(m.group(1)), m.group(2), re.sub(r"_wino_(in|gemm|out)_\d+$", "", m.group(3))
        kinds[kind] += ms
        if node in keys:
            conv[keys[node]] += ms
    return conv, kinds


def ort_round(a, spec_path, tmp, ours_by_ort_key):
    prefix = os.path.join(tmp, "ortprof")
    for f in glob.glob(prefix + "*.json"):
        os.remove(f)
    with open(spec_path) as f:
        spec = json.load(f)
    spec.update(profile=prefix, warmup=3)
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    bvo.run_ort(spec_path)
    with open(glob.glob(prefix + "*.json")[0]) as f:
        events = json.load(f)
    per_node = collections.defaultdict(list)
    info = {}
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            per_node[e["name"]].append(e["dur"] / 1000.0)
            info[e["name"]] = e["args"]
    conv, kinds = collections.Counter(), collections.Counter()
    for name, ts in per_node.items():
        ms = sum(ts) / len(ts)  # warm-up runs included, as ATC_PROFILE counts them
        args = info[name]
        kinds[args.get("op_name", "?")] += ms
        if args.get("op_name") in ("Conv", "FusedConv"):
            shapes = [list(s.values())[0] for s in args["input_type_shape"]]
            out = list(args["output_type_shape"][0].values())[0]
            group = shapes[0][1] // shapes[1][1] if shapes[1][1] else 1
            k = key(shapes[1], shapes[0], out, group)
            conv[ours_by_ort_key.get(k, k)] += ms
    return conv, kinds


def lowest(rounds):
    best = {}
    for r in rounds:
        for k, v in r.items():
            best[k] = min(best.get(k, v), v)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("input")
    bvo.add_run_args(ap, "")
    a = ap.parse_args()
    ort_pkg = bvo.ensure_ort(a.cache)
    keys = conv_keys(a.model)
    with tempfile.TemporaryDirectory() as tmp:
        om, _ = bvo.compile_model(a, "m", a.model, tmp)
        spec = bvo.ort_spec(a, ort_pkg, a.model, a.input, tmp)
        ours, theirs = [], []
        for _ in range(a.rounds):
            ours.append(ours_round(a, om, a.input, keys))
            theirs.append(ort_round(a, spec, tmp, padded_keys(keys)))
    oc, ok = lowest(r[0] for r in ours), lowest(r[1] for r in ours)
    tc, tk = lowest(r[0] for r in theirs), lowest(r[1] for r in theirs)
    print("host: %s; threads=%d; soc=%s; precision=%s; %d rounds x %d runs, lowest per-round mean" %
          (peak_probe.cpu_name(), a.threads, a.soc, a.precision, a.rounds, a.loop))
    print("\n| conv shape (weight, in -> out) | layers | ours ms | ORT ms | ours/ORT |\n|---|---|---|---|---|")
    count = collections.Counter(keys.values())
    for k in sorted(set(oc) | set(tc), key=lambda k: -oc.get(k, 0)):
        o, t = oc.get(k, 0.0), tc.get(k, 0.0)
        print("| %s | %d | %.3f | %.3f | %s |" % (k, count[k], o, t, "%.2fx" % (o / t) if t and o else "-"))
    print("| **all convs** | %d | **%.3f** | **%.3f** | **%.2fx** |" %
          (len(keys), sum(oc.values()), sum(tc.values()), sum(oc.values()) / max(1e-9, sum(tc.values()))))
    print("\nours per kernel type: " + ", ".join("%s %.3f" % kv for kv in sorted(ok.items(), key=lambda kv: -kv[1])))
    print("ONNX Runtime per op type: " + ", ".join("%s %.3f" % kv for kv in sorted(tk.items(), key=lambda kv: -kv[1])))
    print("sums: ours %.3f ms, ONNX Runtime %.3f ms (profiled runs; a profiler adds its own time)" %
          (sum(ok.values()), sum(tk.values())))


if __name__ == "__main__":
    sys.exit(main())
