// TF array ops: Reshape, Squeeze, ExpandDims, ConcatV2, Pack, Unpack, Split, SplitV, Slice,
// StridedSlice, Pad/PadV2/MirrorPad, Transpose, Shape, Size, Rank, Fill, Tile, GatherV2,
// Range, ResizeBilinear, ResizeNearestNeighbor.
#include "frontends/tf/tf_common.h"
#include "frontends/tf/tf_convert.h"
#include "support/checked_math.h"

namespace atc {
namespace tffe {
namespace {

using Outs = std::vector<Value*>;

// An int64 version of an integer tensor input (constants converted here, others by Cast).
Value* toI64(TfCtx& c, size_t i, const std::string& sfx) {
  Value* v = c.in.at(i);
  if (v->isConstant()) {
    if (v->constant->type.dtype == DType::I64) return v;
    return c.g.newConstant(c.def.name() + "/" + sfx, makeIntTensor(v->constant->toInts(), DType::I64,
                                                                   v->constant->type.rank() == 0));
  }
  return c.op("Cast", {v}, {{"to", onnxTypeOf(DType::I64)}}, sfx);
}

int64_t scalarInt(TfCtx& c, size_t i, const std::string& what) {
  auto v = c.constInts(i, what);
  if (v.size() != 1) c.invalid(what + " must be a scalar");
  return v[0];
}

Outs reshape(TfCtx& c) { return {c.op("Reshape", {c.in.at(0), toI64(c, 1, "shape")})}; }

Outs squeeze(TfCtx& c) {
  std::vector<int64_t> axes = c.ints("squeeze_dims");
  if (axes.empty()) axes = c.ints("axis");
  if (axes.empty()) return {c.op("Squeeze", {c.in.at(0)})};
  return {c.op("Squeeze", {c.in.at(0)}, {{"axes", axes}})};
}

Outs expandDims(TfCtx& c) { return {c.op("Unsqueeze", {c.in.at(0)}, {{"axes", std::vector<int64_t>{scalarInt(c, 1, "dim")}}})}; }

Outs concatV2(TfCtx& c) {
  if (c.in.size() < 2) c.invalid("ConcatV2 needs values and an axis");
  int64_t axis = scalarInt(c, c.in.size() - 1, "axis");
  std::vector<Value*> vals(c.in.begin(), c.in.end() - 1);
  if (vals.size() == 1) return {c.op("Identity", vals)};
  return {c.op("Concat", vals, {{"axis", axis}})};
}

Outs concatV1(TfCtx& c) {
  int64_t axis = scalarInt(c, 0, "concat_dim");
  std::vector<Value*> vals(c.in.begin() + 1, c.in.end());
  if (vals.size() == 1) return {c.op("Identity", vals)};
  return {c.op("Concat", vals, {{"axis", axis}})};
}

Outs pack(TfCtx& c) {
  int64_t axis = c.i("axis", 0);
  std::vector<Value*> parts;
  for (size_t k = 0; k < c.in.size(); ++k)
    parts.push_back(c.op("Unsqueeze", {c.in[k]}, {{"axes", std::vector<int64_t>{axis}}}, "expand" + std::to_string(k)));
  if (parts.size() == 1) return {c.op("Identity", parts)};
  return {c.op("Concat", parts, {{"axis", axis}})};
}

Outs unpack(TfCtx& c) {
  int64_t num = c.i("num", -1), axis = c.i("axis", 0);
  if (num < 1) c.invalid("Unpack needs num >= 1");
  Outs parts = num == 1 ? Outs{c.in.at(0)} : c.opN("Split", {c.in.at(0)}, (int)num, {{"axis", axis}}, "split");
  Outs outs;
  for (int64_t k = 0; k < num; ++k)
    outs.push_back(c.op("Squeeze", {parts[k]}, {{"axes", std::vector<int64_t>{axis}}}, k ? "out" + std::to_string(k) : ""));
  return outs;
}

Outs split(TfCtx& c) {
  int64_t axis = scalarInt(c, 0, "split_dim");
  int64_t num = c.i("num_split", 1);
  if (num < 1) c.invalid("num_split " + std::to_string(num) + " is out of range");
  if (num > (1 << 20)) c.unsupported("num_split " + std::to_string(num) + " is too large");
  if (num == 1) return {c.op("Identity", {c.in.at(1)})};
  return c.opN("Split", {c.in.at(1)}, (int)num, {{"axis", axis}});
}

Outs splitV(TfCtx& c) {
  Value* x = c.in.at(0);
  std::vector<int64_t> sizes = c.constInts(1, "size_splits");
  int64_t axis = scalarInt(c, 2, "split_dim");
  if (sizes.empty()) c.invalid("size_splits is empty");
  int64_t known = 0, unknownAt = -1;
  for (size_t k = 0; k < sizes.size(); ++k)
    if (sizes[k] < 0) unknownAt = (int64_t)k;
    else if (!checkedAdd(known, sizes[k], &known)) c.invalid("size_splits overflow");
  if (unknownAt >= 0) {
    int64_t r = c.requireRank(x, "the SplitV input");
    int64_t a = axis < 0 ? axis + r : axis;
    if (a < 0 || a >= r) c.invalid("split_dim " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
    if (!x->type.shapeKnown || x->type.shape[a] < 0) c.unsupported("the split dim must be known to resolve -1");
    sizes[unknownAt] = x->type.shape[a] - known;
  }
  if (sizes.size() == 1) return {c.op("Identity", {x})};
  return c.opN("Split", {x, c.constI64(sizes)}, (int)sizes.size(), {{"axis", axis}});
}

Outs slice(TfCtx& c) {
  std::vector<int64_t> begin = c.constInts(1, "begin"), size = c.constInts(2, "size");
  if (begin.size() != size.size()) c.invalid("begin and size differ in length");
  std::vector<int64_t> ends, axes;
  for (size_t k = 0; k < begin.size(); ++k) {
    ends.push_back(size[k] < 0 ? kInt64Max : begin[k] + size[k]);
    axes.push_back((int64_t)k);
  }
  return {c.op("Slice", {c.in.at(0), c.constI64(begin), c.constI64(ends), c.constI64(axes)})};
}

// StridedSlice with all five masks: one Slice over the input dims, then Squeeze of the
// shrunk dims, then Unsqueeze of the new axes (positions in the output).
Outs stridedSlice(TfCtx& c) {
  Value* x = c.in.at(0);
  std::vector<int64_t> begin = c.constInts(1, "begin"), end = c.constInts(2, "end"), strides = c.constInts(3, "strides");
  const size_t n = begin.size();
  if (end.size() != n || strides.size() != n) c.invalid("begin, end and strides differ in length");
  int64_t bm = c.i("begin_mask", 0), em = c.i("end_mask", 0), elm = c.i("ellipsis_mask", 0);
  int64_t nam = c.i("new_axis_mask", 0), sam = c.i("shrink_axis_mask", 0);
  const int64_t r = c.requireRank(x, "the StridedSlice input");
  auto bit = [](int64_t m, size_t k) { return ((m >> k) & 1) != 0; };
  int64_t consumed = 0;
  bool hasEllipsis = false;
  for (size_t k = 0; k < n; ++k) {
    if (bit(elm, k)) hasEllipsis = true;
    else if (!bit(nam, k)) ++consumed;
  }
  if (consumed > r) c.invalid("the slice spec has more dims than the input");
  std::vector<int64_t> starts, ends, axes, steps, shrink, newAxes;
  int64_t d = 0, outPos = 0;
  auto full = [&](int64_t dim) {
    (void)dim;
    ++d;
    ++outPos;
  };
  for (size_t k = 0; k < n; ++k) {
    if (bit(elm, k)) {
      int64_t cover = r - consumed;
      for (int64_t e = 0; e < cover; ++e) full(d);
      continue;
    }
    if (bit(nam, k)) {
      newAxes.push_back(outPos++);
      continue;
    }
    int64_t s = strides[k];
    if (s == 0) c.invalid("strides must be non-zero");
    if (bit(sam, k)) {
      int64_t b = begin[k];
      if (x->type.shapeKnown && x->type.shape[d] >= 0) {
        int64_t dim = x->type.shape[d];
        if (b < -dim || b >= dim) c.invalid("the shrink index " + std::to_string(b) + " is out of range");
      }
      starts.push_back(b);
      ends.push_back(b == -1 ? kInt64Max : b + 1);
      steps.push_back(1);
      axes.push_back(d);
      shrink.push_back(d);
      ++d;
      continue;
    }
    int64_t b = begin[k], e = end[k];
    if (bit(bm, k)) b = s > 0 ? 0 : kInt64Max;
    if (bit(em, k)) e = s > 0 ? kInt64Max : INT64_MIN;
    starts.push_back(b);
    ends.push_back(e);
    steps.push_back(s);
    axes.push_back(d);
    ++d;
    ++outPos;
  }
  (void)hasEllipsis;  // dims after the spec are kept whole (implicit ellipsis)
  Value* y = x;
  bool last = shrink.empty() && newAxes.empty();
  if (!axes.empty())
    y = c.op("Slice", {x, c.constI64(starts), c.constI64(ends), c.constI64(axes), c.constI64(steps)}, {},
             last ? "" : "slice");
  if (!shrink.empty()) y = c.op("Squeeze", {y}, {{"axes", shrink}}, newAxes.empty() ? "" : "shrink");
  if (!newAxes.empty()) y = c.op("Unsqueeze", {y}, {{"axes", newAxes}});
  if (y == x) y = c.op("Identity", {x});
  return {y};
}

// MirrorPad SYMMETRIC (the edge cell repeated: [a b c] pad 2,2 -> [b a | a b c | c b]): one
// Gather with constant indices per padded dim (no Pad mode needed). Needs the input shape.
Value* mirrorPadSymmetric(TfCtx& c, const std::vector<int64_t>& p) {
  Value* x = c.in.at(0);
  if (!x->type.isStatic()) c.unsupported("MirrorPad SYMMETRIC needs the input shape (give --input_shape)");
  const Shape& s = x->type.shape;
  if (p.size() != 2 * s.size()) c.invalid("paddings must have shape [rank, 2]");
  Value* y = x;
  for (size_t k = 0; k < s.size(); ++k) {
    int64_t b = p[2 * k], e = p[2 * k + 1], n = s[k];
    if (b == 0 && e == 0) continue;
    if (b < 0 || e < 0 || b > n || e > n) c.invalid("SYMMETRIC paddings must be within [0, dim size]");
    std::vector<int64_t> idx;
    for (int64_t i = b - 1; i >= 0; --i) idx.push_back(i);
    for (int64_t i = 0; i < n; ++i) idx.push_back(i);
    for (int64_t i = n - 1; i >= n - e; --i) idx.push_back(i);
    y = c.op("Gather", {y, c.constI64(idx)}, {{"axis", (int64_t)k}}, "symmetric_" + std::to_string(k));
  }
  if (y == x) y = c.op("Identity", {x});
  return y;
}

Outs pad(TfCtx& c) {
  std::vector<int64_t> p = c.constInts(1, "paddings");
  if (p.size() % 2) c.invalid("paddings must have shape [rank, 2]");
  size_t r = p.size() / 2;
  std::vector<int64_t> pads(2 * r);
  for (size_t k = 0; k < r; ++k) {
    pads[k] = p[2 * k];
    pads[k + r] = p[2 * k + 1];
  }
  std::map<std::string, AttrValue> a;
  std::vector<Value*> ins = {c.in.at(0), c.constI64(pads)};
  if (c.def.op() == "MirrorPad") {
    std::string m = c.s("mode", "REFLECT");
    if (m == "SYMMETRIC") return {mirrorPadSymmetric(c, p)};
    if (m != "REFLECT") c.unsupported("MirrorPad mode " + m + " (REFLECT or SYMMETRIC)");
    a["mode"] = std::string("reflect");
  } else if (c.def.op() == "PadV2") {
    ins.push_back(c.in.at(2));
  }
  return {c.op("Pad", ins, a)};
}

Outs transpose(TfCtx& c) { return {c.op("Transpose", {c.in.at(0)}, {{"perm", c.constInts(1, "perm")}})}; }

Outs shapeOf(TfCtx& c, const std::string& type) {
  DType outT = c.irType("out_type", DType::I32);
  if (outT == DType::I64) return {c.op(type, {c.in.at(0)})};
  return {c.op("Cast", {c.op(type, {c.in.at(0)}, {}, "i64")}, {{"to", onnxTypeOf(outT)}})};
}

Outs rank(TfCtx& c) {
  int64_t r = c.requireRank(c.in.at(0), "the Rank input");
  return {c.g.newConstant(c.def.name(), makeIntTensor({r}, DType::I32, true))};
}

Outs fill(TfCtx& c) { return {c.op("Expand", {c.in.at(1), toI64(c, 0, "dims")})}; }
Outs tile(TfCtx& c) { return {c.op("Tile", {c.in.at(0), toI64(c, 1, "multiples")})}; }

Outs gather(TfCtx& c) {
  if (c.i("batch_dims", 0) != 0) c.unsupported("batch_dims other than 0");
  int64_t axis = c.def.op() == "Gather" ? 0 : scalarInt(c, 2, "axis");
  return {c.op("Gather", {c.in.at(0), c.in.at(1)}, {{"axis", axis}})};
}

Outs range(TfCtx& c) { return {c.op("Range", {c.in.at(0), c.in.at(1), c.in.at(2)})}; }

Outs resize(TfCtx& c, bool bilinear) {
  Value* x = c.in.at(0);
  bool align = c.b("align_corners", false), half = c.b("half_pixel_centers", false);
  std::map<std::string, AttrValue> a;
  a["mode"] = std::string(bilinear ? "linear" : "nearest");
  if (align) a["coordinate_transformation_mode"] = std::string("align_corners");
  else if (half) a["coordinate_transformation_mode"] = std::string(bilinear ? "half_pixel" : "tf_half_pixel_for_nn");
  else a["coordinate_transformation_mode"] = std::string("asymmetric");
  if (!bilinear) a["nearest_mode"] = std::string(align ? "round_prefer_ceil" : "floor");
  Value* xc = c.toChannelsFirst(x, 4);
  Value* nc = c.op("Slice", {c.op("Shape", {xc}, {}, "shape"), c.constI64({0}), c.constI64({2})}, {}, "batch_channels");
  Value* sizes = c.op("Concat", {nc, toI64(c, 1, "size_i64")}, {{"axis", (int64_t)0}}, "sizes");
  Value* y = c.op("Resize", {xc, nullptr, nullptr, sizes}, a, "nchw");
  return {c.toChannelsLast(y, 4, "")};
}

}  // namespace

void registerArrayConverters(ConverterTable& t) {
  t["Reshape"] = reshape;
  t["Squeeze"] = squeeze;
  t["ExpandDims"] = expandDims;
  t["ConcatV2"] = concatV2;
  t["Concat"] = concatV1;
  t["Pack"] = pack;
  t["Unpack"] = unpack;
  t["Split"] = split;
  t["SplitV"] = splitV;
  t["Slice"] = slice;
  t["StridedSlice"] = stridedSlice;
  t["Pad"] = pad;
  t["PadV2"] = pad;
  t["MirrorPad"] = pad;
  t["Transpose"] = transpose;
  t["Shape"] = [](TfCtx& c) { return shapeOf(c, "Shape"); };
  t["Size"] = [](TfCtx& c) { return shapeOf(c, "Size"); };
  t["Rank"] = rank;
  t["Fill"] = fill;
  t["Tile"] = tile;
  t["GatherV2"] = gather;
  t["Gather"] = gather;
  t["Range"] = range;
  t["ResizeBilinear"] = [](TfCtx& c) { return resize(c, true); };
  t["ResizeNearestNeighbor"] = [](TfCtx& c) { return resize(c, false); };
}

}  // namespace tffe
}  // namespace atc
