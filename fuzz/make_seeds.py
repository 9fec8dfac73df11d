#!/usr/bin/python3
"""Writes the seed corpus of a fuzz target (scripts/fuzz.sh calls it).
Usage: make_seeds.py TARGET OUT_DIR SRC_DIR [MAX_BYTES]   (TARGET: onnx, tf, npy, options, om)
Seeds are small real inputs: ../shared/repros, the ONNX node-test models, the TF graphs of
tests/tf_gen and ../shared/models/tf, .npy files written with numpy, and option files in
the forms docs/precision.md, docs/implmode.md and docs/fusion.md describe, and .om files that
atc (build-san/bin, else build/bin) compiles from small generated models. Files over
MAX_BYTES (the target's -max_len; default 1 MiB) are left out: libFuzzer would truncate them,
and big models make every execution slow."""
import glob
import hashlib
import io
import os
import re
import sys

MAX_SEED_BYTES = 1 << 20
MAX_OPSET = 23  # frontends/onnx/onnx_model_loader.h kMaxOpset


def put(out, data, ext=""):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_SEED_BYTES:
        return 0
    name = hashlib.sha1(data).hexdigest()[:16] + ext
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
    return 1


def put_file(out, path):
    if os.path.getsize(path) > MAX_SEED_BYTES:
        return 0
    with open(path, "rb") as f:
        return put(out, f.read(), os.path.splitext(path)[1])


def onnx_seeds(out, src, shared):
    n = sum(put_file(out, p) for p in sorted(glob.glob(os.path.join(shared, "repros", "*.onnx"))))
    node_tests = sorted(glob.glob(os.path.join(shared, "onnx-node-tests", "node", "*", "model.onnx")))
    n += sum(put_file(out, p) for p in node_tests)
    # Node tests of opsets above the supported range (frontends/onnx kMaxOpset) may be
    # refused at once: also give each such model with its default-domain opset set to
    # MAX_OPSET, so seeds reach the importer and the passes (ops whose older form differs are
    # then refused or fuzzed).
    try:
        import onnx
    except ImportError:
        return n
    for p in node_tests:
        if os.path.getsize(p) > MAX_SEED_BYTES:
            continue
        m = onnx.ModelProto()
        with open(p, "rb") as f:
            m.ParseFromString(f.read())
        changed = False
        for o in m.opset_import:
            if o.domain in ("", "ai.onnx") and o.version > MAX_OPSET:
                o.version = MAX_OPSET
                changed = True
        if changed:
            n += put(out, m.SerializeToString(), ".onnx")
    n += sum(put_file(out, p) for p in sorted(glob.glob(os.path.join(shared, "models", "onnx", "*.onnx"))))
    n += constant_input_seeds(out, node_tests, onnx)
    n += qdq_conv_seeds(out, onnx)
    return n


def qdq_conv_seeds(out, onnx):
    """Small QDQ conv chains (QdqConvFoldPass: Q/DQ input, int8 per-channel weights, BN, Clip,
    a Q/DQ pair into a depthwise conv, Relu), as the exporters write them."""
    import numpy as np
    from onnx import helper, numpy_helper as nh, TensorProto as TP
    init = [nh.from_array(np.array(0.05, np.float32), "s1"), nh.from_array(np.array(10, np.uint8), "z1"),
            nh.from_array((np.arange(32) % 7 - 3).astype(np.int8).reshape(8, 4, 1, 1), "w1"),
            nh.from_array(np.linspace(0.01, 0.02, 8).astype(np.float32), "ws1"),
            nh.from_array(np.zeros(8, np.int8), "wz1"),
            nh.from_array(np.ones(8, np.float32), "g"), nh.from_array(np.zeros(8, np.float32), "b"),
            nh.from_array(np.zeros(8, np.float32), "mu"), nh.from_array(np.ones(8, np.float32), "var"),
            nh.from_array(np.array(0.0, np.float32), "lo"), nh.from_array(np.array(6.0, np.float32), "hi"),
            nh.from_array(np.array(0.03, np.float32), "s2"), nh.from_array(np.array(0, np.uint8), "z2"),
            nh.from_array(np.ones((8, 1, 3, 3), np.int8), "wd"), nh.from_array(np.array(0.01, np.float32), "wsd"),
            nh.from_array((np.arange(16) % 5 - 2).astype(np.int8).reshape(2, 8, 1, 1), "w2"),
            nh.from_array(np.array(0.1, np.float32), "ws2")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s1", "z1"], ["q1"]),
             helper.make_node("DequantizeLinear", ["q1", "s1", "z1"], ["d1"]),
             helper.make_node("DequantizeLinear", ["w1", "ws1", "wz1"], ["w1f"], axis=0),
             helper.make_node("Conv", ["d1", "w1f"], ["c1"]),
             helper.make_node("BatchNormalization", ["c1", "g", "b", "mu", "var"], ["n1"]),
             helper.make_node("Clip", ["n1", "lo", "hi"], ["r1"]),
             helper.make_node("QuantizeLinear", ["r1", "s2", "z2"], ["q2"]),
             helper.make_node("DequantizeLinear", ["q2", "s2", "z2"], ["d2"]),
             helper.make_node("DequantizeLinear", ["wd", "wsd"], ["wdf"]),
             helper.make_node("Conv", ["d2", "wdf"], ["c2"], group=8, pads=[1, 1, 1, 1]),
             helper.make_node("QuantizeLinear", ["c2", "s2", "z2"], ["q3"]),
             helper.make_node("DequantizeLinear", ["q3", "s2", "z2"], ["d3"]),
             helper.make_node("DequantizeLinear", ["w2", "ws2"], ["w2f"]),
             helper.make_node("Conv", ["d3", "w2f"], ["c3"], strides=[2, 2]),
             helper.make_node("Relu", ["c3"], ["y"])]
    g = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info("x", TP.FLOAT, [1, 4, 6, 6])],
                          [helper.make_tensor_value_info("y", TP.FLOAT, None)], init)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    return put(out, m.SerializeToString(), ".onnx")


