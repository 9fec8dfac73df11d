"""TF1 while loops as freezing leaves them (control_flow_ops.while_loop, v1): per loop variable
Enter -> Merge(Enter, NextIteration) -> Switch(Merge, LoopCond) -> Identity (body) / Exit,
loop invariants through Enter(is_constant=True), body constants hung on the pivot
`while/Identity` by a control input; and dynamic_rnn's TensorArrays (input scattered outside
the loop, read at `time` inside, outputs written inside and gathered after the loop, the trip
count read from the input's shape). References are numpy loops."""
import numpy as np

from cases import case, rnd

RESOURCE = 20  # DT_RESOURCE


def while_loop(g, scope, inits, dtypes, cond_fn, body_fn):
    """inits: names of the initial values; cond_fn(enter, merges) -> bool tensor name;
    body_fn(enter, identities, pivot) -> names of the next values. Returns the Exit names."""
    frame = scope + "/while_context"

    def enter(name, x, dt=np.float32):
        g.op("Enter", name, [x], T=dt, frame_name=frame, is_constant=True, parallel_iterations=10)
        return name

    sfx = ["" if i == 0 else f"_{i}" for i in range(len(inits))]
    for s, x, dt in zip(sfx, inits, dtypes):
        g.op("Enter", f"{scope}/Enter{s}", [x], T=dt, frame_name=frame, is_constant=False, parallel_iterations=10)
        g.op("Merge", f"{scope}/Merge{s}", [f"{scope}/Enter{s}", f"{scope}/NextIteration{s}"], T=dt, N=2)
    c = cond_fn(enter, [f"{scope}/Merge{s}" for s in sfx])
    g.op("LoopCond", f"{scope}/LoopCond", [c], T=None)
    for s, dt in zip(sfx, dtypes):
        g.op("Switch", f"{scope}/Switch{s}", [f"{scope}/Merge{s}", f"{scope}/LoopCond"], T=dt)
        g.op("Identity", f"{scope}/Identity{s}", [f"{scope}/Switch{s}:1"], T=dt)
        g.op("Exit", f"{scope}/Exit{s}", [f"{scope}/Switch{s}"], T=dt)
    nexts = body_fn(enter, [f"{scope}/Identity{s}" for s in sfx], "^" + scope + "/Identity")
    for s, nx, dt in zip(sfx, nexts, dtypes):
        g.op("NextIteration", f"{scope}/NextIteration{s}", [nx], T=dt)
    return [f"{scope}/Exit{s}" for s in sfx]


def body_const(g, name, value, pivot):
    g.const(name, value)
    g.gd.node[-1].input.append(pivot)
    return name


@case("while_constant_trip")
def _(g):
    """i, x = 0, x0; while i < 5: x = x * 0.5 + w; i += 1 (w a loop invariant)."""
    x0, w = rnd(2, 3), rnd(2, 3)
    g.placeholder("x", x0.shape)
    g.const("w", w)
    g.const("i0", np.int32(0))
    g.const("n", np.int32(5))

    def cond(enter, m):
        return g.op("Less", "while/Less", [m[0], enter("while/Less/Enter", "n", np.int32)], T=np.int32)

    def body(enter, ids, pivot):
        g.op("Mul", "while/mul", [ids[1], body_const(g, "while/mul/y", np.float32(0.5), pivot)])
        g.op("AddV2", "while/add", ["while/mul", enter("while/add/Enter", "w")])
        g.op("AddV2", "while/add_1", [ids[0], body_const(g, "while/add_1/y", np.int32(1), pivot)], T=np.int32)
        return ["while/add_1", "while/add"]

    exits = while_loop(g, "while", ["i0", "x"], [np.int32, np.float32], cond, body)
    g.op("Identity", "out", [exits[1]])
    y = x0.astype(np.float64)
    for _ in range(5):
        y = y * 0.5 + w
    return {"x": x0}, [("out:0", y), (exits[0] + ":0", np.int32(5))]


