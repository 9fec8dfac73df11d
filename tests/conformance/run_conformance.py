#!/usr/bin/python3
"""ONNX backend conformance runner for atc + omrun.

Runs every case of the ONNX backend test data (model.onnx + test_data_set_*/input_*.pb,
output_*.pb) through `atc` (ONNX -> .om) and `omrun` (.om -> outputs) and compares the
outputs with the references. Categories:
  pass         all outputs of all data sets match
  mismatch     ran, but an output differs (shape, dtype or values)
  unsupported  atc failed cleanly with an ATC error block (E#####)
  crash        signal, timeout, atc failing without an error block, or omrun failing on
               a model atc accepted
Default mode: exit 1 if any case crashes or a case listed in passing.txt no longer passes.
--update: rewrite passing.txt with the cases that pass now.
--passing FILE: another list than passing.txt (one per test-data root: the case names of
Debian's libonnx-testdata and of ../shared/onnx-node-tests overlap).
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
DATA_ROOT = "/usr/share/libonnx-testdata/data"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]
PASSING_FILE = os.path.join(HERE, "passing.txt")
ATC_TIMEOUT = 120
OMRUN_TIMEOUT = 60
ERROR_CODE_RE = re.compile(r"^\s*(E\d{5}):", re.M)
UNSUPPORTED_TYPES_RE = re.compile(r"unsupported op types: ([^\n]*)")


def list_cases(root, regex):
    cases = []
    for suite in SUITES:
        d = os.path.join(root, suite)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            case_dir = os.path.join(d, name)
            if not os.path.isfile(os.path.join(case_dir, "model.onnx")):
                continue
            case = suite + "/" + name
            if regex and not re.search(regex, case):
                continue
            cases.append((case, case_dir))
    return cases


# Element types numpy (and onnx 1.12's numpy_helper) lacks, as omrun reads and writes them in
# .npy files (runtime/npy.h): bfloat16 as uint16 bit patterns, float8 / float4 as uint8 bit
# patterns, int4 / int2 as int8 values, uint4 / uint2 as uint8 values (ONNX packs the 4- and
# 2-bit ones, the first element in the low bits). ONNX type code -> (storage dtype, bits).
STORAGE_TYPES = {16: (np.uint16, 16), 17: (np.uint8, 8), 18: (np.uint8, 8), 19: (np.uint8, 8),
                 20: (np.uint8, 8), 21: (np.uint8, 4), 22: (np.int8, 4), 23: (np.uint8, 4),
                 24: (np.uint8, 8), 25: (np.uint8, 2), 26: (np.int8, 2)}


def storage_array(t):
    """A TensorProto of a STORAGE_TYPES type as its .npy storage array."""
    dt, bits = STORAGE_TYPES[t.data_type]
    n = int(np.prod(t.dims)) if len(t.dims) else 1
    if t.HasField("raw_data"):
        raw = np.frombuffer(t.raw_data, dtype=np.uint16 if bits == 16 else np.uint8)
    else:
        raw = np.array(t.int32_data, dtype=np.int64).astype(np.uint16 if bits == 16 else np.uint8)
    if bits >= 8:
        return raw[:n].astype(dt).reshape(tuple(t.dims))
    per = 8 // bits
    idx = np.arange(n)
    v = (raw[idx // per].astype(np.int32) >> ((idx % per) * bits)) & ((1 << bits) - 1)
    if dt == np.int8:
        v = np.where(v >= (1 << (bits - 1)), v - (1 << bits), v)
    return v.astype(dt).reshape(tuple(t.dims))


def minifloat_table(code):
    """float64 values of the 256 bit patterns of float8 / float4 type `code` (NaN where one)."""
    if code == 24:  # float8e8m0: 2^(b - 127), 0xff NaN
        return np.array([np.nan if b == 0xff else 2.0 ** (b - 127) for b in range(256)])
    eb, mb, bias = {17: (4, 3, 7), 18: (4, 3, 8), 19: (5, 2, 15), 20: (5, 2, 16), 23: (2, 1, 1)}[code]
    fnuz = code in (18, 20)
    out = []
    for b in range(256):
        sbit = 1 << (eb + mb)
        mag, e, m = b & (sbit - 1), (b & (sbit - 1)) >> mb, b & ((1 << mb) - 1)
        if b >= 2 * sbit or (fnuz and b == 0x80) or (code == 17 and mag == 0x7f) or (code == 19 and e == 31 and m):
            out.append(np.nan)
            continue
        if code == 19 and e == 31:
            v = np.inf
        else:
            v = (1 + m / (1 << mb)) * 2.0 ** (e - bias) if e else m / (1 << mb) * 2.0 ** (1 - bias)
        out.append(-v if b & sbit else v)
    return np.array(out)


def tensor_from_proto(t, typed=False, path=""):
    if t.data_type == onnx.TensorProto.UNDEFINED:
        raise ValueError("%s is not a tensor (sequence/map/optional?)" % os.path.basename(path))
    a = storage_array(t) if t.data_type in STORAGE_TYPES else numpy_helper.to_array(t)
    return (a, t.data_type) if typed else a


def load_pb_tensor(path, typed=False):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return tensor_from_proto(t, typed, path)


def load_pb_value(path, kind, typed=False):
    """A tensor, a list of tensors (sequence), or for an optional: None, a tensor or a list.
    The protos parse from each other's bytes, so the model's declared kind decides."""
    if kind == "tensor":
        return load_pb_tensor(path, typed)
    with open(path, "rb") as f:
        data = f.read()
    if kind == "sequence":
        s = onnx.SequenceProto()
        s.ParseFromString(data)
        return [tensor_from_proto(t, typed, path) for t in s.tensor_values]
    o = onnx.OptionalProto()
    o.ParseFromString(data)
    if o.elem_type == onnx.OptionalProto.TENSOR:
        return tensor_from_proto(o.tensor_value, typed, path)
    if o.elem_type == onnx.OptionalProto.SEQUENCE:
        return [tensor_from_proto(t, typed, path) for t in o.sequence_value.tensor_values]
    return None


def value_kind(tp):
    for kind in ("tensor", "sequence", "optional"):
        if tp.HasField(kind + "_type"):
            return kind
    return "other"


def flatten_feed(name, kind, static, val):
    """The .npy arrays an input becomes and its --input_shape entries (docs/frontend-onnx.md,
    "Sequences and optionals": a sequence x is x[0], x[1], ...; "x[]:" declares it empty)."""
    dims = lambda a: ",".join(str(d) for d in a.shape)
    if kind == "tensor":
        return [val], ([] if static else ["%s:%s" % (name, dims(val))])
    if val is None or (isinstance(val, list) and not val):
        return [], ["%s[]:" % name]
    if isinstance(val, list):
        return val, ["%s[%d]:%s" % (name, i, dims(a)) for i, a in enumerate(val)]
    return [val], ["%s:%s" % (name, dims(val))]


def compare_composite(out_dir, ref_paths, outputs):
    """Outputs by name from omrun's outputs.json (a sequence y is y[0], y[1], ...; an optional is
    y[has], then y[value] or y[0], ...), compared with the references; None or a reason."""
    with open(os.path.join(out_dir, "outputs.json")) as f:
        by_name = {o["name"]: os.path.join(out_dir, o["file"]) for o in json.load(f)}

    def one(oname, ref):
        if oname not in by_name:
            return "omrun gave no output %s" % oname
        return compare(np.load(by_name[oname]), ref[0], ref[1])

    def many(oname, refs):
        got = [n for n in by_name if re.fullmatch(re.escape(oname) + r"\[\d+\]", n)]
        if len(got) != len(refs):
            return "%s: %d tensors, reference %d" % (oname, len(got), len(refs))
        for i, ref in enumerate(refs):
            why = one("%s[%d]" % (oname, i), ref)
            if why:
                return "%s[%d]: %s" % (oname, i, why)
        return None

    for ref_path, (oname, kind) in zip(ref_paths, outputs):
        ref = load_pb_value(ref_path, kind, typed=True)
        if kind == "tensor":
            why = one(oname, ref)
        elif kind == "sequence":
            why = many(oname, ref)
        else:
            if oname + "[has]" not in by_name:
                return "omrun gave no output %s[has]" % oname
            has = bool(np.load(by_name[oname + "[has]"]))
            if has != (ref is not None):
                return "%s[has] is %s, the reference %s a value" % (
                    oname, has, "holds" if ref is not None else "has no")
            why = None if ref is None else many(oname, ref) if isinstance(ref, list) else one(oname + "[value]", ref)
        if why:
            return why
    return None


def numbered(folder, prefix):
    files = [f for f in os.listdir(folder) if f.startswith(prefix) and f.endswith(".pb")]
    return [os.path.join(folder, f)
            for f in sorted(files, key=lambda f: int(f[len(prefix):-3]))]


class NonTensorIO(Exception):
    pass


def model_info(model_path):
    """(runtime inputs as (name, static-or-not flag, kind), op types, outputs as (name, kind))
    of the model; kind: tensor, sequence or optional."""
    m = onnx.load(model_path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    inputs = []
    for vi in m.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type if vi.type.HasField("tensor_type") else None
        static = (tt is not None and tt.HasField("shape") and
                  all(d.HasField("dim_value") for d in tt.shape.dim))
        inputs.append((vi.name, static, value_kind(vi.type)))
    outputs = [(vi.name, value_kind(vi.type)) for vi in m.graph.output]
    for name, kind in outputs + [(n, k) for n, _, k in inputs]:
        if kind == "other":
            raise NonTensorIO("input or output %s is a map or sparse tensor" % name)
    ops = sorted({(n.domain + "::" if n.domain not in ("", "ai.onnx") else "") + n.op_type
                  for n in m.graph.node})
    return inputs, ops, outputs


def run_proc(cmd, timeout):
    """(returncode or None on timeout, combined output)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode("utf-8", "replace") if e.stdout else ""
        return None, out


