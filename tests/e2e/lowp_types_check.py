"""The cast-only element types (float8 E4M3FN / E4M3FNUZ / E5M2 / E5M2FNUZ, float4 E2M1, int4,
uint4, int2, uint2; bfloat16 .npy I/O) through atc and omrun.

Usage: lowp_types_check.py BIN_DIR WORK_DIR
- Cast float32 -> each float8 / float4 format (saturate 1 and 0) and back, against a brute-force
  reference written here (the nearest of the format's 256 values, ties to the even pattern),
  inputs spread over every binade, the subnormals, ties, overflow, +-inf and NaN;
- an int4 weight-only model (packed int4 initializer, blocked DequantizeLinear, MatMul) and a
  uint4 per-axis one against numpy;
- QuantizeLinear to int4 and float8 E4M3FN against numpy;
- omrun's .npy convention: float8 inputs as uint8 bit patterns, bfloat16 as uint16, an int4
  input holding 9 refused, a float32 file for a float8 input refused;
- BitCast-26 of uint8 bytes to float8, a bit-width mismatch refused;
- an Add on a float8 input refused (E19010, no .om).
Prints one PASS/FAIL line per case; exits 1 on any failure.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# Type codes newer than Debian's onnx 1.12 (TensorProto lacks their names).
INT4, UINT4, FLOAT8E4M3FN, FLOAT8E5M2 = 22, 21, 17, 19

BIN, WORK = sys.argv[1], sys.argv[2]
failures = 0

# ONNX type code -> (exponent bits, mantissa bits, bias, fnuz)
FORMATS = {17: (4, 3, 7, False), 18: (4, 3, 8, True), 19: (5, 2, 15, False), 20: (5, 2, 16, True),
           23: (2, 1, 1, False)}
NAMES = {17: "e4m3fn", 18: "e4m3fnuz", 19: "e5m2", 20: "e5m2fnuz", 23: "float4e2m1"}


def values(code):
    """The value of each bit pattern of the format (NaN where it has one; inf for E5M2)."""
    eb, mb, bias, fnuz = FORMATS[code]
    nbits = 1 + eb + mb
    out = np.full(1 << nbits, np.nan)
    for b in range(1 << nbits):
        sbit = 1 << (eb + mb)
        mag = b & (sbit - 1)
        e, m = mag >> mb, mag & ((1 << mb) - 1)
        if (fnuz and b == 0x80) or (code == 17 and mag == 0x7f) or (code == 19 and e == 31):
            if code == 19 and e == 31 and m == 0:
                out[b] = -np.inf if b & sbit else np.inf
            continue
        v = (1 + m / (1 << mb)) * 2.0 ** (e - bias) if e else m / (1 << mb) * 2.0 ** (1 - bias)
        out[b] = -v if b & sbit else v
    return out


def reference_cast(x, code, saturate):
    """Bit patterns of float32 x in the format: nearest finite value, ties to the even pattern;
    beyond the largest value (and +-inf): the largest with saturate, else NaN (E5M2: inf)."""
    eb, mb, bias, fnuz = FORMATS[code]
    table = values(code)
    finite = [(b, v) for b, v in enumerate(table) if np.isfinite(v) and not (fnuz and b == 0x80)]
    vmax = max(v for _, v in finite)
    sbit = 1 << (eb + mb)
    out = []
    for xv in x.astype(np.float64):
        if np.isnan(xv):
            out.append(0x8 if code == 23 else 0x80 if fnuz else (0xff if np.signbit(xv) else 0x7f))
            continue
        neg = np.signbit(xv)
        a = abs(xv)
        # Overflow: beyond the largest value by at least half a step (RNE would round past it).
        step = vmax - max(v for _, v in finite if v < vmax)
        if np.isinf(a) or a >= vmax + step / 2:
            if saturate or code == 23:
                best = [b for b, v in finite if v == vmax][0]
            elif code == 19:
                best = 0x7c
            else:
                best = 0x80 if fnuz else 0x7f
            out.append(best | (sbit if neg and best != 0x80 else 0))
            continue
        cands = [(abs(v - a), b & 1, b) for b, v in finite if v >= 0 and not (b & sbit)]
        d, _, best = min(cands)
        ties = [c for c in cands if c[0] == d]
        if len(ties) > 1:
            best = [c for c in ties if c[1] == 0][0][2]
        if neg and not (fnuz and best == 0):
            best |= sbit
        out.append(best)
    return np.array(out, dtype=np.uint8)


def save_model(name, nodes, inputs, outputs, inits=(), opset=21):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    path = os.path.join(WORK, name + ".onnx")
    onnx.save(m, path)
    return path


def atc(name, path, extra=()):
    r = subprocess.run([BIN + "/atc", "--model=" + path, "--framework=5", "--output=" + os.path.join(WORK, name),
                        "--soc_version=native", *extra], capture_output=True, text=True)
    return r, os.path.join(WORK, name + ".om")


def omrun(om, arrays, name):
    files = []
    for i, a in enumerate(arrays):
        p = os.path.join(WORK, "%s_in%d.npy" % (name, i))
        np.save(p, a)
        files.append(p)
    out = os.path.join(WORK, name + "_out")
    r = subprocess.run([BIN + "/omrun", "--model=" + om, "--input=" + ",".join(files), "--output=" + out],
                       capture_output=True, text=True)
    return r, out


def build_run(name, path, arrays, extra=()):
    """Compiles and runs a model: its output folder, or None after reporting the failure."""
    r, om = atc(name, path, extra)
    if r.returncode == 0:
        r, out = omrun(om, arrays, name)
        if r.returncode == 0:
            return out
    report(name, False, r.stdout + r.stderr)
    return None


def report(name, ok, detail=""):
    global failures
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures += 1


def test_inputs(code):
    eb, mb, bias, fnuz = FORMATS[code]
    vals = values(code)
    finite = vals[np.isfinite(vals)]
    mids = (np.sort(np.unique(finite))[:-1] + np.sort(np.unique(finite))[1:]) / 2  # exact ties
    rng = np.random.default_rng(code)
    vmax = np.nanmax(finite)
    rand = rng.standard_normal(200) * vmax / 4
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, vmax, -vmax, vmax * 1.06, vmax * 1.2, 1e30, -1e30, 1e-30]
    return np.concatenate([finite, mids, rand, special]).astype(np.float32)


def cast_roundtrip(code):
    for sat in (1, 0):
        name = "cast_%s_sat%d" % (NAMES[code], sat)
        x = test_inputs(code)
        n = len(x)
        path = save_model(name, [helper.make_node("Cast", ["X"], ["Q"], to=code, saturate=sat),
                                 helper.make_node("Cast", ["Q"], ["Y"], to=TensorProto.FLOAT)],
                          [helper.make_tensor_value_info("X", TensorProto.FLOAT, [n])],
                          [helper.make_tensor_value_info("Q", code, [n]),
                           helper.make_tensor_value_info("Y", TensorProto.FLOAT, [n])], opset=23)
        r, om = atc(name, path)
        if r.returncode != 0:
            report(name, False, r.stdout + r.stderr)
            continue
        r, out = omrun(om, [x], name)
        if r.returncode != 0:
            report(name, False, r.stdout + r.stderr)
            continue
        q = np.load(os.path.join(out, "output_0.npy"))
        y = np.load(os.path.join(out, "output_1.npy"))
        want = reference_cast(x, code, sat)
        table = values(code)
        same = (q == want) | (np.isnan(table[q]) & np.isnan(table[want]))
        back = (table[q].astype(np.float32) == y) | (np.isnan(table[q]) & np.isnan(y))
        report(name, q.dtype == np.uint8 and bool(same.all()) and bool(back.all()),
               "dtype %s, %d patterns differ (first x=%r got %r want %r), %d decoded values differ"
               % (q.dtype, int((~same).sum()), x[~same][:1], q[~same][:1], want[~same][:1], int((~back).sum())))


def raw_tensor(name, code, dims, raw):
    """A TensorProto with raw data (onnx 1.12's make_tensor does not know the newer codes)."""
    t = TensorProto()
    t.name, t.data_type, t.raw_data = name, code, raw
    t.dims.extend(dims)
    return t


def packed(vals, bits):
    per = 8 // bits
    out = bytearray((len(vals) + per - 1) // per)
    for i, v in enumerate(vals):
        out[i // per] |= (int(v) & ((1 << bits) - 1)) << ((i % per) * bits)
    return bytes(out)


def int4_weights(signed):
    name = "int4_weights" if signed else "uint4_weights"
    rng = np.random.default_rng(4)
    K, N, B = 64, 24, 16
    q = rng.integers(-8, 8, (K, N)) if signed else rng.integers(0, 16, (K, N))
    code = INT4 if signed else UINT4
    w = raw_tensor("Wq", code, [K, N], packed(q.ravel(), 4))
    if signed:  # blocked along K
        scale = (rng.random((K // B, N)) * 0.1 + 0.01).astype(np.float32)
        deq = q * np.repeat(scale, B, axis=0)
        dq = helper.make_node("DequantizeLinear", ["Wq", "S"], ["W"], axis=0, block_size=B)
        inits = [w, numpy_helper.from_array(scale, "S")]
    else:  # per output column, zero point 8
        scale = (rng.random(N) * 0.1 + 0.01).astype(np.float32)
        deq = (q - 8) * scale
        zp = raw_tensor("Z", code, [N], packed([8] * N, 4))
        dq = helper.make_node("DequantizeLinear", ["Wq", "S", "Z"], ["W"], axis=1)
        inits = [w, numpy_helper.from_array(scale, "S"), zp]
    x = rng.standard_normal((3, K)).astype(np.float32)
    path = save_model(name, [dq, helper.make_node("MatMul", ["X", "W"], ["Y"])],
                      [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3, K])],
                      [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [3, N])], inits)
    out = build_run(name, path, [x], ["--precision_mode=must_keep_origin_dtype"])  # float32 MatMul: exact products
    if out is None:
        return
    y = np.load(os.path.join(out, "output_0.npy"))
    want = x.astype(np.float64) @ deq
    report(name, np.allclose(y, want, rtol=1e-4, atol=1e-4), "max diff %g" % np.abs(y - want).max())


def quantize_outputs():
    name = "quantize_int4_e4m3fn"
    x = np.linspace(-3, 3, 49).astype(np.float32)
    s = np.float32(0.25)
    path = save_model(name, [helper.make_node("QuantizeLinear", ["X", "S", "Z4"], ["Q4"]),
                             helper.make_node("QuantizeLinear", ["X", "S8", "Z8"], ["Q8"])],
                      [helper.make_tensor_value_info("X", TensorProto.FLOAT, [49])],
                      [helper.make_tensor_value_info("Q4", INT4, [49]),
                       helper.make_tensor_value_info("Q8", FLOAT8E4M3FN, [49])],
                      [numpy_helper.from_array(np.array(s), "S"),
                       numpy_helper.from_array(np.array(np.float32(0.01)), "S8"),
                       raw_tensor("Z4", INT4, [], packed([1], 4)),
                       raw_tensor("Z8", FLOAT8E4M3FN, [], b"\x00")])
    out = build_run(name, path, [x])
    if out is None:
        return
    q4 = np.load(os.path.join(out, "output_0.npy"))
    q8 = np.load(os.path.join(out, "output_1.npy"))
    want4 = np.clip(np.rint(x / s) + 1, -8, 7).astype(np.int8)
    want8 = reference_cast((x / np.float32(0.01)).astype(np.float32), 17, 1)
    report(name, q4.dtype == np.int8 and np.array_equal(q4, want4) and np.array_equal(q8, want8),
           "int4 %s vs %s; e4m3fn %d differ" % (q4[:6], want4[:6], int((q8 != want8).sum())))


def npy_convention():
    # float8 and bfloat16 inputs as uint8 / uint16 bit patterns, an int4 input as int8 values.
    name = "npy_inputs"
    path = save_model(name, [helper.make_node("Cast", ["A"], ["YA"], to=TensorProto.FLOAT),
                             helper.make_node("Cast", ["B"], ["YB"], to=TensorProto.FLOAT),
                             helper.make_node("Cast", ["C"], ["YC"], to=TensorProto.FLOAT)],
                      [helper.make_tensor_value_info("A", FLOAT8E5M2, [4]),
                       helper.make_tensor_value_info("B", TensorProto.BFLOAT16, [3]),
                       helper.make_tensor_value_info("C", INT4, [3])],
                      [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("YA", "YB", "YC")])
    r, om = atc(name, path)
    if r.returncode != 0:
        return report(name, False, r.stdout + r.stderr)
    a = np.array([0x3c, 0xc0, 0x7c, 0x01], np.uint8)  # 1, -2, inf, 2^-16
    b = np.array([0x3f80, 0xc040, 0x7fc0], np.uint16)  # 1, -3, NaN
    c = np.array([-8, 7, 0], np.int8)
    r, out = omrun(om, [a, b, c], name)
    if r.returncode != 0:
        return report(name, False, r.stdout + r.stderr)
    ya, yb, yc = (np.load(os.path.join(out, "output_%d.npy" % i)) for i in range(3))
    ok = (np.array_equal(ya, np.array([1, -2, np.inf, 2.0 ** -16], np.float32)) and
          np.array_equal(yb[:2], np.array([1, -3], np.float32)) and np.isnan(yb[2]) and
          np.array_equal(yc, np.array([-8, 7, 0], np.float32)))
    report(name, ok, "got %s %s %s" % (ya, yb, yc))
    r, out = omrun(om, [a, b, np.array([-8, 9, 0], np.int8)], name + "_bad_int4")
    report("npy_int4_out_of_range_refused", r.returncode != 0 and "outside int4" in r.stderr and
           not os.path.exists(os.path.join(out, "output_0.npy")), r.stderr)
    r, out = omrun(om, [a.astype(np.float32), b, c], name + "_bad_dtype")
    report("npy_float32_for_float8_refused", r.returncode != 0 and "as uint8 in a .npy file" in r.stderr, r.stderr)


def data_movement():
    # float8 values moved as bytes: Transpose, Concat, Slice, Gather, Tile, Reshape, then Cast.
    name = "float8_data_movement"
    ints = lambda n, v: numpy_helper.from_array(np.array(v, np.int64), n)
    nodes = [helper.make_node("Transpose", ["A"], ["t"], perm=[1, 0]),
             helper.make_node("Concat", ["t", "t"], ["c"], axis=0),
             helper.make_node("Slice", ["c", "st", "en"], ["s"]),
             helper.make_node("Gather", ["s", "gi"], ["g"], axis=1),
             helper.make_node("Tile", ["g", "rep"], ["ti"]),
             helper.make_node("Reshape", ["ti", "shp"], ["r"]),
             helper.make_node("Cast", ["r"], ["Y"], to=TensorProto.FLOAT)]
    path = save_model(name, nodes, [helper.make_tensor_value_info("A", FLOAT8E4M3FN, [2, 3])],
                      [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                      [ints("st", [1, 0]), ints("en", [5, 2]), ints("gi", [1, 0, 1]), ints("rep", [1, 2]),
                       ints("shp", [-1])])
    r, om = atc(name, path)
    if r.returncode != 0:
        return report(name, False, r.stdout + r.stderr)
    a = np.array([[0x38, 0x40, 0xc4], [0x01, 0x7e, 0x30]], np.uint8)  # 1, 2, -3, 2^-9, 448, 0.5
    r, out = omrun(om, [a], name)
    if r.returncode != 0:
        return report(name, False, r.stdout + r.stderr)
    v = values(17)[a]
    t = np.concatenate([v.T, v.T], 0)[1:5, 0:2][:, [1, 0, 1]]
    want = np.tile(t, (1, 2)).reshape(-1).astype(np.float32)
    y = np.load(os.path.join(out, "output_0.npy"))
    report(name, np.array_equal(y, want), "got %s want %s" % (y, want))


def bitcast():
    # BitCast-26: uint8 bytes read as float8 E4M3FN patterns; a width mismatch refused.
    name = "bitcast_uint8_e4m3fn"
    path = save_model(name, [helper.make_node("BitCast", ["A"], ["b"], to=FLOAT8E4M3FN),
                             helper.make_node("Cast", ["b"], ["Y"], to=TensorProto.FLOAT)],
                      [helper.make_tensor_value_info("A", TensorProto.UINT8, [3])],
                      [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], opset=26)
    r, om = atc(name, path)
    if r.returncode != 0:
        return report(name, False, r.stdout + r.stderr)
    r, out = omrun(om, [np.array([0x38, 0xc4, 0x7e], np.uint8)], name)
    y = np.load(os.path.join(out, "output_0.npy")) if r.returncode == 0 else None
    report(name, y is not None and np.array_equal(y, np.array([1, -3, 448], np.float32)), r.stderr + str(y))
    name = "bitcast_width_mismatch"
    path = save_model(name, [helper.make_node("BitCast", ["A"], ["Y"], to=TensorProto.INT16)],
                      [helper.make_tensor_value_info("A", TensorProto.FLOAT, [3])],
                      [helper.make_tensor_value_info("Y", TensorProto.INT16, None)], opset=26)
    r, om = atc(name, path)
    report(name + "_refused", r.returncode != 0 and "bit width" in r.stdout + r.stderr and not os.path.exists(om),
           r.stdout + r.stderr)


def arithmetic_refused():
    name = "add_float8"
    path = save_model(name, [helper.make_node("Add", ["A", "A"], ["Y"])],
                      [helper.make_tensor_value_info("A", FLOAT8E4M3FN, [4])],
                      [helper.make_tensor_value_info("Y", FLOAT8E4M3FN, [4])])
    r, om = atc(name, path)
    out = r.stdout + r.stderr
    report(name + "_refused", r.returncode != 0 and "E19010" in out and "float8_e4m3fn" in out and
           not os.path.exists(om), out)


for code in FORMATS:
    cast_roundtrip(code)
int4_weights(True)
int4_weights(False)
quantize_outputs()
npy_convention()
data_movement()
bitcast()
arithmetic_refused()
sys.exit(1 if failures else 0)