@case("while_early_exit_on_value")
def _(g):
    """while s < 10: s = s * 2 + 1, starting at a constant: 0, 1, 3, 7, 15 (4 iterations);
    the input is carried and doubled each time."""
    x0 = rnd(4)
    g.placeholder("x", x0.shape)
    g.const("s0", np.float32(0))

    def cond(enter, m):
        return g.op("Less", "loop/Less", [m[0], body_const(g, "loop/Less/y", np.float32(10), "^" + m[0])])

    def body(enter, ids, pivot):
        g.op("Mul", "loop/mul", [ids[0], body_const(g, "loop/two", np.float32(2), pivot)])
        g.op("AddV2", "loop/add", ["loop/mul", body_const(g, "loop/one", np.float32(1), pivot)])
        g.op("AddV2", "loop/dbl", [ids[1], ids[1]])
        return ["loop/add", "loop/dbl"]

    exits = while_loop(g, "loop", ["s0", "x"], [np.float32, np.float32], cond, body)
    return {"x": x0}, [(exits[1] + ":0", x0.astype(np.float64) * 16), (exits[0] + ":0", np.float32(15))]


@case("while_runtime_limit")
def _(g):
    """The trip count fed at run time (n = 7): i, x = 0, x0; while i < n: x = x * 0.5 + w; i += 1.
    The loop runs in the runtime (docs/frontend-tf.md)."""
    x0, w = rnd(2, 3), rnd(2, 3)
    g.placeholder("x", x0.shape)
    g.placeholder("n", (), np.int32)
    g.const("w", w)
    g.const("i0", np.int32(0))

    def cond(enter, m):
        return g.op("Less", "rt/Less", [m[0], enter("rt/Less/Enter", "n", np.int32)], T=np.int32)

    def body(enter, ids, pivot):
        g.op("Mul", "rt/mul", [ids[1], body_const(g, "rt/mul/y", np.float32(0.5), pivot)])
        g.op("AddV2", "rt/add", ["rt/mul", enter("rt/add/Enter", "w")])
        g.op("AddV2", "rt/add_1", [ids[0], body_const(g, "rt/add_1/y", np.int32(1), pivot)], T=np.int32)
        return ["rt/add_1", "rt/add"]

    exits = while_loop(g, "rt", ["i0", "x"], [np.int32, np.float32], cond, body)
    y = x0.astype(np.float64)
    for _ in range(7):
        y = y * 0.5 + w
    return {"x": x0, "n": np.int32(7)}, [(exits[1] + ":0", y), (exits[0] + ":0", np.int32(7))]


@case("while_runtime_value_exit")
def _(g):
    """An exit decided by run-time values: while sum(x) < lim: x = x * 2 (lim fed at run time);
    the condition on the initial value is checked before the first iteration."""
    x0 = np.abs(rnd(4)) + 0.1
    g.placeholder("x", x0.shape)
    g.placeholder("lim", ())

    def cond(enter, m):
        g.op("Sum", "rv/sum", [m[0], body_const(g, "rv/axis", np.int32(0), "^" + m[0])], Tidx=np.int32)
        return g.op("Less", "rv/Less", ["rv/sum", enter("rv/Less/Enter", "lim")])

    def body(enter, ids, pivot):
        g.op("AddV2", "rv/dbl", [ids[0], ids[0]])
        return ["rv/dbl"]

    exits = while_loop(g, "rv", ["x"], [np.float32], cond, body)
    y = x0.astype(np.float64)
    while y.sum() < 50:
        y = y * 2
    return {"x": x0, "lim": np.float32(50)}, [(exits[0] + ":0", y)]