def constant_input_seeds(out, node_tests, onnx):
    """The quantized ops' node tests with their inputs turned into initializers (data set 0):
    the constant folder then runs the quant kernels natively on fuzzed values and shapes."""
    n = 0
    for p in node_tests:
        name = os.path.basename(os.path.dirname(p))
        if not re.search(r"quantize|integer|qlinear", name):
            continue
        m = onnx.ModelProto()
        with open(p, "rb") as f:
            m.ParseFromString(f.read())
        pbs = sorted(glob.glob(os.path.join(os.path.dirname(p), "test_data_set_0", "input_*.pb")))
        if len(pbs) != len(m.graph.input):
            continue
        for inp, pb in zip(list(m.graph.input), pbs):
            t = onnx.TensorProto()
            with open(pb, "rb") as f:
                t.ParseFromString(f.read())
            t.name = inp.name
            m.graph.initializer.append(t)
        del m.graph.input[:]
        for o in m.opset_import:
            if o.domain in ("", "ai.onnx") and o.version > MAX_OPSET:
                o.version = MAX_OPSET
        data = m.SerializeToString()
        if len(data) <= MAX_SEED_BYTES:
            n += put(out, data, ".onnx")
    return n


def tf_seeds(out, src, shared):
    n = sum(put_file(out, p) for p in sorted(glob.glob(os.path.join(shared, "repros", "tf_*"))))
    n += sum(put_file(out, p) for p in sorted(glob.glob(os.path.join(shared, "models", "tf", "*.pb"))))
    sys.path.insert(0, os.path.join(src, "tests", "tf_gen"))
    try:
        import cases
        import tfgen
        from google.protobuf import text_format
    except Exception as e:  # numpy/protoc missing: the shared graphs are still there
        print("make_seeds: tests/tf_gen cases skipped (%s)" % e, file=sys.stderr)
        return n
    for i, (name, fn, text, args, expect) in enumerate(cases.CASES):
        g = tfgen.Graph()
        try:
            fn(g)
        except Exception as e:
            print("make_seeds: case %s skipped (%s)" % (name, e), file=sys.stderr)
            continue
        n += put(out, g.gd.SerializeToString(), ".pb")
        if text or i % 8 == 0:  # some graphs in text format too
            n += put(out, text_format.MessageToString(g.gd), ".pbtxt")
    return n


def npy_seeds(out, src, shared):
    n = sum(put_file(out, p) for p in sorted(glob.glob(os.path.join(shared, "models", "*", "*.npy"))))
    import numpy as np
    arrays = [np.zeros((), np.float32), np.arange(6, dtype=np.float32).reshape(2, 3),
              np.ones((1, 3, 2, 2), np.float16), np.arange(4, dtype=np.int64), np.array([True, False]),
              np.zeros((0, 3), np.int8), np.arange(5, dtype=np.uint8), np.ones((2, 2), np.float64),
              np.arange(3, dtype=np.int32), np.arange(3, dtype=np.uint16), np.arange(3, dtype=np.int16),
              np.arange(2, dtype=np.uint32), np.arange(2, dtype=np.uint64),
              np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
              np.arange(3, dtype=">f4")]
    for a in arrays:
        for version in ((1, 0), (2, 0), (3, 0)):
            b = io.BytesIO()
            np.lib.format.write_array(b, a, version=version)
            n += put(out, b.getvalue(), ".npy")
    return n