def compare(out, ref, code=0):
    """None if equal enough, else a reason. code: the reference's ONNX type (float8 / float4 /
    bfloat16 storage arrays are compared as the values their bit patterns stand for)."""
    if out.shape != ref.shape:
        return "shape %s != reference %s" % (list(out.shape), list(ref.shape))
    if out.dtype != ref.dtype:
        return "dtype %s != reference %s" % (out.dtype, ref.dtype)
    if code == 16:  # bfloat16 bit patterns
        out = (out.astype(np.uint32) << 16).view(np.float32)
        ref = (ref.astype(np.uint32) << 16).view(np.float32)
    elif code in (17, 18, 19, 20, 23, 24):
        table = minifloat_table(code)
        a, b = table[out.astype(np.int64)], table[ref.astype(np.int64)]
        if not np.array_equal(a, b, equal_nan=True):
            same = (a == b) | (np.isnan(a) & np.isnan(b))
            return "values differ (%d of %d elements)" % (int(np.sum(~same)), ref.size)
        return None
    if ref.dtype.kind == "f":
        a = out.astype(np.float64)
        b = ref.astype(np.float64)
        if not np.allclose(a, b, rtol=1e-3, atol=1e-4, equal_nan=True):
            with np.errstate(invalid="ignore"):
                diff = np.abs(a - b)
                diff[np.isnan(a) & np.isnan(b)] = 0
            return "values differ (max abs diff %.3g)" % np.nanmax(diff)
        return None
    if not np.array_equal(out, ref):
        return "values differ (%d of %d elements)" % (int(np.sum(out != ref)), ref.size)
    return None


