// TF quantization ops: Dequantize (modes MIN_COMBINED, MIN_FIRST, SCALED; per tensor or per
// `axis`), as Cast -> Mul(scale) -> Add(offset) with the scale and offset computed here from
// the constant min_range / max_range, following TF's kernel (dequantize_op.cc):
//   MIN_COMBINED: out = (x + half) * (max - min) / (maxT - minT) + min   (half: 128 for qint8)
//   MIN_FIRST:    out = min + (x - lowest) * range_scale, with range_scale =
//                 (max - min) * 2^b / (2^b - 1) / 2^b  (min == max: out = min)
//   SCALED:       out = x * s, s = min(min / min_fixed, max / max_fixed) over the sides whose
//                 product with the bound is positive (min_fixed = lowest, +1 with narrow_range)
// quint8 / qint8 / qint32 tensors are read as uint8 / int8 / int32 (tf_tensor.cpp).
#include <cfloat>
#include <cmath>

#include "frontends/tf/tf_common.h"
#include "frontends/tf/tf_convert.h"

namespace atc {
namespace tffe {
namespace {

struct QRange {
  double lowest, highest;
  int bits;
};

QRange rangeOf(TfCtx& c, DType t) {
  switch (t) {
    case DType::U8: return {0, 255, 8};
    case DType::I8: return {-128, 127, 8};
    case DType::U16: return {0, 65535, 16};
    case DType::I16: return {-32768, 32767, 16};
    case DType::I32: return {-2147483648.0, 2147483647.0, 32};
    default: c.unsupported(std::string("Dequantize of ") + dtypeName(t) + " (quint8, qint8, quint16, qint16, qint32 are)");
  }
}

// Scale and offset of one (min, max) pair.
void dequantParams(const std::string& mode, bool narrow, const QRange& r, double mn, double mx, double* s, double* o) {
  if (mode == "MIN_COMBINED") {
    const double half = r.lowest < 0 ? (r.highest - r.lowest + 1) / 2 : 0;
    *s = (mx - mn) / (r.highest - r.lowest);
    *o = half * *s + mn;
  } else if (mode == "MIN_FIRST") {
    const double steps = std::ldexp(1.0, r.bits);
    *s = mn == mx ? 0.0 : (mx - mn) * (steps / (steps - 1.0)) / steps;
    *o = mn - r.lowest * *s;
  } else {  // SCALED
    const double minFixed = narrow ? r.lowest + 1 : r.lowest, maxFixed = r.highest;
    const double fromMin = minFixed * mn > 0 ? mn / minFixed : DBL_MAX;
    const double fromMax = maxFixed * mx > 0 ? mx / maxFixed : DBL_MAX;
    *s = std::min(fromMin, fromMax);
    if (*s == DBL_MAX) *s = 0;
    *o = 0;
  }
}

std::vector<double> doublesOf(const Tensor& t) {
  std::vector<double> v((size_t)t.type.numel());
  for (size_t i = 0; i < v.size(); ++i) v[i] = t.floatAt((int64_t)i);
  return v;
}

std::vector<Value*> dequantize(TfCtx& c) {
  Value* x = c.in.at(0);
  const std::string mode = c.s("mode", "MIN_COMBINED");
  if (mode != "MIN_COMBINED" && mode != "MIN_FIRST" && mode != "SCALED")
    c.invalid("unknown Dequantize mode '" + mode + "' (MIN_COMBINED, MIN_FIRST, SCALED)");
  const QRange r = rangeOf(c, x->type.dtype);
  const std::vector<double> mn = doublesOf(*c.constInput(1, "min_range"));
  const std::vector<double> mx = doublesOf(*c.constInput(2, "max_range"));
  const int64_t axis = c.i("axis", -1);
  if (mn.size() != mx.size() || mn.empty()) c.invalid("min_range and max_range must have the same, non-zero size");
  Shape ps;  // the scale/offset shape: [] per tensor, [len, 1, ...] right-aligned at axis
  if (axis >= 0) {
    const int64_t rank = c.requireRank(x, "the quantized input of a per-axis Dequantize");
    if (axis >= rank) c.invalid("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    if ((int64_t)mn.size() != x->type.shape[axis])
      c.invalid("per-axis min_range has " + std::to_string(mn.size()) + " values for a dim of " +
                std::to_string(x->type.shape[axis]));
    ps.assign(rank - axis, 1);
    ps[0] = (int64_t)mn.size();
  } else if (mn.size() != 1) {
    c.invalid("min_range has " + std::to_string(mn.size()) + " values without an axis");
  }
  auto s = std::make_shared<Tensor>(TensorType(DType::F32, ps));
  auto o = std::make_shared<Tensor>(TensorType(DType::F32, ps));
  bool anyOffset = false;
  for (size_t i = 0; i < mn.size(); ++i) {
    if (!(mn[i] <= mx[i])) c.invalid("min_range is greater than max_range (or NaN)");
    double sv, ov;
    dequantParams(mode, c.b("narrow_range", false), r, mn[i], mx[i], &sv, &ov);
    s->as<float>()[i] = (float)sv;
    o->as<float>()[i] = (float)ov;
    anyOffset = anyOffset || ov != 0;
  }
  Value* y = c.op("Cast", {x}, {{"to", onnxTypeOf(DType::F32)}}, "to_float");
  y = c.op("Mul", {y, c.g.newConstant(c.def.name() + "/scale", s)}, {}, anyOffset ? "scale" : "");
  if (anyOffset) y = c.op("Add", {y, c.g.newConstant(c.def.name() + "/offset", o)});
  const DType out = c.irType("dtype", DType::F32);
  if (out != DType::F32) {
    if (out != DType::BF16) c.unsupported("Dequantize to " + std::string(dtypeName(out)) + " (float32, bfloat16 are)");
    y = c.op("Cast", {y}, {{"to", onnxTypeOf(out)}}, "to_dtype");
  }
  return {y};
}

}  // namespace

void registerQuantConverters(ConverterTable& t) { t["Dequantize"] = dequantize; }

}  // namespace tffe
}  // namespace atc