def dynamic_rnn(g, steps, batch, dim, hidden, seq=None):
    """outputs, state = tf.nn.dynamic_rnn(BasicRNNCell(hidden), x, time_major=True): the trip
    count is the input's first dim, read through Shape -> StridedSlice. With `seq`
    (sequence_length=seq_len, fed at run time) the loop runs min(steps, max(1, max(seq_len)))
    iterations, a number only a run knows, so it runs in the runtime with its TensorArrays as
    dense tensors; a finished sequence's output is zero and its state copied (Select with a
    [batch] condition: rows); the outputs past the last iteration stack as zeros."""
    x = rnd(steps, batch, dim)
    wx, wh, b = rnd(dim, hidden) * 0.5, rnd(hidden, hidden) * 0.5, rnd(hidden)
    g.placeholder("x", x.shape)
    g.const("rnn/Wx", wx)
    g.const("rnn/Wh", wh)
    g.const("rnn/b", b)
    g.op("Shape", "rnn/Shape", ["x"], T=np.float32, out_type=np.int32)
    for k, v in (("begin", [0]), ("end", [1]), ("strides", [1])):
        g.const("rnn/strided_slice/" + k, np.array(v, np.int32))
    g.op("StridedSlice", "rnn/strided_slice", ["rnn/Shape", "rnn/strided_slice/begin", "rnn/strided_slice/end",
                                               "rnn/strided_slice/strides"], T=np.int32, Index=np.int32,
         shrink_axis_mask=1, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0)
    steps_t = bound = "rnn/strided_slice"
    if seq is not None:
        seq = np.array(seq, np.int32)
        g.placeholder("seq_len", (batch,), np.int32)
        g.const("rnn/one", np.int32(1))
        g.const("rnn/axis0", np.int32(0))
        g.op("Max", "rnn/max_len", ["seq_len", "rnn/axis0"], T=np.int32, Tidx=np.int32, keep_dims=False)
        g.op("Maximum", "rnn/at_least_one", ["rnn/one", "rnn/max_len"], T=np.int32)
        bound = g.op("Minimum", "rnn/bound", [steps_t, "rnn/at_least_one"], T=np.int32)
    g.const("rnn/h0", np.zeros((batch, hidden), np.float32))
    g.const("rnn/time", np.int32(0))
    for ta in ("rnn/TensorArray", "rnn/TensorArray_1"):
        g.op("TensorArrayV3", ta, [steps_t], T=None, dtype=np.float32, dynamic_size=False, clear_after_read=True,
             identical_element_shapes=True, tensor_array_name="")
    g.const("rnn/range/start", np.int32(0))
    g.const("rnn/range/delta", np.int32(1))
    g.op("Range", "rnn/range", ["rnn/range/start", steps_t, "rnn/range/delta"], T=None, Tidx=np.int32)
    g.op("TensorArrayScatterV3", "rnn/unstack", ["rnn/TensorArray_1", "rnn/range", "x", "rnn/TensorArray_1:1"])

    def cond(enter, m):
        return g.op("Less", "rnn/while/Less", [m[0], enter("rnn/while/Less/Enter", bound, np.int32)], T=np.int32)

    def body(enter, ids, pivot):
        time, flow, h = ids
        g.op("TensorArrayReadV3", "rnn/while/read", [enter("rnn/while/read/Enter", "rnn/TensorArray_1", RESOURCE), time,
                                                     enter("rnn/while/read/Enter_1", "rnn/unstack")], T=None,
             dtype=np.float32)
        g.op("MatMul", "rnn/while/mx", ["rnn/while/read", enter("rnn/while/Wx", "rnn/Wx")], transpose_a=False,
             transpose_b=False)
        g.op("MatMul", "rnn/while/mh", [h, enter("rnn/while/Wh", "rnn/Wh")], transpose_a=False, transpose_b=False)
        g.op("AddV2", "rnn/while/sum", ["rnn/while/mx", "rnn/while/mh"])
        g.op("BiasAdd", "rnn/while/biased", ["rnn/while/sum", enter("rnn/while/b", "rnn/b")], data_format="NHWC")
        out = state = g.op("Tanh", "rnn/while/h", ["rnn/while/biased"])
        if seq is not None:
            g.op("GreaterEqual", "rnn/while/copy", [time, enter("rnn/while/seq_len", "seq_len", np.int32)], T=np.int32)
            zeros = body_const(g, "rnn/while/zeros", np.zeros((batch, hidden), np.float32), pivot)
            out = g.op("Select", "rnn/while/out", ["rnn/while/copy", zeros, "rnn/while/h"])
            state = g.op("Select", "rnn/while/state", ["rnn/while/copy", h, "rnn/while/h"])
        g.op("TensorArrayWriteV3", "rnn/while/write", [enter("rnn/while/write/Enter", "rnn/TensorArray", RESOURCE),
                                                       time, out, flow])
        g.op("AddV2", "rnn/while/time", [time, body_const(g, "rnn/while/one", np.int32(1), pivot)], T=np.int32)
        return ["rnn/while/time", "rnn/while/write", state]

    exits = while_loop(g, "rnn/while", ["rnn/time", "rnn/TensorArray:1", "rnn/h0"],
                       [np.int32, np.float32, np.float32], cond, body)
    g.op("TensorArraySizeV3", "rnn/size", ["rnn/TensorArray", exits[1]], T=None)
    g.op("Range", "rnn/range_1", ["rnn/range/start", "rnn/size", "rnn/range/delta"], T=None, Tidx=np.int32)
    g.op("TensorArrayGatherV3", "rnn/stack", ["rnn/TensorArray", "rnn/range_1", exits[1]], T=None, dtype=np.float32)
    g.op("Identity", "outputs", ["rnn/stack"])
    g.op("Identity", "state", [exits[2]])
    outs, h = np.zeros((steps, batch, hidden)), np.zeros((batch, hidden))
    lens = np.full(batch, steps) if seq is None else seq
    for t in range(min(steps, max(1, int(lens.max())))):
        new = np.tanh(x[t].astype(np.float64) @ wx + h @ wh + b)
        done = (t >= lens)[:, None]
        outs[t] = np.where(done, 0.0, new)
        h = np.where(done, h, new)
    feeds = {"x": x} if seq is None else {"x": x, "seq_len": seq}
    return feeds, [("outputs:0", outs), ("state:0", h)]