def tail(text, n=6):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return "\n".join(lines[-n:])


def freeze_small_inputs(model, inputs, feeds, work):
    """--freeze-shape-inputs: graph inputs after the first that are small (<= 16 elements, rank
    <= 1) and equal in every data set become initializers (the node tests pass shape arguments
    such as Resize's scales or Reduce's axes as inputs, which atc needs as constants until it
    has dynamic shapes). Returns (model path, inputs, feeds) without them."""
    if not feeds or any(f is None or len(f) != len(inputs) for f in feeds):
        return model, inputs, feeds
    keep = [i for i, arr in enumerate(feeds[0])
            if i == 0 or arr.ndim > 1 or arr.size > 16 or arr.dtype.kind not in "iuf" or
            any(not np.array_equal(f[i], arr) for f in feeds)]
    if len(keep) == len(inputs):
        return model, inputs, feeds
    m = onnx.load(model)
    frozen = {inputs[i][0]: feeds[0][i] for i in range(len(inputs)) if i not in keep}
    kept_vi = [vi for vi in m.graph.input if vi.name not in frozen]
    del m.graph.input[:]
    m.graph.input.extend(kept_vi)
    for name, arr in frozen.items():
        m.graph.initializer.append(numpy_helper.from_array(arr, name))
    path = os.path.join(work, "frozen.onnx")
    onnx.save(m, path)
    return path, [inputs[i] for i in keep], [[f[i] for i in keep] for f in feeds]