def options_seeds(out, src, shared):
    # First byte: the parser (fuzz/fuzz_options.cpp); the rest: the file's text.
    seeds = {
        0: ['{"Switch":{"GraphFusion":{"ALL":"off","SoftmaxFusionPass":"on"},"UBFusion":{"ALL":"off","TbePool2dQuantFusionPass":"on"}}}',
            '{"Switch":{"GraphFusion":{"ALL":"off"},"UBFusion":{"ALL":"off"}}}',
            'TbePool2dQuantFusionPass:off\nGeluFusionPass:off\n# comment\n\nALL:on\n',
            'GeluFusionPass:maybe\n', '{"Switch":{'],
        1: ['{"black-list":{"to-add":["Softmax"]}}',
            '{"black-list":{"to-remove":["Softmax","ReduceMean"]},"white-list":{"to-remove":["MatMul","Conv","Gemm"],"to-add":["Relu"]}}',
            '{"gray-list":{"to-add":["Add"]}}'],
        2: ['conv1\nOpType::Softmax\n# comment\n\nrelu_1\n', 'OpType::\n'],
        3: ['conv1::InputDtype:float16,float16,OutputDtype:float16\nOpType::MatMul:InputDtype:float32,float32,OutputDtype:float32\n',
            'OpType::Relu:OutputDtype:bfloat16\n# c\n'],
        4: ['FP32', 'FP16', 'BF16', 'UINT8', 'INT8', 'relu:0:FP16;conv1:0:FP32', 'node:1:FP16;'],
        5: ['in1;in2', 'input', ';;x;'],
        6: ['[ByOpType]\nTanh=super_performance\nExp=super_performance\nGather=support_out_of_bound_index\n',
            '[ByOpType]\nSoftmax=high_precision\n[ByNodeName]\nsoftmax1=high_performance\n',
            '[ByOpType]\nSoftmax=fastest\n', 'Softmax=high_precision\n',
            '; comment\n[ByNodeName]\nconv 1 = keep_fp16\n'],
    }
    n = 0
    for k, texts in seeds.items():
        for t in texts:
            n += put(out, bytes([k]) + t.encode())
    # 7: a pick byte (option: batch 0, image size 1, dims 2; format: pick // 3 % 4), the
    # --input_shape, a newline, the gear option's value.
    for pick, text in ((0, "x:-1,3,224,224\n1,2,4,8"), (4, "x:1,3,-1,-1\n224,224;448,448"),
                       (11, "ids:1,-1;mask:1,-1\n16,16;64,64"), (0, "x:-1,3,-1,2\n1,2"), (11, "a:-1\n1;2;2"),
                       (128, "ids:1,1~512;mask:1,1~512"), (129, "x:[1~16,3,224,224];y:[2,2~3]"), (128, "x:4~2,3~5")):
        n += put(out, bytes([7, pick]) + text.encode())
    return n


def sequence_loop_seed(out, atc, t, helper, numpy_helper, TP, np):
    import subprocess
    seq = helper.make_tensor_sequence_value_info
    body = helper.make_graph([
        helper.make_node("Identity", ["ci"], ["co"]),
        helper.make_node("Constant", [], ["one"], value=numpy_helper.from_array(np.array([1], np.int64), "one")),
        helper.make_node("Constant", [], ["z"], value=numpy_helper.from_array(np.array([0], np.int64), "z")),
        helper.make_node("Unsqueeze", ["i", "z"], ["i1"]), helper.make_node("Add", ["i1", "one"], ["end"]),
        helper.make_node("Slice", ["v", "z", "end"], ["part"]),
        helper.make_node("SequenceInsert", ["s", "part"], ["so"])],
        "body", [helper.make_tensor_value_info("i", TP.INT64, []), helper.make_tensor_value_info("ci", TP.BOOL, []),
                 seq("s", TP.FLOAT, None)],
        [helper.make_tensor_value_info("co", TP.BOOL, []), seq("so", TP.FLOAT, None)])
    g = helper.make_graph([
        helper.make_node("Constant", [], ["v"], value=numpy_helper.from_array(np.arange(6, dtype=np.float32), "v")),
        helper.make_node("SequenceEmpty", [], ["s0"], dtype=TP.FLOAT),
        helper.make_node("Loop", ["m", "", "s0"], ["s"], body=body), helper.make_node("SequenceAt", ["s", "m"], ["e"]),
        helper.make_node("ConcatFromSequence", ["s"], ["c"], axis=0)], "seqloop",
        [helper.make_tensor_value_info("m", TP.INT64, [])],
        [helper.make_tensor_value_info("e", TP.FLOAT, None), helper.make_tensor_value_info("c", TP.FLOAT, None),
         seq("s", TP.FLOAT, None)])
    path = os.path.join(t, "seqloop.onnx")
    onnx_mod = __import__("onnx")
    onnx_mod.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
    cmd = [atc, "--model=" + path, "--framework=5", "--output=" + os.path.join(t, "seqloop"),
           "--soc_version=x86-64-v3", "--op_compiler_cache_dir=" + os.path.join(t, "cache")]
    if subprocess.run(cmd, capture_output=True).returncode != 0:
        return 0
    return put_file(out, os.path.join(t, "seqloop.om"))


