"""Outputs whose shape depends on input values (docs/dynamic-shapes.md), through atc and omrun.

Usage: data_shaped_check.py BIN_DIR WORK_DIR
TopK with a run-time k (default precision mode), NonMaxSuppression, NonZero, Compress, Unique on
run-time inputs: omrun must write each output in the shape this run gave, matching numpy.
NonZero of a constant folds to a static shape and may feed other ops; Reduce* with run-time axes
feeds element-wise ops with scalar operands (default precision and must_keep_origin_dtype), and a
repeated axis fails the run clearly; Slice with run-time starts, ends, axes and steps (a zero
step fails the run); Split with run-time sizes; other readers of a run-time-shaped value are refused (E19010)
and no .om is written. Run-sized values (Range -> Cos -> Mul, its Shape, Expand to a run-time
shape) grow and shrink across runs, a shape that does not broadcast fails the run, and a
Transpose of one is refused.
Prints one PASS/FAIL line per case; exits 1 on any failure.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BIN, WORK = sys.argv[1], sys.argv[2]
F, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
failures = 0


def model(name, nodes, inputs, outputs, opset=13, inits=()):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    path = os.path.join(WORK, name + ".onnx")
    onnx.save(m, path)
    return path


def atc(name, path, extra=()):
    out = os.path.join(WORK, name)
    r = subprocess.run([BIN + "/atc", "--model=" + path, "--framework=5", "--output=" + out,
                        "--soc_version=native", *extra], capture_output=True, text=True)
    return r, out + ".om"


def run(name, om, arrays):
    files = []
    for i, a in enumerate(arrays):
        f = os.path.join(WORK, "%s_in%d.npy" % (name, i))
        np.save(f, a)
        files.append(f)
    out = os.path.join(WORK, name + "_out")
    r = subprocess.run([BIN + "/omrun", "--model=" + om, "--input=" + ",".join(files), "--output=" + out],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("omrun failed: " + r.stderr)
    res, i = [], 0
    while os.path.exists(os.path.join(out, "output_%d.npy" % i)):
        res.append(np.load(os.path.join(out, "output_%d.npy" % i)))
        i += 1
    return res


def check(name, got, want, rtol=1e-5):
    global failures
    ok = len(got) == len(want) and all(g.shape == w.shape and np.allclose(g, w, rtol=rtol) for g, w in zip(got, want))
    print(("PASS " if ok else "FAIL ") + name)
    if not ok:
        failures += 1
        print("  got:", [(g.shape, g.ravel()[:8]) for g in got], "\n  want:", [(w.shape, w.ravel()[:8]) for w in want])


def expect_refused(name, path, needle, label):
    """atc refuses the model with E19010 and a message holding `needle`, and writes no .om."""
    global failures
    r, om = atc(name, path)
    text = r.stdout + r.stderr
    ok = r.returncode != 0 and "E19010" in text and needle in text and not os.path.exists(om)
    print(("PASS " if ok else "FAIL ") + label)
    if not ok:
        failures += 1
        print(text)


def topk():
    path = model("topk", [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1)],
                 [helper.make_tensor_value_info("x", F, [3, 6]), helper.make_tensor_value_info("k", I64, [1])],
                 [helper.make_tensor_value_info("v", F, None), helper.make_tensor_value_info("i", I64, None)])
    r, om = atc("topk", path)  # the default precision mode (force_fp16)
    if r.returncode:
        raise RuntimeError(r.stdout + r.stderr)
    x = np.random.default_rng(1).permutation(18).astype(np.float32).reshape(3, 6)
    for k in (1, 4, 0):
        order = np.argsort(-x, axis=1, kind="stable")[:, :k]
        check("topk k=%d" % k, run("topk", om, [x, np.array([k], np.int64)]),
              [np.take_along_axis(x, order, 1), order])
    # --status_check=1 reads every step's outputs for inf/NaN: not the bound's unwritten tail
    r, om = atc("topk_checked", path, ["--status_check=1"])
    if r.returncode:
        raise RuntimeError(r.stdout + r.stderr)
    order = np.argsort(-x, axis=1, kind="stable")[:, :2]
    check("topk k=2, --status_check=1", run("topk_checked", om, [x, np.array([2], np.int64)]),
          [np.take_along_axis(x, order, 1), order])


def nms():
    inits = [numpy_helper.from_array(np.array([2], np.int64), "mo"),
             numpy_helper.from_array(np.array([0.5], np.float32), "iou"),
             numpy_helper.from_array(np.array([0.1], np.float32), "st")]
    path = model("nms", [helper.make_node("NonMaxSuppression", ["b", "s", "mo", "iou", "st"], ["y"])],
                 [helper.make_tensor_value_info("b", F, [1, 4, 4]), helper.make_tensor_value_info("s", F, [1, 2, 4])],
                 [helper.make_tensor_value_info("y", I64, None)], inits=inits)
    r, om = atc("nms", path)
    if r.returncode:
        raise RuntimeError(r.stdout + r.stderr)
    boxes = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 5, 1, 6], [3, 3, 4, 4]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.05, 0.7], [0.2, 0.3, 0.6, 0.05]]], np.float32)
    # class 0: box 0, box 1 suppressed (IoU 0.82), box 3; class 1: box 2, then box 1 (box 3 below 0.1)
    want = np.array([[0, 0, 0], [0, 0, 3], [0, 1, 2], [0, 1, 1]], np.int64)
    check("nms", run("nms", om, [boxes, scores]), [want])


def nonzero_compress():
    path = model("nzc", [helper.make_node("NonZero", ["x"], ["nz"]),
                         helper.make_node("Compress", ["x", "c"], ["y"], axis=1)],
                 [helper.make_tensor_value_info("x", F, [2, 3]), helper.make_tensor_value_info("c", BOOL, [3])],
                 [helper.make_tensor_value_info("nz", I64, None), helper.make_tensor_value_info("y", F, None)])
    r, om = atc("nzc", path, ["--precision_mode=must_keep_origin_dtype"])
    if r.returncode:
        raise RuntimeError(r.stdout + r.stderr)
    x = np.array([[0, 2, 0], [3, 0, 4]], np.float32)
    for c in ([True, False, True], [False, False, False]):
        c = np.array(c)
        check("nonzero + compress %s" % c.astype(int), run("nzc", om, [x, c]),
              [np.array(np.nonzero(x), np.int64), np.compress(c, x, axis=1)])


def folded_nonzero():
    cst = numpy_helper.from_array(np.array([[1, 0], [0, 7]], np.float32), "w")
    path = model("nzconst", [helper.make_node("NonZero", ["w"], ["nz"]),
                             helper.make_node("Add", ["nz", "a"], ["y"])],
                 [helper.make_tensor_value_info("a", I64, [2, 2])], [helper.make_tensor_value_info("y", I64, None)],
                 inits=[cst])
    r, om = atc("nzconst", path)
    if r.returncode:
        raise RuntimeError(r.stdout + r.stderr)
    a = np.arange(4, dtype=np.int64).reshape(2, 2)
    check("nonzero of a constant feeds Add", run("nzconst", om, [a]), [np.array([[0, 1], [0, 1]]) + a])


def unique():
    path = model("unique", [helper.make_node("Unique", ["x"], ["y", "i", "inv", "c"], sorted=0)],
                 [helper.make_tensor_value_info("x", I64, [7])],
                 [helper.make_tensor_value_info(n, I64, None) for n in ("y", "i", "inv", "c")], opset=11)
    r, om = atc("unique", path)
    if r.returncode:
        raise RuntimeError(r.stdout + r.stderr)
    for x in ([3, 1, 3, 2, 1, 3, 5], [4, 4, 4, 4, 4, 4, 4]):
        x = np.array(x, np.int64)
        y, i, inv, c = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(i)  # not sorted: order of first occurrence
        pos = np.empty_like(order)
        pos[order] = np.arange(len(order))
        check("unique %s" % x, run("unique", om, [x]), [y[order], i[order], pos[inv], c[order]])


def reduce_runtime_axes():
    # Reduce* axes fed at run time (opset 18): the output shape follows the axes; element-wise
    # ops over it with scalar operands (Sqrt, Mul by a constant, Cast) run over its actual elements.
    two = numpy_helper.from_array(np.array(2.0, np.float32), "two")
    nodes = [helper.make_node("ReduceSumSquare", ["x", "axes"], ["ss"], keepdims=0),
             helper.make_node("Sqrt", ["ss"], ["l2"]), helper.make_node("Mul", ["l2", "two"], ["m"]),
             helper.make_node("Cast", ["m"], ["y"], to=TensorProto.DOUBLE),
             helper.make_node("ReduceMax", ["x", "axes"], ["mx"], keepdims=1)]
    path = model("reduce_axes", nodes,
                 [helper.make_tensor_value_info("x", F, [3, 4, 5]), helper.make_tensor_value_info("axes", I64, [2])],
                 [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None),
                  helper.make_tensor_value_info("mx", F, None)], opset=18, inits=[two])
    x = np.random.default_rng(2).standard_normal((3, 4, 5)).astype(np.float32)
    for extra in ([], ["--precision_mode=must_keep_origin_dtype"]):
        r, om = atc("reduce_axes", path, extra)  # the default precision mode first (force_fp16)
        if r.returncode:
            raise RuntimeError(r.stdout + r.stderr)
        for axes in ([0, 2], [2, 0], [-1, 1], [0, 1]):
            a = tuple(axes)
            want = [2 * np.sqrt((x.astype(np.float64) ** 2).sum(axis=a)), x.max(axis=a, keepdims=True)]
            got = run("reduce_axes", om, [x, np.array(axes, np.int64)])
            ok = len(got) == 2 and all(g.shape == w.shape and np.allclose(g, w, rtol=2e-3) for g, w in zip(got, want)) \
                and got[0].dtype == np.float64
            check("reduce axes %s %s" % (axes, extra), [np.float32(ok)], [np.float32(1)])
    global failures
    bad = os.path.join(WORK, "bad_axes.npy")
    np.save(bad, np.array([1, -2], np.int64))
    r = subprocess.run([BIN + "/omrun", "--model=" + om, "--input=" + os.path.join(WORK, "reduce_axes_in0.npy") + "," +
                        bad, "--output=" + os.path.join(WORK, "bad_out")], capture_output=True, text=True)
    ok = r.returncode != 0 and "no valid shape" in r.stderr and "Reduce or Slice axis" in r.stderr
    print(("PASS " if ok else "FAIL ") + "a repeated run-time axis is a run-time error")
    if not ok:
        failures += 1
        print(r.stdout + r.stderr)


def slice_runtime():
    # Slice with starts, ends, axes and steps fed at run time (int32), then Relu over the slice
    names = ("starts", "ends", "axes", "steps")
    path = model("slice_rt", [helper.make_node("Slice", ["x", *names], ["s"]), helper.make_node("Relu", ["s"], ["y"])],
                 [helper.make_tensor_value_info("x", F, [4, 5, 6])] +
                 [helper.make_tensor_value_info(n, TensorProto.INT32, [2]) for n in names],
                 [helper.make_tensor_value_info("y", F, None)])
    r, om = atc("slice_rt", path)
    if r.returncode:
        raise RuntimeError(r.stdout + r.stderr)
    x = np.random.default_rng(3).standard_normal((4, 5, 6)).astype(np.float32)
    for st, en, ax, sp in (([1, 0], [3, 6], [0, 2], [1, 2]), ([-1, 10], [-100, -9], [2, 1], [-2, -3]),
                           ([0, 2], [4, 2], [-3, 1], [1, 1]), ([2**31 - 1, 0], [0, 5], [1, 2], [-1, 2**31 - 1])):
        sl = [slice(None)] * 3
        for b, e, a, s in zip(st, en, ax, sp):
            sl[a % 3] = slice(b, e, s)
        want = np.maximum(x[tuple(sl)], 0)
        got = run("slice_rt", om, [x] + [np.array(v, np.int32) for v in (st, en, ax, sp)])
        check("slice starts=%s ends=%s axes=%s steps=%s" % (st, en, ax, sp), got, [want], rtol=2e-3)  # float16
    global failures
    files = []
    for i, a in enumerate([x] + [np.array(v, np.int32) for v in ([0, 0], [2, 2], [0, 1], [1, 0])]):
        files.append(os.path.join(WORK, "slice_bad_in%d.npy" % i))
        np.save(files[-1], a)
    r = subprocess.run([BIN + "/omrun", "--model=" + om, "--input=" + ",".join(files),
                        "--output=" + os.path.join(WORK, "slice_bad")], capture_output=True, text=True)
    ok = r.returncode != 0 and "no valid shape" in r.stderr
    print(("PASS " if ok else "FAIL ") + "a zero run-time step is a run-time error")
    if not ok:
        failures += 1
        print(r.stdout + r.stderr)


def split_runtime():
    # Split with its sizes fed at run time; a TopK of an empty batch keeps its run-time k
    path = model("split_rt", [helper.make_node("Split", ["x", "sp"], ["a", "b", "c"], axis=1),
                              helper.make_node("TopK", ["e", "k"], ["v", "i"])],
                 [helper.make_tensor_value_info("x", F, [2, 7]), helper.make_tensor_value_info("sp", I64, [3]),
                  helper.make_tensor_value_info("e", F, [0, 5]), helper.make_tensor_value_info("k", I64, [1])],
                 [helper.make_tensor_value_info(n, F, None) for n in ("a", "b", "c", "v")] +
                 [helper.make_tensor_value_info("i", I64, None)])
    r, om = atc("split_rt", path, ["--precision_mode=must_keep_origin_dtype"])
    if r.returncode:
        raise RuntimeError(r.stdout + r.stderr)
    x = np.arange(14, dtype=np.float32).reshape(2, 7)
    e = np.zeros((0, 5), np.float32)
    for sp in ([2, 0, 5], [7, 0, 0], [1, 3, 3]):
        want = np.split(x, np.cumsum(sp)[:-1], axis=1) + [np.zeros((0, 3), np.float32), np.zeros((0, 3), np.int64)]
        check("split %s, TopK of an empty batch with k=3" % sp,
              run("split_rt", om, [x, np.array(sp, np.int64), e, np.array([3], np.int64)]), want)
    global failures
    files = []
    for i, a in enumerate([x, np.array([2, 2, 2], np.int64), e, np.array([3], np.int64)]):
        files.append(os.path.join(WORK, "split_bad_in%d.npy" % i))
        np.save(files[-1], a)
    r = subprocess.run([BIN + "/omrun", "--model=" + om, "--input=" + ",".join(files),
                        "--output=" + os.path.join(WORK, "split_bad")], capture_output=True, text=True)
    ok = r.returncode != 0 and "no valid shape" in r.stderr
    print(("PASS " if ok else "FAIL ") + "split sizes not summing to the axis dim are a run-time error")
    if not ok:
        failures += 1
        print(r.stdout + r.stderr)


def refused_reader():
    path = model("nzread", [helper.make_node("NonZero", ["x"], ["nz"]), helper.make_node("Transpose", ["nz"], ["y"])],
                 [helper.make_tensor_value_info("x", F, [2, 3])], [helper.make_tensor_value_info("y", I64, None)])
    expect_refused("nzread", path, "whose shape depends on input values",
                   "a reader of NonZero's output is refused (E19010, no .om)")
    # an element-wise op whose other operand is not a scalar would broadcast over the bound
    path = model("rsread", [helper.make_node("ReduceSum", ["x", "axes"], ["r"]),
                            helper.make_node("Add", ["r", "x"], ["y"])],
                 [helper.make_tensor_value_info("x", F, [2, 3]), helper.make_tensor_value_info("axes", I64, [1])],
                 [helper.make_tensor_value_info("y", F, None)])
    expect_refused("rsread", path, "Op [ReduceSum",
                   "Add of a run-time-axes ReduceSum and a tensor is refused (E19010, no .om)")


def run_sized():
    """Run-sized values: Range(0, n, 1) -> Cos * 2 and its Shape, Expand to a run-time shape."""
    global failures
    inits = [numpy_helper.from_array(np.array(0, np.float32), "zero"),
             numpy_helper.from_array(np.array(1, np.float32), "one"),
             numpy_helper.from_array(np.array(2, np.float32), "two")]
    path = model("rsized", [helper.make_node("Range", ["zero", "n", "one"], ["r"]),
                            helper.make_node("Cos", ["r"], ["c"]), helper.make_node("Mul", ["c", "two"], ["y"]),
                            helper.make_node("Shape", ["y"], ["s"]),
                            helper.make_node("Expand", ["x", "shape"], ["e"])],
                 [helper.make_tensor_value_info("n", F, []), helper.make_tensor_value_info("x", F, [3, 1]),
                  helper.make_tensor_value_info("shape", I64, [3])],
                 [helper.make_tensor_value_info(o, t, None) for o, t in (("y", F), ("s", I64), ("e", F))],
                 inits=inits)
    x = np.array([[1], [2], [3]], np.float32)
    oom = os.path.join(WORK, "oom.cfg")
    with open(oom, "w") as f:
        f.write("op_debug_config = oom\n")  # red zones and bounds-checked kernels (not the run-sized ones)
    for extra, label in (((), "default precision"), (("--status_check=1",), "--status_check=1"),
                         (("--op_debug_config=" + oom,), "oom")):
        r, om = atc("rsized", path, extra)
        if r.returncode:
            raise RuntimeError(r.stdout + r.stderr)
        for n, shape in ((5.0, (2, 3, 4)), (1.0, (1, 3, 1)), (37.5, (4, 3, 2))):
            want_y = 2 * np.cos(np.arange(0, n, 1, dtype=np.float32))
            check("run-sized Range -> Cos -> Mul, Shape, Expand (n=%g, %s)" % (n, label),
                  run("rsized", om, [np.array(n, np.float32), x, np.array(shape, np.int64)]),
                  [want_y, np.array(want_y.shape, np.int64), np.broadcast_to(x, shape)], rtol=1e-3)
    # a shape that does not broadcast fails the run with a message naming the output
    r, om = atc("rsized", path)
    files = []
    for i, a in enumerate([np.array(3, np.float32), x, np.array([2, 4, 5], np.int64)]):
        files.append(os.path.join(WORK, "rsbad_in%d.npy" % i))
        np.save(files[-1], a)
    p = subprocess.run([BIN + "/omrun", "--model=" + om, "--input=" + ",".join(files), "--output=" + WORK + "/rsbad"],
                       capture_output=True, text=True)
    ok = p.returncode != 0 and "output e: this run's input values give it no valid shape" in p.stdout + p.stderr
    print(("PASS " if ok else "FAIL ") + "Expand to a shape that does not broadcast fails the run")
    if not ok:
        failures += 1
        print(p.stdout + p.stderr)
    # a Transpose of a run-sized value is refused at import, no .om
    path = model("rsread2", [helper.make_node("Expand", ["x", "shape"], ["e"]),
                             helper.make_node("Transpose", ["e"], ["t"])],
                 [helper.make_tensor_value_info("x", F, [3, 1]), helper.make_tensor_value_info("shape", I64, [2])],
                 [helper.make_tensor_value_info("t", F, None)])
    expect_refused("rsread2", path, "whose size each run decides",
                   "a Transpose of a run-sized value is refused (E19010, no .om)")


for case in (topk, nms, nonzero_compress, unique, folded_nonzero, reduce_runtime_axes, slice_runtime,
             split_runtime, refused_reader, run_sized):
    try:
        case()
    except Exception as e:  # one failing case does not hide the others
        failures += 1
        print("FAIL %s: %s" % (case.__name__, e))
sys.exit(1 if failures else 0)