def run_case(case, case_dir, bin_dir, tmp_root, compile_only=False, freeze=False):
    t0 = time.time()
    res = {"case": case, "status": "crash", "code": None, "detail": "", "ops": []}
    work = tempfile.mkdtemp(prefix="case_", dir=tmp_root)
    try:
        model = os.path.join(case_dir, "model.onnx")
        non_tensor = None
        outputs = []
        try:
            inputs, res["ops"], outputs = model_info(model)
        except NonTensorIO as e:
            inputs, non_tensor = [], str(e)
        except Exception as e:  # the model itself may be unreadable to onnx
            inputs = []
            res["detail"] = "onnx.load: %s" % e
        composite = any(k != "tensor" for _, _, k in inputs) or any(k != "tensor" for _, k in outputs)
        sets = sorted(d for d in os.listdir(case_dir) if d.startswith("test_data_set_"))
        # Feeds per data set, converted to .npy (None when a file is not a tensor).
        feeds = []
        feed_error = None
        for s in sets:
            try:
                paths = numbered(os.path.join(case_dir, s), "input_")
                kinds = [k for _, _, k in inputs] if len(inputs) == len(paths) else ["tensor"] * len(paths)
                feeds.append([load_pb_value(p, k) for p, k in zip(paths, kinds)])
            except Exception as e:
                feed_error = str(e)
                feeds.append(None)
        if freeze and not composite:
            model, inputs, feeds = freeze_small_inputs(model, inputs, feeds, work)
        cmd = [os.path.join(bin_dir, "atc"), "--model=" + model, "--framework=5",
               "--output=" + os.path.join(work, "m"), "--soc_version=native",
               "--precision_mode=must_keep_origin_dtype"]
        # Inputs declared with symbolic/unknown dims get the data set's shapes.
        # Sequences and optionals: their tensors, declared with --input_shape "x[i]:..." / "x[]:".
        if feeds and feeds[0] is not None and len(feeds[0]) == len(inputs):
            shapes = [e for (name, static, kind), val in zip(inputs, feeds[0])
                      for e in flatten_feed(name, kind, static, val)[1]]
            if shapes:
                cmd.append("--input_shape=" + ";".join(shapes))
        rc, out = run_proc(cmd, ATC_TIMEOUT)
        if rc is None:
            res["detail"] = "atc timed out after %d s" % ATC_TIMEOUT
            return res
        if rc != 0:
            codes = ERROR_CODE_RE.findall(out)
            if rc < 0 or not codes:
                res["detail"] = "atc exit %d without an error block: %s" % (rc, tail(out))
                return res
            res["status"] = "unsupported"
            res["code"] = codes[0]
            m = UNSUPPORTED_TYPES_RE.search(out)
            if m:
                res["unsupported_types"] = [t.strip() for t in m.group(1).split(",") if t.strip()]
            lines = out.splitlines()
            first = next(i for i, l in enumerate(lines) if ERROR_CODE_RE.match(l))
            res["detail"] = tail("\n".join(lines[first:first + 2]), 2)
            return res
        om = os.path.join(work, "m.om")
        if not os.path.isfile(om):
            res["detail"] = "atc succeeded but wrote no .om"
            return res
        if compile_only:
            res["status"] = "pass"
            res["detail"] = "compiled (not run)"
            return res
        if non_tensor is not None:
            res["status"] = "mismatch"
            res["detail"] = "atc accepted a model whose " + non_tensor
            return res
        if feed_error is not None:
            res["status"] = "mismatch"
            res["detail"] = "cannot feed the test data: " + feed_error
            return res
        for si, (s, feed) in enumerate(zip(sets, feeds)):
            flat = [a for (name, static, kind), val in zip(inputs, feed)
                    for a in flatten_feed(name, kind, static, val)[0]] if len(feed) == len(inputs) else feed
            names = []
            for i, arr in enumerate(flat):
                p = os.path.join(work, "in_%d_%d.npy" % (si, i))
                np.save(p, arr)  # keeps 0-d arrays 0-d (ascontiguousarray would not)
                names.append(p)
            out_dir = os.path.join(work, "out_%d" % si)
            os.makedirs(out_dir)
            cmd = [os.path.join(bin_dir, "omrun"), "--model=" + om, "--output=" + out_dir]
            if names:
                cmd.append("--input=" + ",".join(names))
            rc, log = run_proc(cmd, OMRUN_TIMEOUT)
            if rc is None:
                res["detail"] = "omrun timed out after %d s (%s)" % (OMRUN_TIMEOUT, s)
                return res
            if rc != 0:
                res["detail"] = "omrun exit %d (%s): %s" % (rc, s, tail(log))
                if rc > 0 and " holds " in log and ", expected " in log:
                    # omrun refused a data file that disagrees with the model's declared input
                    # (Debian's castlike_BFLOAT16_to_FLOAT: `like` declared [3, 4], fed [1]).
                    res["status"] = "mismatch"
                    res["detail"] = "test data disagree with the model's declared input: " + tail(log, 1)
                    return res
                if rc > 0 and "bfloat16" in log:
                    # .npy has no bfloat16 dtype (the test data stores bf16 as uint16 bit
                    # patterns): a clean refusal of the I/O format, not a crash.
                    res["status"] = "unsupported"
                    res["code"] = "NPY_BF16"
                return res
            refs = numbered(os.path.join(case_dir, s), "output_")
            if composite:
                why = compare_composite(out_dir, refs, outputs)
                if why:
                    res["status"] = "mismatch"
                    res["detail"] = "%s: %s" % (s, why)
                    return res
                refs = []
            for i, ref_path in enumerate(refs):
                got_path = os.path.join(out_dir, "output_%d.npy" % i)
                try:
                    ref, ref_code = load_pb_tensor(ref_path, typed=True)
                except Exception as e:
                    res["status"] = "mismatch"
                    res["detail"] = "reference output_%d: %s" % (i, e)
                    return res
                if not os.path.isfile(got_path):
                    res["status"] = "mismatch"
                    res["detail"] = "%s: omrun wrote no output_%d.npy" % (s, i)
                    return res
                try:
                    got = np.load(got_path)
                except Exception as e:
                    res["status"] = "mismatch"
                    res["detail"] = "%s: output_%d.npy unreadable: %s" % (s, i, e)
                    return res
                why = compare(got, ref, ref_code)
                if why:
                    res["status"] = "mismatch"
                    res["detail"] = "%s output_%d: %s" % (s, i, why)
                    return res
        res["status"] = "pass"
        return res
    except Exception as e:  # a bug of the runner itself: report, do not hide
        res["status"] = "crash"
        res["detail"] = "runner error: %r" % e
        return res
    finally:
        res["seconds"] = round(time.time() - t0, 2)
        shutil.rmtree(work, ignore_errors=True)