def om_seeds(out, src, shared):
    """Small .om files: an element-wise model with a weight, a MatMul, a Conv, one signed, the
    MatMul with dynamic batch gears (TASK_INFO format 2), and a loop run by the runtime that
    grows a sequence read with SequenceAt and ConcatFromSequence (loop and sequence steps)."""
    import subprocess
    import tempfile
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    atc = next((p for p in (os.path.join(src, "build-san", "bin", "atc"), os.path.join(src, "build", "bin", "atc"))
                if os.access(p, os.X_OK)), None)
    if not atc:
        return 0
    rng = np.random.default_rng(1)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    models = {
        "add_relu": ([helper.make_node("Add", ["x", "w"], ["s"]), helper.make_node("Relu", ["s"], ["y"])],
                     [2, 3], [2, 3], {"w": f32(2, 3)}),
        "matmul": ([helper.make_node("MatMul", ["x", "w"], ["y"])], [4, 8], [4, 5], {"w": f32(8, 5)}),
        "conv": ([helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])], [1, 2, 5, 5], [1, 3, 5, 5],
                 {"w": f32(3, 2, 3, 3)}),
    }
    n = 0
    with tempfile.TemporaryDirectory() as t:
        key = os.path.join(t, "key.pem")
        subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", key], capture_output=True)
        for name, (nodes, xs, ys, inits) in models.items():
            g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, xs)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ys)],
                                  [numpy_helper.from_array(v, k) for k, v in inits.items()])
            path = os.path.join(t, name + ".onnx")
            onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
            for signed in (False, True):
                if signed and (name != "add_relu" or not os.path.isfile(key)):
                    continue
                cmd = [atc, "--model=" + path, "--framework=5", "--output=" + os.path.join(t, name),
                       "--soc_version=x86-64-v3", "--op_compiler_cache_dir=" + os.path.join(t, "cache")]
                if signed:
                    cmd.append("--sign_key=" + key)
                if subprocess.run(cmd, capture_output=True).returncode == 0:
                    n += put_file(out, os.path.join(t, name + ".om"))
            if name == "add_relu":
                n += sequence_loop_seed(out, atc, t, helper, numpy_helper, TensorProto, np)
            if name == "matmul":
                cmd = [atc, "--model=" + path, "--framework=5", "--output=" + os.path.join(t, name + "_gears"),
                       "--soc_version=x86-64-v3", "--op_compiler_cache_dir=" + os.path.join(t, "cache"),
                       "--input_shape=x:-1,8", "--dynamic_batch_size=1,4"]
                if subprocess.run(cmd, capture_output=True).returncode == 0:
                    n += put_file(out, os.path.join(t, name + "_gears.om"))
                cmd[-2:] = ["--input_shape=x:1~3,8"]  # a shape range: generic kernels, steps with params
                cmd[3] = "--output=" + os.path.join(t, name + "_range")
                if subprocess.run(cmd, capture_output=True).returncode == 0:
                    n += put_file(out, os.path.join(t, name + "_range.om"))
    return n


def main():
    global MAX_SEED_BYTES
    target, out, src = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    if len(sys.argv) > 4:
        MAX_SEED_BYTES = int(sys.argv[4])
    shared = os.path.join(os.path.dirname(src), "shared")
    os.makedirs(out, exist_ok=True)
    n = {"onnx": onnx_seeds, "tf": tf_seeds, "npy": npy_seeds, "options": options_seeds,
         "om": om_seeds}[target](out, src, shared)
    print("make_seeds: %d %s seeds in %s" % (n, target, out))


if __name__ == "__main__":
    main()
