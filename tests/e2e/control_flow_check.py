"""ONNX If, Loop and Scan through atc and omrun, against numpy references.

Usage: control_flow_check.py BIN_DIR WORK_DIR
Builds each model with onnx.helper, compiles it (must_keep_origin_dtype), runs it on one or
more input sets and compares every output (shape and values, 1e-5). Cases that atc must
refuse check the error code, a phrase of the message, and that no .om was written.
Prints one PASS/FAIL line per case; exits 1 on any failure.
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BIN, WORK = sys.argv[1], sys.argv[2]
F, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
failures = 0


def vi(name, t, shape):
    return helper.make_tensor_value_info(name, t, shape)


def const(name, arr):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(arr), name + "_t"))


def model(name, nodes, inputs, outputs, opset=13, inits=()):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    path = os.path.join(WORK, name + ".onnx")
    onnx.save(m, path)
    return path


def compile_model(name, path, args=()):
    out = os.path.join(WORK, name)
    r = subprocess.run([BIN + "/atc", "--model=" + path, "--framework=5", "--output=" + out, "--soc_version=native",
                        "--precision_mode=must_keep_origin_dtype"] + list(args), capture_output=True, text=True)
    return r, out + ".om"


def report(name, ok, why=""):
    global failures
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))
    failures += 0 if ok else 1


def check_runs(name, path, feeds, refs, args=(), names=None):
    """feeds: list of input lists; refs: function(inputs) -> list of expected outputs; args: more
    atc options; names: the output names omrun's outputs.json must list, in order (or a
    function of the inputs giving them)."""
    r, om = compile_model(name, path, args)
    if r.returncode != 0:
        return report(name, False, "atc failed: " + (r.stdout + r.stderr)[-400:])
    for k, ins in enumerate(feeds):
        files = []
        for j, a in enumerate(ins):
            f = os.path.join(WORK, "%s.set%d.in%d.npy" % (name, k, j))
            np.save(f, a)
            files.append(f)
        res = os.path.join(WORK, "%s.set%d.res" % (name, k))
        run = subprocess.run([BIN + "/omrun", "--model=" + om, "--output=" + res] +
                             (["--input=" + ",".join(files)] if files else []), capture_output=True, text=True)
        if run.returncode != 0:
            return report(name, False, "omrun failed: " + (run.stdout + run.stderr)[-400:])
        with open(os.path.join(res, "outputs.json")) as f:
            index = json.load(f)
        listed = [o["name"] for o in index]
        want_names = names(ins) if callable(names) else names
        if want_names is not None and listed != want_names:
            return report(name, False, "outputs %s, want %s" % (listed, want_names))
        wants = refs(ins)
        if len(listed) != len(wants):
            return report(name, False, "%d outputs, want %d" % (len(listed), len(wants)))
        for i, want in enumerate(wants):
            got = np.load(os.path.join(res, index[i]["file"]))
            want = np.asarray(want)
            if got.shape != want.shape or not np.allclose(got, want, rtol=1e-5, atol=1e-5):
                return report(name, False, "set %d output %d: got %s %s, want %s %s" %
                              (k, i, got.shape, got.ravel()[:6], want.shape, want.ravel()[:6]))
    report(name, True)


def check_refused(name, path, code, phrase, args=()):
    r, om = compile_model(name, path, args)
    text = r.stdout + r.stderr
    ok = r.returncode != 0 and code in text and phrase in text and not os.path.exists(om)
    report(name, ok, "rc %d, om %s, output: %s" % (r.returncode, os.path.exists(om), text[-400:]))


x23 = vi("x", F, [2, 3])
rng = np.random.default_rng(0)
X = rng.standard_normal((2, 3)).astype(np.float32)

# 1. If on a run-time condition: both branches run, Where selects (if-conversion).
then_g = helper.make_graph([const("two", np.float32(2)), helper.make_node("Relu", ["x"], ["r"]),
                            helper.make_node("Mul", ["r", "two"], ["t_out"])], "then", [], [vi("t_out", F, [2, 3])])
else_g = helper.make_graph([const("one", np.float32(1)), helper.make_node("Sub", ["x", "one"], ["e_out"])],
                           "else", [], [vi("e_out", F, [2, 3])])
p = model("if_runtime", [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
                         helper.make_node("Neg", ["y"], ["z"])],
          [vi("c", BOOL, []), x23], [vi("z", F, [2, 3])])
check_runs("if_runtime", p, [[np.array(True), X], [np.array(False), X]],
           lambda ins: [-(np.maximum(ins[1], 0) * 2 if ins[0] else ins[1] - 1)])

# 2. If whose condition folds from shapes: only the taken branch is imported (the other
#    one's Reshape could not even be typed).
bad_g = helper.make_graph([const("s77", np.array([7, 7], np.int64)), helper.make_node("Reshape", ["x", "s77"], ["b"])],
                          "bad", [], [vi("b", F, [7, 7])])
ok_g = helper.make_graph([helper.make_node("Sigmoid", ["x"], ["o"])], "ok", [], [vi("o", F, [2, 3])])
p = model("if_folded", [helper.make_node("Shape", ["x"], ["sh"]), const("zero", np.array(0, np.int64)),
                        helper.make_node("Gather", ["sh", "zero"], ["d0"]), const("two64", np.array(2, np.int64)),
                        helper.make_node("Equal", ["d0", "two64"], ["c"]),
                        helper.make_node("If", ["c"], ["y"], then_branch=ok_g, else_branch=bad_g)],
          [x23], [vi("y", F, [2, 3])])
check_runs("if_folded", p, [[X]], lambda ins: [1 / (1 + np.exp(-ins[0]))])

# 3. If on a run-time condition whose branches differ in shape: refused, no .om.
wide_g = helper.make_graph([helper.make_node("Concat", ["x", "x"], ["w"], axis=1)], "wide", [], [vi("w", F, [2, 6])])
p = model("if_shapes_differ", [helper.make_node("If", ["c"], ["y"], then_branch=ok_g, else_branch=wide_g)],
          [vi("c", BOOL, []), x23], [vi("y", F, None)])
check_refused("if_shapes_differ", p, "E19010", "needs the same static type from both")


def loop_body(extra_nodes, cond_out="cond_in"):
    """y_out = y + x * float(i); scan output y_out."""
    nodes = [helper.make_node("Identity", [cond_out], ["cond_out"]) if cond_out == "cond_in" else None,
             helper.make_node("Cast", ["i"], ["fi"], to=F), helper.make_node("Mul", ["x", "fi"], ["xi"]),
             helper.make_node("Add", ["y", "xi"], ["y_out"]), helper.make_node("Identity", ["y_out"], ["scan"])]
    nodes = [n for n in nodes if n is not None] + extra_nodes
    return helper.make_graph(nodes, "body", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("y", F, [2, 3])],
                             [vi("cond_out", BOOL, []), vi("y_out", F, [2, 3]), vi("scan", F, [2, 3])])


def inner_body_rt():
    return helper.make_graph([helper.make_node("Identity", ["ci"], ["co"]), helper.make_node("Neg", ["a"], ["a_out"])],
                             "inner_rt", [vi("j", I64, []), vi("ci", BOOL, []), vi("a", F, [2, 3])],
                             [vi("co", BOOL, []), vi("a_out", F, [2, 3])])


def loop_ref(x, y0, iters):
    y, scans = y0, []
    for i in range(iters):
        y = y + x * np.float32(i)
        scans.append(y)
    return [y, np.stack(scans) if scans else np.zeros((0,) + y0.shape, np.float32)]


Y0 = rng.standard_normal((2, 3)).astype(np.float32)

# 4. Loop with a constant trip count: unrolled, the scan output stacked.
p = model("loop_const", [const("M", np.array(5, np.int64)),
                         helper.make_node("Loop", ["M", "", "y0"], ["y", "ys"], body=loop_body([]))],
          [x23, vi("y0", F, [2, 3])], [vi("y", F, [2, 3]), vi("ys", F, [5, 2, 3])])
check_runs("loop_const", p, [[X, Y0]], lambda ins: loop_ref(ins[0], ins[1], 5))

# 5. Loop whose body ends it early (cond_out = i < 3 stops after 4 iterations of 10).
early = [const("three", np.array(3, np.int64)), helper.make_node("Less", ["i", "three"], ["cond_out"])]
p = model("loop_early_exit", [const("M", np.array(10, np.int64)), const("go", np.array(True)),
                              helper.make_node("Loop", ["M", "go", "y0"], ["y", "ys"], body=loop_body(early, "x"))],
          [x23, vi("y0", F, [2, 3])], [vi("y", F, [2, 3]), vi("ys", F, None)])
check_runs("loop_early_exit", p, [[X, Y0]], lambda ins: loop_ref(ins[0], ins[1], 4))

# 6. Nested: a Loop whose body holds an If on a run-time condition and an If on i % 2.
inner_then = helper.make_graph([helper.make_node("Add", ["acc", "x"], ["a1"])], "it", [], [vi("a1", F, [2, 3])])
inner_else = helper.make_graph([helper.make_node("Sub", ["acc", "x"], ["a2"])], "ie", [], [vi("a2", F, [2, 3])])
par_then = helper.make_graph([helper.make_node("Abs", ["sel"], ["p1"])], "pt", [], [vi("p1", F, [2, 3])])
par_else = helper.make_graph([helper.make_node("Neg", ["sel"], ["p2"])], "pe", [], [vi("p2", F, [2, 3])])
nested_body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
     helper.make_node("If", ["c"], ["sel"], then_branch=inner_then, else_branch=inner_else),
     const("two_i", np.array(2, np.int64)), helper.make_node("Mod", ["i", "two_i"], ["par"]),
     const("zero_i", np.array(0, np.int64)), helper.make_node("Equal", ["par", "zero_i"], ["even"]),
     helper.make_node("If", ["even"], ["acc_out"], then_branch=par_then, else_branch=par_else)],
    "nbody", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("acc", F, [2, 3])],
    [vi("cond_out", BOOL, []), vi("acc_out", F, [2, 3])])
p = model("loop_nested_if", [const("M", np.array(3, np.int64)),
                             helper.make_node("Loop", ["M", "", "acc0"], ["acc"], body=nested_body)],
          [vi("c", BOOL, []), x23, vi("acc0", F, [2, 3])], [vi("acc", F, [2, 3])])


def nested_ref(ins):
    c, x, acc = ins
    for i in range(3):
        sel = acc + x if c else acc - x
        acc = np.abs(sel) if i % 2 == 0 else -sel
    return [acc]


check_runs("loop_nested_if", p, [[np.array(True), X, Y0], [np.array(False), X, Y0]], nested_ref)

# 7. Scan (opset 9+): two states, one input scanned backwards along axis 1, the scan output
#    stacked along axis 1.
scan_body = helper.make_graph(
    [helper.make_node("Add", ["s", "xt"], ["s_out"]), helper.make_node("Mul", ["m", "xt"], ["m_out"]),
     helper.make_node("Sub", ["s_out", "m_out"], ["o"])],
    "sbody", [vi("s", F, [2]), vi("m", F, [2]), vi("xt", F, [2])],
    [vi("s_out", F, [2]), vi("m_out", F, [2]), vi("o", F, [2])])
p = model("scan_reverse_axes", [helper.make_node("Scan", ["s0", "m0", "xs"], ["s", "m", "os"], body=scan_body,
                                                 num_scan_inputs=1, scan_input_axes=[1], scan_input_directions=[1],
                                                 scan_output_axes=[1])],
          [vi("s0", F, [2]), vi("m0", F, [2]), vi("xs", F, [2, 4])],
          [vi("s", F, [2]), vi("m", F, [2]), vi("os", F, [2, 4])], opset=16)


def scan_ref(ins):
    s, m, xs = ins
    outs = []
    for t in reversed(range(xs.shape[1])):
        xt = xs[:, t]
        s, m = s + xt, m * xt
        outs.append(s - m)
    return [s, m, np.stack(outs, axis=1)]


check_runs("scan_reverse_axes", p, [[rng.standard_normal(2).astype(np.float32), np.ones(2, np.float32),
                                     rng.standard_normal((2, 4)).astype(np.float32)]], scan_ref)

# 8. Loops that run in the runtime (docs/frontend-onnx.md, "Loops at run time"): a trip count
#    fed at run time, 0, 1 and 5 iterations through one .om; the scan output sized by the run.
p = model("loop_runtime_trip", [helper.make_node("Loop", ["M", "", "y0"], ["y", "ys"], body=loop_body([]))],
          [vi("M", I64, []), x23, vi("y0", F, [2, 3])], [vi("y", F, [2, 3]), vi("ys", F, None)])
check_runs("loop_runtime_trip", p, [[np.array(m, np.int64), X, Y0] for m in (0, 1, 5)],
           lambda ins: loop_ref(ins[1], ins[2], int(ins[0])))
# The same under the default precision mode (force_fp16): the body runs in float16, the loop's
# control and carried copies are unchanged.
r, om = compile_model("loop_runtime_fp16", p, ["--precision_mode=force_fp16"])
ok = r.returncode == 0
if ok:
    feeds = [np.array(4, np.int64), X, Y0]
    files = []
    for j, a in enumerate(feeds):
        files.append(os.path.join(WORK, "loop_fp16.in%d.npy" % j))
        np.save(files[-1], a)
    res = os.path.join(WORK, "loop_fp16.res")
    run = subprocess.run([BIN + "/omrun", "--model=" + om, "--input=" + ",".join(files), "--output=" + res],
                         capture_output=True, text=True)
    ok = run.returncode == 0
    if ok:
        want = loop_ref(X, Y0, 4)
        got = [np.load(os.path.join(res, "output_%d.npy" % i)) for i in range(2)]
        ok = all(g.shape == w.shape and np.allclose(g, w, rtol=1e-2, atol=1e-2) for g, w in zip(got, want))
report("loop_runtime_fp16", ok, (r.stdout + r.stderr)[-300:])

# A while loop: no trip count, the body's condition decides (double y until its sum passes a
# limit fed at run time); a value computed before the loop (z = Exp(x)) read in the body, an
# unrelated one (w = Neg(x)) computed outside it, and the scan output read by a Mul after it.
while_body = helper.make_graph(
    [helper.make_node("Add", ["y", "y"], ["y2"]), helper.make_node("Add", ["y2", "z"], ["y_out"]),
     helper.make_node("ReduceSum", ["y_out"], ["tot"], keepdims=0),
     helper.make_node("Less", ["tot", "lim"], ["cond_out"]),
     helper.make_node("Identity", ["tot"], ["scan"])],
    "wbody", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("y", F, [2, 3])],
    [vi("cond_out", BOOL, []), vi("y_out", F, [2, 3]), vi("scan", F, [])])
p = model("loop_while", [helper.make_node("Exp", ["x"], ["z"]), helper.make_node("Neg", ["x"], ["w"]),
                         const("go", np.array(True)),
                         helper.make_node("Loop", ["", "go", "y0"], ["y", "tots"], body=while_body),
                         const("two", np.array(2, np.float32)), helper.make_node("Mul", ["tots", "two"], ["tots2"])],
          [x23, vi("y0", F, [2, 3]), vi("lim", F, [])],
          [vi("y", F, [2, 3]), vi("tots2", F, None), vi("w", F, [2, 3])])


def while_ref(ins):
    x, y, lim = ins
    z, tots = np.exp(x), []
    while True:
        y = y + y + z
        tots.append(y.sum(dtype=np.float32))
        if not tots[-1] < lim:
            break
    return [y, 2 * np.array(tots, np.float32), -x]


Xp = np.abs(X)
check_runs("loop_while", p, [[Xp, Y0, np.array(lim, np.float32)] for lim in (-1e9, 50.0, 1e4)], while_ref)

# Two carried values that swap (a_out = b, b_out = a + 1): the runtime copies through a staging
# buffer, so neither is overwritten before it is read.
swap_body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Identity", ["b"], ["a_out"]),
     const("one", np.array(1, np.float32)), helper.make_node("Add", ["a", "one"], ["b_out"])],
    "sbody", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("a", F, [3]), vi("b", F, [3])],
    [vi("cond_out", BOOL, []), vi("a_out", F, [3]), vi("b_out", F, [3])])
p = model("loop_swap", [helper.make_node("Loop", ["M", "", "a0", "b0"], ["a", "b"], body=swap_body)],
          [vi("M", I64, []), vi("a0", F, [3]), vi("b0", F, [3])], [vi("a", F, [3]), vi("b", F, [3])])


def swap_ref(ins):
    a, b = ins[1], ins[2]
    for _ in range(int(ins[0])):
        a, b = b, a + 1
    return [a, b]


A3, B3 = np.arange(3, dtype=np.float32), 10 + np.arange(3, dtype=np.float32)
check_runs("loop_swap", p, [[np.array(m, np.int64), A3, B3] for m in (0, 1, 2, 7)], swap_ref)

# 9. A Loop past the unrolling budget (30,000 iterations) runs in the runtime instead.
max_body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Cast", ["i"], ["fi"], to=F),
     helper.make_node("Max", ["y", "fi"], ["y_out"]), helper.make_node("Identity", ["y_out"], ["scan"])],
    "mbody", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("y", F, [2, 3])],
    [vi("cond_out", BOOL, []), vi("y_out", F, [2, 3]), vi("scan", F, [2, 3])])
p = model("loop_too_long", [const("M", np.array(30000, np.int64)),
                            helper.make_node("Loop", ["M", "", "y0"], ["y", "ys"], body=max_body)],
          [vi("y0", F, [2, 3])], [vi("y", F, [2, 3]), vi("ys", F, None)])


def max_ref(ins):
    ys = np.maximum.accumulate(np.maximum(ins[0][None], np.arange(30000, dtype=np.float32)[:, None, None]), axis=0)
    return [ys[-1], ys]


check_runs("loop_too_long", p, [[Y0 * 100]], max_ref)

# A run-time loop inside another one's body (y negated M times, M times), and refused: a
# carried value whose shape the body changes.
outer_rt = helper.make_graph([helper.make_node("Identity", ["cond_in"], ["cond_out"]),
                             helper.make_node("Loop", ["M", "", "y"], ["y_out"], body=inner_body_rt())],
                            "obody", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("y", F, [2, 3])],
                            [vi("cond_out", BOOL, []), vi("y_out", F, [2, 3])])
p = model("loop_nested_runtime", [helper.make_node("Loop", ["M", "", "y0"], ["y"], body=outer_rt)],
          [vi("M", I64, []), vi("y0", F, [2, 3])], [vi("y", F, [2, 3])])
check_runs("loop_nested_runtime", p, [[np.array(m, np.int64), Y0] for m in (0, 1, 3)],
           lambda ins: [Y0 * (-1.0) ** (int(ins[0]) ** 2)])
grow_body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
     helper.make_node("Concat", ["y", "y"], ["y_out"], axis=0)],
    "gbody", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("y", F, [2, 3])],
    [vi("cond_out", BOOL, []), vi("y_out", F, None)])
p = model("loop_carried_grows", [helper.make_node("Loop", ["M", "", "y0"], ["y"], body=grow_body)],
          [vi("M", I64, []), vi("y0", F, [2, 3])], [vi("y", F, None)])
check_refused("loop_carried_grows", p, "E19010", "keeps each carried value's type and shape")
never_body = helper.make_graph(
    [const("yes", np.array(True)), helper.make_node("Identity", ["yes"], ["cond_out"]),
     helper.make_node("Neg", ["y"], ["y_out"])], "nbody",
    [vi("i", I64, []), vi("cond_in", BOOL, []), vi("y", F, [2, 3])], [vi("cond_out", BOOL, []), vi("y_out", F, [2, 3])])
p = model("loop_never_ends", [helper.make_node("Loop", ["", "c", "y0"], ["y"], body=never_body)],
          [vi("c", BOOL, []), vi("y0", F, [2, 3])], [vi("y", F, [2, 3])])
check_refused("loop_never_ends", p, "E19010", "it would never end")
# A carried value whose shape comes from data (a Slice up to the iteration number): checked at
# run time; a run that changes it fails with a message, the next run works.
slice_body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]), const("z1", np.array([0], np.int64)),
     const("o1", np.array(1, np.int64)), helper.make_node("Add", ["i", "o1"], ["e0"]),
     helper.make_node("Unsqueeze", ["e0", "z1"], ["e1"]), helper.make_node("Slice", ["v", "z1", "e1"], ["y_out"])],
    "slbody", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("y", F, [1])],
    [vi("cond_out", BOOL, []), vi("y_out", F, None)])
p = model("loop_carried_data_shape", [helper.make_node("Loop", ["M", "", "y0"], ["y"], body=slice_body)],
          [vi("M", I64, []), vi("v", F, [4]), vi("y0", F, [1])], [vi("y", F, [1])])
V4 = np.arange(4, dtype=np.float32) + 1
check_runs("loop_carried_data_shape", p, [[np.array(1, np.int64), V4, np.zeros(1, np.float32)]],
           lambda ins: [ins[1][:1]])
r, om = compile_model("loop_carried_data_shape2", p)
feeds = [np.array(3, np.int64), V4, np.zeros(1, np.float32)]
files = []
for j, a in enumerate(feeds):
    files.append(os.path.join(WORK, "lcds.in%d.npy" % j))
    np.save(files[-1], a)
run = subprocess.run([BIN + "/omrun", "--model=" + om, "--input=" + ",".join(files), "--output=" + WORK + "/lcds"],
                     capture_output=True, text=True)
report("loop_carried_data_shape_changes", run.returncode != 0 and "leaves the body with the shape [2]" in run.stderr,
       "rc %d: %s" % (run.returncode, (run.stdout + run.stderr)[-300:]))

# 9b. Nested loops: each fits the budget alone, together they do not (the importer counts).
inner_body = helper.make_graph([helper.make_node("Identity", ["ci"], ["co"]), helper.make_node("Neg", ["a"], ["a_out"])],
                               "inner", [vi("j", I64, []), vi("ci", BOOL, []), vi("a", F, [2, 3])],
                               [vi("co", BOOL, []), vi("a_out", F, [2, 3])])
outer_body = helper.make_graph([helper.make_node("Identity", ["cond_in"], ["cond_out"]), const("N", np.array(200, np.int64)),
                                helper.make_node("Loop", ["N", "", "y"], ["y_out"], body=inner_body)],
                               "outer", [vi("i", I64, []), vi("cond_in", BOOL, []), vi("y", F, [2, 3])],
                               [vi("cond_out", BOOL, []), vi("y_out", F, [2, 3])])
p = model("loop_nested_too_long", [const("M", np.array(200, np.int64)),
                                   helper.make_node("Loop", ["M", "", "y0"], ["y"], body=outer_body)],
          [vi("y0", F, [2, 3])], [vi("y", F, [2, 3])])
check_refused("loop_nested_too_long", p, "E19010", "control flow unrolls to more than")

# 10. An unsupported op inside a branch is reported with its path.
bad_op_g = helper.make_graph([helper.make_node("ImageDecoder", ["x"], ["u"])], "bo", [], [vi("u", F, None)])
p = model("if_unsupported_body", [helper.make_node("If", ["c"], ["y"], then_branch=ok_g, else_branch=bad_op_g)],
          [vi("c", BOOL, []), x23], [vi("y", F, [2, 3])])
check_refused("if_unsupported_body", p, "E19010", "If_0/ImageDecoder_0, ImageDecoder")



# 11. A TorchScript module (a recurrence over the first dim with a data-dependent branch)
#     exported by torch.onnx: Loop with an If inside, checked against PyTorch.
def torch_case():
    try:
        import torch
    except ImportError:
        print("SKIP torch_scripted_loop: python3 cannot import torch")
        return

    class Recur(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(8, 8)

        def forward(self, x):
            h = torch.zeros(x.size(1), 8)
            for t in range(x.size(0)):
                h = torch.tanh(self.lin(x[t]) + h)
                if bool(h.sum() > 0):
                    h = h * 0.5
                else:
                    h = h + 0.25
            return h

    torch.manual_seed(0)
    m = torch.jit.script(Recur())
    x = torch.randn(6, 2, 8)
    path = os.path.join(WORK, "torch_scripted_loop.onnx")
    torch.onnx.export(m, (x,), path, opset_version=13, input_names=["x"], output_names=["h"])
    ops = {n.op_type for n in onnx.load(path).graph.node}
    if "Loop" not in ops:
        return report("torch_scripted_loop", False, "the export has no Loop: " + str(sorted(ops)))
    with torch.no_grad():
        check_runs("torch_scripted_loop", path, [[x.numpy()]],
                   lambda ins: [m(torch.from_numpy(ins[0])).numpy()])


# Sequences (resolved at import): split x [2, 3] into columns, erase the middle one, insert
# 2 * x[:, :1] at the front, read element -1 and stack the rest on a new last axis.
p = model("sequence_ops", [
    const("one", np.array(1, np.int64)), const("zero", np.array(0, np.int64)), const("m1", np.array(-1, np.int64)),
    const("two", np.float32(2)),
    helper.make_node("SplitToSequence", ["x"], ["cols"], axis=1),
    helper.make_node("SequenceErase", ["cols", "one"], ["cols2"]),
    helper.make_node("SequenceAt", ["cols2", "zero"], ["c0"]),
    helper.make_node("Mul", ["c0", "two"], ["c0x2"]),
    helper.make_node("SequenceInsert", ["cols2", "c0x2", "zero"], ["cols3"]),
    helper.make_node("SequenceAt", ["cols3", "m1"], ["last"]),
    helper.make_node("ConcatFromSequence", ["cols3"], ["stacked"], axis=-1, new_axis=1),
    helper.make_node("SequenceLength", ["cols3"], ["n"])],
    [x23], [vi("last", F, [2, 1]), vi("stacked", F, [2, 1, 3]), vi("n", onnx.TensorProto.INT64, [])], opset=13)
check_runs("sequence_ops", p, [[X]], lambda ins: [
    ins[0][:, 2:3], np.stack([2 * ins[0][:, 0:1], ins[0][:, 0:1], ins[0][:, 2:3]], axis=-1), np.int64(3)])

# Sequences and optionals at the graph's edges (docs/frontend-onnx.md, "Sequences and
# optionals"): a sequence output is one output per element, named y[0], y[1], ...
seq_vi = helper.make_tensor_sequence_value_info
p = model("sequence_output", [helper.make_node("SplitToSequence", ["x"], ["cols"], axis=1)],
          [x23], [seq_vi("cols", F, None)], opset=13)
check_runs("sequence_output", p, [[rng.standard_normal((2, 3)).astype(np.float32)]],
           lambda ins: [ins[0][:, i:i + 1] for i in range(3)], names=["cols[0]", "cols[1]", "cols[2]"])
# A run-time If choosing between sequences of equal length: selected element by element.
seq_then = helper.make_graph([helper.make_node("Neg", ["x"], ["nx"]),
                              helper.make_node("SequenceConstruct", ["x", "nx"], ["s1"])], "st", [],
                             [seq_vi("s1", F, None)])
seq_else = helper.make_graph([helper.make_node("SequenceConstruct", ["x", "x"], ["s2"])], "se", [],
                             [seq_vi("s2", F, None)])
p = model("sequence_runtime_if", [helper.make_node("If", ["c"], ["s"], then_branch=seq_then, else_branch=seq_else)],
          [vi("c", BOOL, []), x23], [seq_vi("s", F, None)], opset=13)
x0 = rng.standard_normal((2, 3)).astype(np.float32)
check_runs("sequence_runtime_if", p, [[np.array(True), x0], [np.array(False), x0]],
           lambda ins: [ins[1], -ins[1] if ins[0] else ins[1]], names=["s[0]", "s[1]"])
seq_else1 = helper.make_graph([helper.make_node("SequenceConstruct", ["x"], ["s3"])], "se1", [],
                              [seq_vi("s3", F, None)])
p = model("sequence_runtime_if_lengths",
          [helper.make_node("If", ["c"], ["s"], then_branch=seq_then, else_branch=seq_else1)],
          [vi("c", BOOL, []), x23], [seq_vi("s", F, None)], opset=13)
# Sequences of different lengths: the If selects a sequence made at run time (a handle).
check_runs("sequence_runtime_if_lengths", p, [[np.array(True), x0], [np.array(False), x0]],
           lambda ins: [ins[1], -ins[1]] if ins[0] else [ins[1]],
           names=lambda ins: ["s[0]", "s[1]"] if ins[0] else ["s[0]"])
# A sequence input, declared element by element; SequenceMap adds a tensor to each element.
map_body = helper.make_graph([helper.make_node("Add", ["e", "t"], ["o"])], "mb", [vi("e", F, None), vi("t", F, [3])],
                             [vi("o", F, None)])
p = model("sequence_input_map", [helper.make_node("SequenceMap", ["s", "t"], ["m"], body=map_body),
                                 helper.make_node("ConcatFromSequence", ["m"], ["y"], axis=0)],
          [seq_vi("s", F, None), vi("t", F, [3])], [vi("y", F, None), seq_vi("m", F, None)], opset=17)
s0, s1, t0 = (rng.standard_normal(sh).astype(np.float32) for sh in [(2, 3), (4, 3), (3,)])
check_runs("sequence_input_map", p, [[s0, s1, t0]],
           lambda ins: [np.concatenate([ins[0] + ins[2], ins[1] + ins[2]]), ins[0] + ins[2], ins[1] + ins[2]],
           args=["--input_shape=s[0]:2,3;s[1]:4,3"], names=["y", "m[0]", "m[1]"])
check_refused("sequence_input_undeclared", p, "E10002", "does not say how many tensors it holds")
check_refused("sequence_input_gap", p, "E10002", "element 1 is missing", args=["--input_shape=s[0]:2,3;s[2]:4,3"])
# Optionals: an optional input holding a value or declared empty ("o[]:"); an optional output
# of a run-time If is o[has] and, when a branch gives one, o[value].
opt_vi = helper.make_tensor_value_info("o", F, [3])
opt_in = helper.make_value_info("o", helper.make_optional_type_proto(opt_vi.type))
p = model("optional_input", [helper.make_node("OptionalHasElement", ["o"], ["h"]),
                             helper.make_node("OptionalGetElement", ["o"], ["v"])],
          [opt_in], [vi("h", BOOL, []), vi("v", F, [3])], opset=18)
check_runs("optional_input", p, [[t0]], lambda ins: [np.array(True), ins[0]], names=["h", "v"])
check_refused("optional_input_empty", p, "E19010", "the optional it reads holds no value", args=["--input_shape=o[]:"])
p = model("optional_input_empty", [helper.make_node("OptionalHasElement", ["o"], ["h"])],
          [opt_in], [vi("h", BOOL, [])], opset=18)
check_runs("optional_input_has_none", p, [[]], lambda ins: [np.array(False)], args=["--input_shape=o[]:"])
opt_then = helper.make_graph([helper.make_node("Optional", ["x"], ["ot"])], "ot", [],
                             [helper.make_value_info("ot", helper.make_optional_type_proto(x23.type))])
opt_else = helper.make_graph([helper.make_node("Optional", [], ["oe"], type=x23.type)], "oe", [],
                             [helper.make_value_info("oe", helper.make_optional_type_proto(x23.type))])
p = model("optional_runtime_if", [helper.make_node("If", ["c"], ["r"], then_branch=opt_then, else_branch=opt_else)],
          [vi("c", BOOL, []), x23], [helper.make_value_info("r", helper.make_optional_type_proto(x23.type))], opset=18)
check_runs("optional_runtime_if", p, [[np.array(True), x0], [np.array(False), x0]],
           lambda ins: [np.array(bool(ins[0])), ins[1]], names=["r[has]", "r[value]"])

# Sequences made at run time (docs/frontend-onnx.md, "Sequences at run time").
# A loop with a run-time trip count appends x[:i+1] (a shape that grows) each iteration.
def growing_body(extra=()):
    return helper.make_graph([
        helper.make_node("Identity", ["ci"], ["co"]), const("one", np.array([1], np.int64)),
        const("zero1", np.array([0], np.int64)), helper.make_node("Unsqueeze", ["i", "zero1"], ["i1"]),
        helper.make_node("Add", ["i1", "one"], ["end"]), helper.make_node("Slice", ["v", "zero1", "end"], ["part"]),
        helper.make_node("SequenceInsert", ["s", "part"], ["s_out"])] + list(extra), "grow",
        [vi("i", I64, []), vi("ci", BOOL, []), seq_vi("s", F, None)], [vi("co", BOOL, []), seq_vi("s_out", F, None)])


V = np.arange(1, 7, dtype=np.float32)
grow_nodes = [const("v", V), helper.make_node("SequenceEmpty", [], ["s0"], dtype=F),
              helper.make_node("Loop", ["m", "", "s0"], ["s"], body=growing_body()),
              helper.make_node("SequenceLength", ["s"], ["n"])]
p = model("sequence_runtime_loop", grow_nodes, [vi("m", I64, [])], [seq_vi("s", F, None), vi("n", I64, [])])
for prec in ["must_keep_origin_dtype", "force_fp16"]:
    check_runs("sequence_runtime_loop_" + prec, p, [[np.array(k, np.int64)] for k in (0, 1, 4)],
               lambda ins: [V[:j + 1] for j in range(int(ins[0]))] + [np.int64(ins[0])],
               names=lambda ins: ["s[%d]" % j for j in range(int(ins[0]))] + ["n"],
               args=["--precision_mode=" + prec])
# SequenceInsert at a position fed at run time, into a declared sequence input; a position
# outside [-n, n] fails that run with the reason, and the next run works.
p = model("sequence_insert_runtime", [helper.make_node("SequenceInsert", ["s", "t", "pos"], ["r"])],
          [seq_vi("s", F, None), vi("t", F, [3]), vi("pos", I64, [])], [seq_vi("r", F, None)])
s0, s1, t0 = (rng.standard_normal(sh).astype(np.float32) for sh in [(2,), (4,), (3,)])
for pos in (0, 1, 2, -1, -2):
    check_runs("sequence_insert_runtime_at_%d" % pos, p, [[s0, s1, t0, np.array(pos, np.int64)]],
               lambda ins: (lambda l: l.insert(pos if pos >= 0 else pos + 2, ins[2]) or l)([ins[0], ins[1]]),
               args=["--input_shape=s[0]:2;s[1]:4"])


def run_fails(name, om, ins, phrase):
    files = []
    for j, a in enumerate(ins):
        files.append(os.path.join(WORK, "%s.in%d.npy" % (name, j)))
        np.save(files[-1], a)
    r = subprocess.run([BIN + "/omrun", "--model=" + om, "--input=" + ",".join(files),
                        "--output=" + os.path.join(WORK, name + ".res")], capture_output=True, text=True)
    text = r.stdout + r.stderr
    report(name, r.returncode != 0 and phrase in text, "rc %d: %s" % (r.returncode, text[-300:]))


run_fails("sequence_insert_runtime_bad_position", os.path.join(WORK, "sequence_insert_runtime_at_0.om"),
          [s0, s1, t0, np.array(3, np.int64)], "the position 3 is outside [-2, 2] for a sequence of 2 tensors")
# An optional carried by the loop, empty at first (test_loop16_seq_none's pattern): the body
# starts a sequence when the optional holds none and extends it otherwise.
opt_seq = helper.make_optional_type_proto(helper.make_sequence_type_proto(helper.make_tensor_type_proto(F, None)))
start_g = helper.make_graph([const("z", np.float32(0)), helper.make_node("SequenceConstruct", ["z"], ["fresh"])],
                            "start", [], [seq_vi("fresh", F, None)])
keep_g = helper.make_graph([helper.make_node("OptionalGetElement", ["o"], ["kept"])], "keep", [],
                           [seq_vi("kept", F, None)])
opt_body = helper.make_graph([
    helper.make_node("Identity", ["ci"], ["co"]), helper.make_node("OptionalHasElement", ["o"], ["has"]),
    helper.make_node("Not", ["has"], ["none"]),
    helper.make_node("If", ["none"], ["s"], then_branch=start_g, else_branch=keep_g),
    helper.make_node("Cast", ["i"], ["fi"], to=F), helper.make_node("SequenceInsert", ["s", "fi"], ["s_out"])],
    "ob", [vi("i", I64, []), vi("ci", BOOL, []), helper.make_value_info("o", opt_seq)],
    [vi("co", BOOL, []), seq_vi("s_out", F, None)])
p = model("sequence_runtime_optional", [
    helper.make_node("Optional", [], ["o0"], type=opt_seq.optional_type.elem_type),
    helper.make_node("Loop", ["m", "", "o0"], ["r"], body=opt_body)],
    [vi("m", I64, [])], [seq_vi("r", F, None)], opset=18)
check_runs("sequence_runtime_optional", p, [[np.array(k, np.int64)] for k in (1, 3)],
           lambda ins: [np.float32(0)] + [np.float32(j) for j in range(int(ins[0]))])
run_fails("sequence_runtime_optional_none", os.path.join(WORK, "sequence_runtime_optional.om"),
          [np.array(0, np.int64)], "does not exist on this run (an empty optional)")
# Reading a sequence made at run time after the loop: SequenceAt at a position fed at run time
# (a run-sized tensor: the elements' lengths differ), ConcatFromSequence (run-sized), and
# SequenceErase; the sequence with its last element erased is an output too.
p = model("sequence_runtime_read", grow_nodes[:3] + [
    helper.make_node("SequenceAt", ["s", "k"], ["e"]), helper.make_node("ConcatFromSequence", ["s"], ["cat"], axis=0),
    helper.make_node("SequenceErase", ["s"], ["shorter"]), helper.make_node("Neg", ["e"], ["neg_e"])],
    [vi("m", I64, []), vi("k", I64, [])], [vi("neg_e", F, None), vi("cat", F, None), seq_vi("shorter", F, None)])
check_runs("sequence_runtime_read", p, [[np.array(m, np.int64), np.array(k, np.int64)] for m, k in ((3, 0), (4, -1))],
           lambda ins: [-V[:(int(ins[1]) % int(ins[0])) + 1], np.concatenate([V[:j + 1] for j in range(int(ins[0]))])] +
           [V[:j + 1] for j in range(int(ins[0]) - 1)])
run_fails("sequence_runtime_read_bad_position", os.path.join(WORK, "sequence_runtime_read.om"),
          [np.array(2, np.int64), np.array(2, np.int64)], "the position 2 is outside [-2, 1]")
run_fails("sequence_runtime_read_empty", os.path.join(WORK, "sequence_runtime_read.om"),
          [np.array(0, np.int64), np.array(0, np.int64)], "outside [0, -1] for a sequence of 0 tensors")
# Elements of one static shape: SequenceAt at a run-time position gives a static tensor, which
# any op reads; ConcatFromSequence with new_axis stacks them.
p = model("sequence_position_static", [
    helper.make_node("SequenceConstruct", ["a", "b", "c"], ["s"]), helper.make_node("SequenceAt", ["s", "k"], ["e"]),
    helper.make_node("MatMul", ["e", "w"], ["y"]),
    helper.make_node("SequenceInsert", ["s", "a", "k"], ["s2"]),
    helper.make_node("ConcatFromSequence", ["s2"], ["st"], axis=1, new_axis=1)],
    [vi("a", F, [2, 3]), vi("b", F, [2, 3]), vi("c", F, [2, 3]), vi("k", I64, []), vi("w", F, [3, 4])],
    [vi("y", F, [2, 4]), vi("st", F, None)])
A, B, C, W = (rng.standard_normal(sh).astype(np.float32) for sh in [(2, 3), (2, 3), (2, 3), (3, 4)])
check_runs("sequence_position_static", p, [[A, B, C, np.array(k, np.int64), W] for k in (0, 2, -2)],
           lambda ins: [[A, B, C][int(ins[3])] @ W,
                        np.stack((lambda l: l.insert(int(ins[3]) % 3 if int(ins[3]) < 0 else int(ins[3]), A) or l)(
                            [A, B, C]), axis=1)])
# SplitToSequence by sizes fed at run time; the pieces' lengths, and their sum checked per run.
p = model("sequence_split_runtime", [
    helper.make_node("SplitToSequence", ["x", "sizes"], ["s"], axis=1),
    helper.make_node("SequenceLength", ["s"], ["n"]), helper.make_node("SequenceAt", ["s", "k"], ["e"])],
    [vi("x", F, [2, 5]), vi("sizes", I64, [3]), vi("k", I64, [])], [vi("n", I64, []), vi("e", F, None)])
X5 = rng.standard_normal((2, 5)).astype(np.float32)
check_runs("sequence_split_runtime", p, [[X5, np.array(sz, np.int64), np.array(1, np.int64)]
                                          for sz in ([1, 2, 2], [0, 5, 0])],
           lambda ins: [np.int64(3), X5[:, int(ins[1][0]):int(ins[1][0] + ins[1][1])]])
run_fails("sequence_split_runtime_bad_sum", os.path.join(WORK, "sequence_split_runtime.om"),
          [X5, np.array([1, 1, 1], np.int64), np.array(0, np.int64)], "the split sizes sum to 3, the axis has 5")
# A run-sized tensor (Expand to a shape fed at run time) inserted at a run-time position.
p = model("sequence_run_sized_element", [
    helper.make_node("Expand", ["x", "shape"], ["big"]), helper.make_node("SequenceConstruct", ["x"], ["s"]),
    helper.make_node("SequenceInsert", ["s", "big", "k"], ["s2"])],
    [vi("x", F, [1, 3]), vi("shape", I64, [2]), vi("k", I64, [])], [seq_vi("s2", F, None)])
X13 = rng.standard_normal((1, 3)).astype(np.float32)
check_runs("sequence_run_sized_element", p, [[X13, np.array(sh, np.int64), np.array(0, np.int64)]
                                             for sh in ([4, 3], [2, 1])],
           lambda ins: [X13 * np.ones(tuple(ins[1]), np.float32), X13])
# Bad input: a float position (E10041, naming the model's node); a loop-carried sequence the body
# turns into a tensor; a scan output that is a sequence (E19010 with the reason); no .om.
p = model("sequence_float_position", [helper.make_node("SequenceConstruct", ["a"], ["s"]),
                                      helper.make_node("SequenceInsert", ["s", "a", "k"], ["s2"])],
          [vi("a", F, [2]), vi("k", F, [])], [seq_vi("s2", F, None)])
check_refused("sequence_float_position", p, "E10041", "node [SequenceInsert_1] (SequenceInsert) has a position")
tensor_body = helper.make_graph([helper.make_node("Identity", ["ci"], ["co"]), const("t", np.float32(1))], "tb",
                                [vi("i", I64, []), vi("ci", BOOL, []), seq_vi("s", F, None)],
                                [vi("co", BOOL, []), vi("t", F, [])])
p = model("sequence_carried_becomes_tensor", [helper.make_node("SequenceEmpty", [], ["s0"], dtype=F),
                                              helper.make_node("Loop", ["m", "", "s0"], ["s"], body=tensor_body)],
          [vi("m", I64, [])], [vi("s", F, None)])
check_refused("sequence_carried_becomes_tensor", p, "E19010", "enters the body as a sequence or optional")
scan_seq_body = helper.make_graph([helper.make_node("Identity", ["ci"], ["co"]),
                                   helper.make_node("SequenceConstruct", ["x1"], ["sq"])], "ssb",
                                  [vi("i", I64, []), vi("ci", BOOL, [])], [vi("co", BOOL, []), seq_vi("sq", F, None)])
p = model("sequence_scan_output", [helper.make_node("Loop", ["m", ""], ["s"], body=scan_seq_body)],
          [vi("m", I64, []), vi("x1", F, [2])], [seq_vi("s", F, None)])
check_refused("sequence_scan_output", p, "E19010", "gives a sequence or an optional as scan output 0")
# Inside the loop that grows it, the sequence's tensors are not known yet: refused.
p = model("sequence_runtime_read_in_body", [
    const("v", V), helper.make_node("SequenceEmpty", [], ["s0"], dtype=F),
    helper.make_node("Loop", ["m", "", "s0"], ["s"], body=growing_body([
        const("zero", np.array(0, np.int64)), helper.make_node("SequenceAt", ["s_out", "zero"], ["first"])]))],
    [vi("m", I64, [])], [seq_vi("s", F, None)])
check_refused("sequence_runtime_read_in_body", p, "E19010", "are not known inside the loop that makes them")

torch_case()
print("%d failed" % failures)
sys.exit(1 if failures else 0)