case("while_dynamic_rnn_7_steps")(lambda g: dynamic_rnn(g, 7, 2, 3, 5))
case("while_dynamic_rnn_20_steps")(lambda g: dynamic_rnn(g, 20, 1, 10, 16))
case("while_dynamic_rnn_sequence_length")(lambda g: dynamic_rnn(g, 6, 3, 4, 5, [4, 2, 3]))
case("while_dynamic_rnn_sequence_length_full")(lambda g: dynamic_rnn(g, 6, 3, 4, 5, [6, 1, 6]))
case("while_dynamic_rnn_sequence_length_zero")(lambda g: dynamic_rnn(g, 6, 3, 4, 5, [0, 0, 0]))


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@case("while_kws_gru_crnn_tail")
def _(g):
    """The recurrent half of a keyword-spotting CRNN: batch-major MFCC frames [1, 20, 10],
    transposed to time-major, `tf.nn.dynamic_rnn(GRUCell(16))` as TF 1.x builds it (loop
    variables: the maximum_iterations counter, time, the output TensorArray's flow, the state;
    condition LogicalAnd(time < steps, counter < steps)), the last state through a dense
    layer into `labels_softmax`."""
    steps, feat, hid, labels = 20, 10, 16, 12
    x = rnd(1, steps, feat)
    wg, bg = rnd(feat + hid, 2 * hid) * 0.4, np.ones(2 * hid, np.float32)  # GRUCell: gate bias 1.0
    wc, bc = rnd(feat + hid, hid) * 0.4, np.zeros(hid, np.float32)
    wd, bd = rnd(hid, labels), rnd(labels) * 0.1
    g.placeholder("Mfcc", x.shape)
    for name, v in (("gates/kernel", wg), ("gates/bias", bg), ("candidate/kernel", wc), ("candidate/bias", bc),
                    ("fc/W", wd), ("fc/b", bd)):
        g.const(name, v)
        g.op("Identity", name + "/read", [name])
    g.const("rnn/perm", np.array([1, 0, 2], np.int32))
    g.op("Transpose", "rnn/transpose", ["Mfcc", "rnn/perm"], Tperm=np.int32)
    g.op("Shape", "rnn/Shape", ["rnn/transpose"], out_type=np.int32)
    for k, v in (("begin", [0]), ("end", [1]), ("strides", [1])):
        g.const("rnn/ss/" + k, np.array(v, np.int32))
    g.op("StridedSlice", "rnn/steps", ["rnn/Shape", "rnn/ss/begin", "rnn/ss/end", "rnn/ss/strides"], T=np.int32,
         Index=np.int32, shrink_axis_mask=1, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0)
    g.const("rnn/zeros", np.zeros((1, hid), np.float32))
    g.const("rnn/zero", np.int32(0))
    g.const("rnn/one", np.int32(1))
    for ta in ("rnn/TensorArray", "rnn/TensorArray_1"):
        g.op("TensorArrayV3", ta, ["rnn/steps"], T=None, dtype=np.float32, dynamic_size=False, clear_after_read=True,
             identical_element_shapes=True, tensor_array_name="")
    g.op("Range", "rnn/unstack/range", ["rnn/zero", "rnn/steps", "rnn/one"], T=None, Tidx=np.int32)
    g.op("TensorArrayScatterV3", "rnn/unstack", ["rnn/TensorArray_1", "rnn/unstack/range", "rnn/transpose",
                                                 "rnn/TensorArray_1:1"])

    def cond(enter, m):
        lim = enter("rnn/while/Less/Enter", "rnn/steps", np.int32)
        g.op("Less", "rnn/while/Less", [m[0], lim], T=np.int32)
        g.op("Less", "rnn/while/Less_1", [m[1], lim], T=np.int32)
        return g.op("LogicalAnd", "rnn/while/LogicalAnd", ["rnn/while/Less", "rnn/while/Less_1"], T=None)

    def body(enter, ids, pivot):
        it, time, flow, h = ids
        one = body_const(g, "rnn/while/add/y", np.int32(1), pivot)
        g.op("AddV2", "rnn/while/add", [it, one], T=np.int32)
        g.op("TensorArrayReadV3", "rnn/while/read", [enter("rnn/while/read/Enter", "rnn/TensorArray_1", RESOURCE),
                                                     time, enter("rnn/while/read/Enter_1", "rnn/unstack")],
             T=None, dtype=np.float32)
        axis = body_const(g, "rnn/while/gru/axis", np.int32(1), pivot)
        g.op("ConcatV2", "rnn/while/gru/concat", ["rnn/while/read", h, axis], N=2, Tidx=np.int32)
        g.op("MatMul", "rnn/while/gru/gates", ["rnn/while/gru/concat", enter("rnn/while/gk", "gates/kernel/read")],
             transpose_a=False, transpose_b=False)
        g.op("BiasAdd", "rnn/while/gru/gates_b", ["rnn/while/gru/gates", enter("rnn/while/gb", "gates/bias/read")],
             data_format="NHWC")
        g.op("Sigmoid", "rnn/while/gru/value", ["rnn/while/gru/gates_b"])
        g.op("Split", "rnn/while/gru/split", [axis, "rnn/while/gru/value"], num_split=2)
        g.op("Mul", "rnn/while/gru/r_state", ["rnn/while/gru/split", h])
        g.op("ConcatV2", "rnn/while/gru/concat_1", ["rnn/while/read", "rnn/while/gru/r_state", axis], N=2,
             Tidx=np.int32)
        g.op("MatMul", "rnn/while/gru/cand", ["rnn/while/gru/concat_1", enter("rnn/while/ck", "candidate/kernel/read")],
             transpose_a=False, transpose_b=False)
        g.op("BiasAdd", "rnn/while/gru/cand_b", ["rnn/while/gru/cand", enter("rnn/while/cb", "candidate/bias/read")],
             data_format="NHWC")
        g.op("Tanh", "rnn/while/gru/c", ["rnn/while/gru/cand_b"])
        g.op("Mul", "rnn/while/gru/mul_1", ["rnn/while/gru/split:1", h])
        g.op("Sub", "rnn/while/gru/sub", [body_const(g, "rnn/while/gru/one", np.float32(1), pivot),
                                          "rnn/while/gru/split:1"])
        g.op("Mul", "rnn/while/gru/mul_2", ["rnn/while/gru/sub", "rnn/while/gru/c"])
        g.op("AddV2", "rnn/while/gru/h", ["rnn/while/gru/mul_1", "rnn/while/gru/mul_2"])
        g.op("TensorArrayWriteV3", "rnn/while/write", [enter("rnn/while/write/Enter", "rnn/TensorArray", RESOURCE),
                                                       time, "rnn/while/gru/h", flow])
        g.op("AddV2", "rnn/while/add_1", [time, one], T=np.int32)
        return ["rnn/while/add", "rnn/while/add_1", "rnn/while/write", "rnn/while/gru/h"]

    exits = while_loop(g, "rnn/while", ["rnn/zero", "rnn/zero", "rnn/TensorArray:1", "rnn/zeros"],
                       [np.int32, np.int32, np.float32, np.float32], cond, body)
    g.op("MatMul", "fc/MatMul", [exits[3], "fc/W/read"], transpose_a=False, transpose_b=False)
    g.op("Add", "fc/add", ["fc/MatMul", "fc/b/read"])
    g.op("Softmax", "labels_softmax", ["fc/add"])
    h = np.zeros((1, hid))
    xt = x.astype(np.float64).transpose(1, 0, 2)
    for t in range(steps):
        v = sigmoid(np.concatenate([xt[t], h], 1) @ wg + bg)
        r, u = v[:, :hid], v[:, hid:]
        c = np.tanh(np.concatenate([xt[t], r * h], 1) @ wc + bc)
        h = u * h + (1 - u) * c
    z = h @ wd + bd
    e = np.exp(z - z.max())
    return {"Mfcc": x}, [("labels_softmax:0", e / e.sum()), (exits[3] + ":0", h)]