def read_passing(path):
    if not os.path.isfile(path):
        return set()
    with open(path) as f:
        return {l.strip() for l in f if l.strip() and not l.startswith("#")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "..", "build", "bin"),
                    help="folder with atc and omrun")
    ap.add_argument("--data", default=DATA_ROOT, help="ONNX backend test data root")
    ap.add_argument("--filter", default=None, help="only cases whose name matches this regex")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--report", default=None, help="write a JSON report per case here")
    ap.add_argument("--update", action="store_true", help="rewrite the passing list")
    ap.add_argument("--passing", default=PASSING_FILE,
                    help="the list of cases that must pass (default tests/conformance/passing.txt)")
    ap.add_argument("--freeze-shape-inputs", action="store_true",
                    help="small rank<=1 inputs equal in every data set (Resize scales, Reduce axes...) "
                         "become initializers: checks op semantics atc supports with constant arguments")
    ap.add_argument("--compile-only", action="store_true",
                    help="only run atc; a case passes when it compiles (no omrun, no passing.txt check)")
    ap.add_argument("--verbose", "-v", action="store_true", help="print every case")
    args = ap.parse_args()

    bin_dir = os.path.abspath(args.bin)
    for tool in ("atc",) if args.compile_only else ("atc", "omrun"):
        if not os.access(os.path.join(bin_dir, tool), os.X_OK):
            print("error: %s not found in %s" % (tool, bin_dir), file=sys.stderr)
            return 2
    cases = list_cases(args.data, args.filter)
    if not cases:
        print("no cases found under %s" % args.data, file=sys.stderr)
        return 2
    tmp_root = tempfile.mkdtemp(prefix="atc_conformance_")
    # The kernel cache is on by default: keep it in the temporary folder, not $HOME/atc_data.
    os.environ.setdefault("ASCEND_CACHE_PATH", os.path.join(tmp_root, "atc_cache"))
    # omrun's exception dump of a failing case goes there too, not into the current folder.
    os.environ["ASCEND_WORK_PATH"] = os.path.join(tmp_root, "work")
    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            futs = [ex.submit(run_case, c, d, bin_dir, tmp_root, args.compile_only, args.freeze_shape_inputs)
                    for c, d in cases]
            for f in concurrent.futures.as_completed(futs):
                r = f.result()
                results.append(r)
                if args.verbose or r["status"] == "crash":
                    print("%-11s %s %s" % (r["status"].upper(), r["case"],
                                           (r["code"] or "") + " " + r["detail"].replace("\n", " | ")[:300]),
                          flush=True)
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)
    results.sort(key=lambda r: r["case"])

    by_status = collections.Counter(r["status"] for r in results)
    by_code = collections.Counter(r["code"] for r in results if r["status"] == "unsupported")
    print("\n== categories")
    for s in ("pass", "mismatch", "unsupported", "crash"):
        print("  %-12s %d" % (s, by_status.get(s, 0)))
    print("== unsupported by error code")
    for code, n in sorted(by_code.items(), key=lambda kv: (-kv[1], kv[0])):
        print("  %-8s %d" % (code, n))
    # Op types behind the failures: E19010 lists them; otherwise the model's op types.
    for s in ("unsupported", "mismatch", "crash"):
        c = collections.Counter()
        for r in results:
            if r["status"] != s:
                continue
            for t in r.get("unsupported_types") or r["ops"]:
                c[t] += 1
        if c:
            print("== op types in %s cases (top 25)" % s)
            print("  " + ", ".join("%s %d" % kv for kv in
                                   sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:25]))

    if args.report:
        with open(args.report, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)

    passing_now = {r["case"] for r in results if r["status"] == "pass"}
    ran = {r["case"] for r in results}
    if args.compile_only:
        print("%d compiled, %d did not" % (len(passing_now), len(results) - len(passing_now)))
        return 1 if any(r["status"] == "crash" for r in results) else 0
    if args.update:
        kept = {c for c in read_passing(args.passing) if c not in ran}  # cases outside --filter stay
        with open(args.passing, "w") as f:
            for c in sorted(kept | passing_now):
                f.write(c + "\n")
        print("wrote %s (%d cases)" % (args.passing, len(kept | passing_now)))

    failed = len(results) - len(passing_now)
    regressions = [] if args.update else sorted((read_passing(args.passing) & ran) - passing_now)
    crashes = [r for r in results if r["status"] == "crash"]
    for c in regressions:
        r = next(x for x in results if x["case"] == c)
        print("REGRESSION %s: %s %s %s" % (c, r["status"], r["code"] or "", r["detail"][:200]))
    print("%d passed, %d failed" % (len(passing_now), failed))
    if crashes:
        print("%d case(s) crashed or hung" % len(crashes))
    return 1 if (crashes or regressions) else 0


if __name__ == "__main__":
    sys.exit(main())
