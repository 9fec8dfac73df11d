// Resize (opset 10, 11, 13, 18, 19) and Upsample (opset 7 attribute scales, opset 9 input
// scales). Modes nearest (all nearest_modes), linear (N-d: bilinear, trilinear...), cubic;
// every coordinate_transformation_mode of opsets 11-19; opset 18's axes, antialias and
// keep_aspect_ratio_policy. The lowering computes per-dim tap tables
// (input index + weight per output coordinate), following the ONNX reference
// implementation; the resize kernel applies them separably.
#include <cmath>

#include "kernels/lib/index_elem.h"
#include "kernels/lib/resize_coords.h"
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

struct ResizeSpec {
  Shape in, out;
  std::vector<double> scales;  // per dim (given, or out/in when sizes are given)
  std::vector<double> roi;     // 2*rank (starts, ends), tf_crop_and_resize only
  std::string mode, ctm, nearestMode;
  double cubicA = -0.75, extrap = 0.0;
  bool excludeOutside = false;
  bool antialias = false;  // opset 18: linear/cubic filters widened by 1/scale when downsampling
};

// Opset 18's axes: scales / sizes / roi given for these dims only; the rest keep their size.
std::vector<int64_t> resizeAxes(const Node& n, size_t r) {
  std::vector<int64_t> axes;
  if (!n.hasAttr("axes")) {
    for (size_t d = 0; d < r; ++d) axes.push_back((int64_t)d);
    return axes;
  }
  std::vector<bool> seen(r, false);
  for (int64_t a : n.attrInts("axes")) {
    int64_t d = normalizeAxis(a, (int64_t)r, n);
    if (seen[(size_t)d]) opError(n, "repeated axes");
    seen[(size_t)d] = true;
    axes.push_back(d);
  }
  return axes;
}

// sizes (given for `axes`) -> output dims and scales, with keep_aspect_ratio_policy.
void applySizes(const Node& n, const std::vector<int64_t>& axes, const std::vector<int64_t>& sizes, ResizeSpec& s) {
  if (sizes.size() != axes.size())
    opError(n, "sizes has " + std::to_string(sizes.size()) + " values for " + std::to_string(axes.size()) + " axes");
  std::string pol = n.attrString("keep_aspect_ratio_policy", "stretch");
  if (pol != "stretch" && pol != "not_larger" && pol != "not_smaller")
    opError(n, "unsupported keep_aspect_ratio_policy '" + pol + "'");
  double scale = pol == "not_larger" ? 1e300 : 0.0;
  for (size_t i = 0; i < axes.size(); ++i) {
    double r = s.in[(size_t)axes[i]] > 0 ? (double)sizes[i] / (double)s.in[(size_t)axes[i]] : 1.0;
    scale = pol == "not_larger" ? std::min(scale, r) : std::max(scale, r);
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t d = (size_t)axes[i];
    if (pol == "stretch") {
      s.out[d] = sizes[i];
      s.scales[d] = s.in[d] > 0 ? (double)sizes[i] / (double)s.in[d] : 1.0;
    } else {  // one scale for every axis; sizes rounded half to even as the ONNX reference
      s.scales[d] = scale;
      s.out[d] = (int64_t)std::nearbyint(scale * (double)s.in[d]);
    }
  }
}

// Scales or sizes (or tf_crop_and_resize's roi) fed at run time make the output run-sized
// (kernels/lib/resize_rt.cpp): the input that decides the output's dims, whether they are sizes.
struct RunTimeSource {
  bool runTime = false, sizes = false;
  size_t input = 0;
};

bool isModern(const Graph& g, const Node& n) {
  return n.type == "Resize" && (n.inputs.size() >= 3 || g.opsetVersion >= 11);
}

RunTimeSource runTimeSource(const Graph& g, const Node& n) {
  RunTimeSource r;
  auto fed = [&](size_t i) { return n.input(i) && !n.input(i)->isConstant(); };
  if (!isModern(g, n)) {
    r.input = 1;
    r.runTime = !n.hasAttr("scales") && fed(1);
    return r;
  }
  const Value* sc = n.input(2);
  bool useScales = sc && (sc->isConstant() ? sc->constant->type.numel() > 0 : sc->type.numel() != 0);
  r.sizes = !useScales;
  r.input = useScales ? 2 : 3;
  r.runTime = fed(r.input) ||
              (n.attrString("coordinate_transformation_mode", "half_pixel") == "tf_crop_and_resize" && fed(1));
  return r;
}

ResizeSpec resizeSpec(const Graph& g, const Node& n) {
  ResizeSpec s;
  const RunTimeSource rts = runTimeSource(g, n);
  s.in = dm::staticShape(n, 0);
  size_t r = s.in.size();
  s.mode = n.attrString("mode", "nearest");
  if (s.mode == "bilinear" || s.mode == "trilinear") s.mode = "linear";
  if (s.mode != "nearest" && s.mode != "linear" && s.mode != "cubic")
    opError(n, "unsupported mode '" + s.mode + "'");
  bool modern = isModern(g, n);
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (!modern) {
    // Upsample-7 (attribute) / Upsample-9, Resize-10 (input 1): asymmetric, floor.
    s.ctm = "asymmetric";
    s.nearestMode = "floor";
    if (s.mode == "cubic") opError(n, "cubic needs Resize opset 11+");
    if (n.hasAttr("scales")) scales = n.attrFloats("scales");
    else if (!rts.runTime) scales = dm::constFloats(n, 1, "scales");
  } else {
    s.ctm = n.attrString("coordinate_transformation_mode", "half_pixel");
    s.nearestMode = n.attrString("nearest_mode", "round_prefer_floor");
    s.cubicA = n.attrFloat("cubic_coeff_a", -0.75);
    s.excludeOutside = n.attrInt("exclude_outside", 0) != 0;
    s.extrap = n.attrFloat("extrapolation_value", 0.0);
    s.antialias = n.attrInt("antialias", 0) != 0;
    if (!rts.runTime && n.input(2) && (!n.input(2)->isConstant() || n.input(2)->constant->type.numel() > 0))
      scales = dm::constFloats(n, 2, "scales");
    if (!rts.runTime && n.input(3)) sizes = dm::constInts(n, 3, "sizes");
    if (s.ctm == "tf_crop_and_resize" && !rts.runTime) {
      std::vector<int64_t> axes = resizeAxes(n, r);
      std::vector<double> roi;
      if (n.input(1)) roi = dm::constFloats(n, 1, "roi");
      if (roi.size() != 2 * axes.size()) opError(n, "tf_crop_and_resize needs an roi of 2 values per axis");
      s.roi.assign(2 * r, 0.0);
      for (size_t d = 0; d < r; ++d) s.roi[d + r] = 1.0;
      for (size_t i = 0; i < axes.size(); ++i) {
        s.roi[(size_t)axes[i]] = roi[i];
        s.roi[(size_t)axes[i] + r] = roi[i + axes.size()];
      }
    }
  }
  static const char* ctms[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                               "tf_half_pixel_for_nn", "tf_crop_and_resize", "half_pixel_symmetric"};
  bool ok = false;
  for (auto* c : ctms) ok |= s.ctm == c;
  if (!ok) opError(n, "unsupported coordinate_transformation_mode '" + s.ctm + "'");
  static const char* nms[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  ok = false;
  for (auto* c : nms) ok |= s.nearestMode == c;
  if (!ok) opError(n, "unsupported nearest_mode '" + s.nearestMode + "'");
  s.out = s.in;
  s.scales.assign(r, 1.0);
  std::vector<int64_t> axes;
  if (modern) axes = resizeAxes(n, r);
  else
    for (size_t d = 0; d < r; ++d) axes.push_back((int64_t)d);
  if (rts.runTime) {
    const Value* v = n.input(rts.input);
    if (!v || !v->type.isStatic() || v->type.rank() != 1 || v->type.numel() != (int64_t)axes.size())
      opError(n, std::string(rts.sizes ? "sizes" : "scales") + " fed at run time must hold one value per axis (" +
                     std::to_string(axes.size()) + ")");
    for (int64_t d : axes) s.out[(size_t)d] = -1;
    std::string pol = n.attrString("keep_aspect_ratio_policy", "stretch");
    if (pol != "stretch" && pol != "not_larger" && pol != "not_smaller")
      opError(n, "unsupported keep_aspect_ratio_policy '" + pol + "'");
    const Value* roi = n.input(1);
    if (s.ctm == "tf_crop_and_resize" && (!roi || roi->type.numel() != 2 * (int64_t)axes.size()))
      opError(n, "tf_crop_and_resize needs an roi of 2 values per axis");
  } else if (!sizes.empty()) {
    applySizes(n, axes, sizes, s);
  } else {
    if (scales.size() != axes.size())
      opError(n, "scales has " + std::to_string(scales.size()) + " values for " + std::to_string(axes.size()) +
                     " axes (scales or sizes must be a constant)");
    for (size_t i = 0; i < axes.size(); ++i) {
      size_t d = (size_t)axes[i];
      if (scales[i] <= 0) opError(n, "scales must be positive");
      s.scales[d] = scales[i];
      s.out[d] = (int64_t)std::floor((double)s.in[d] * scales[i]);
    }
  }
  for (auto d : s.out)
    if (d < 0 && !rts.runTime) opError(n, "negative output size");
  return s;
}

// The filter of dim d in the codes of kernels/lib/resize_coords.h.
AtckRzDim rzDim(const ResizeSpec& s, size_t d) {
  static const char* ctms[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                               "tf_half_pixel_for_nn", "tf_crop_and_resize", "half_pixel_symmetric"};
  static const char* nms[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  AtckRzDim z{};
  z.mode = s.mode == "nearest" ? ATCK_RZ_NEAREST : s.mode == "linear" ? ATCK_RZ_LINEAR : ATCK_RZ_CUBIC;
  for (int64_t i = 0; i < 7; ++i)
    if (s.ctm == ctms[i]) z.ctm = i;
  for (int64_t i = 0; i < 4; ++i)
    if (s.nearestMode == nms[i]) z.nearestMode = i;
  z.antialias = s.antialias ? 1 : 0;
  z.excludeOutside = s.excludeOutside ? 1 : 0;
  z.cubicA = s.cubicA;
  z.scale = s.scales[d];
  z.inLen = s.in[d];
  z.outLen = s.out[d];
  if (!s.roi.empty()) z.roiB = s.roi[d], z.roiE = s.roi[d + s.in.size()];
  return z;
}

int64_t tapsOf(const ResizeSpec& s, size_t d) { return atck_rz_taps(rzDim(s, d)); }

// Tap table of one dim: taps per output coordinate, idx (-1: outside) and weights.
void dimTable(const ResizeSpec& s, size_t d, int64_t taps, std::vector<int64_t>* idx,
              std::vector<double>* w) {
  const AtckRzDim z = rzDim(s, d);
  std::vector<int64_t> ii((size_t)taps);
  std::vector<double> ww((size_t)taps);
  for (int64_t x = 0; x < s.out[d]; ++x) {
    atck_rz_tap_row(z, x, taps, ii.data(), ww.data());
    idx->insert(idx->end(), ii.begin(), ii.end());
    w->insert(w->end(), ww.begin(), ww.end());
  }
}

bool isIdentity(const ResizeSpec& s, size_t d, int64_t taps, const std::vector<int64_t>& idx,
                const std::vector<double>& w) {
  if (s.in[d] != s.out[d]) return false;
  for (int64_t x = 0; x < s.out[d]; ++x) {
    for (int64_t k = 0; k < taps; ++k) {
      size_t j = (size_t)(x * taps + k);
      if (idx[j] < 0) return false;
      if (w[j] != 0 && !(idx[j] == x && w[j] == 1.0)) return false;
    }
  }
  return true;
}

void inferResize(Graph& g, Node& n) {
  ResizeSpec s = resizeSpec(g, n);
  DType dt = n.inputs[0]->type.dtype;
  if (s.mode != "nearest" && (dt == DType::Bool || dt == DType::U64 || dt == DType::U32 || dt == DType::U16))
    opError(n, std::string("mode ") + s.mode + " does not support " + dtypeName(dt));
  if (runTimeSource(g, n).runTime) dm::setRunSized(n, 0, dt, s.out);
  else n.outputs[0]->type = TensorType(dt, s.out);
}

// Scales or sizes fed at run time: resize_rt (P as kernels/lib/resize_rt.cpp lists them).
KernelCall lowerResizeRunTime(LowerCtx& c, const ResizeSpec& s, const RunTimeSource& rts) {
  const Node& n = c.node;
  const DType dt = n.inputs[0]->type.dtype;
  const AtckRzDim z = rzDim(s, 0);
  std::vector<int64_t> axes;
  if (isModern(c.graph, n)) axes = resizeAxes(n, s.in.size());
  else
    for (size_t d = 0; d < s.in.size(); ++d) axes.push_back((int64_t)d);
  const std::string pol = n.attrString("keep_aspect_ratio_policy", "stretch");
  const bool roi = s.ctm == "tf_crop_and_resize" && n.input(1);
  KernelCall k{"resize_rt",
               {(int64_t)dt, (int64_t)dtypeSize(dt), (int64_t)s.in.size(), z.mode, z.ctm, z.nearestMode, z.antialias,
                z.excludeOutside, paramFromDouble(s.cubicA), paramFromDouble(s.extrap),
                pol == "not_larger" ? 1 : pol == "not_smaller" ? 2 : 0, (int64_t)axes.size(), rts.sizes ? 1 : 0,
                (int64_t)rts.input, (int64_t)n.input(rts.input)->type.dtype, roi ? 1 : -1,
                roi ? (int64_t)n.input(1)->type.dtype : 0, (int64_t)n.inputs.size()}};
  k.params.insert(k.params.end(), axes.begin(), axes.end());
  k.params.insert(k.params.end(), s.in.begin(), s.in.end());
  k.sizesOutputs = true;
  return k;
}

KernelCall lowerResize(LowerCtx& c) {
  ResizeSpec s = resizeSpec(c.graph, c.node);
  const RunTimeSource rts = runTimeSource(c.graph, c.node);
  if (rts.runTime) return lowerResizeRunTime(c, s, rts);
  DType dt = c.node.inputs[0]->type.dtype;
  size_t r = s.in.size();
  std::vector<int64_t> dimTaps(r);
  std::vector<std::vector<int64_t>> tabs(r);
  for (size_t d = 0; d < r; ++d) {
    int64_t taps = tapsOf(s, d);
    std::vector<int64_t> idx;
    std::vector<double> w;
    dimTable(s, d, taps, &idx, &w);
    if (isIdentity(s, d, taps, idx, w)) { dimTaps[d] = 0; continue; }
    dimTaps[d] = taps;
    tabs[d] = idx;
    for (double x : w) tabs[d].push_back(paramFromDouble(x));
  }
  int64_t combos = 1;  // tap combinations of the leading dims, which the kernel keeps per row
  for (size_t d = 0; d + 1 < r; ++d) combos *= std::max<int64_t>(dimTaps[d], 1);
  if (combos > ATCK_RESIZE_MAX_COMBOS)
    opError(c.node, "the filter footprint (" + std::to_string(combos) + " taps per output row) exceeds " +
                        std::to_string(ATCK_RESIZE_MAX_COMBOS) + " (antialias with a very small scale)");
  KernelCall k;
  k.kernel = "resize";
  k.params = {(int64_t)dt, (int64_t)dtypeSize(dt), (int64_t)r, s.mode == "nearest" ? 1 : 0,
              paramFromDouble(s.extrap), (int64_t)c.node.inputs.size()};
  for (auto t : dimTaps) k.params.push_back(t);
  for (auto d : s.out) k.params.push_back(d);
  for (auto d : s.in) k.params.push_back(d);
  for (auto& t : tabs) k.params.insert(k.params.end(), t.begin(), t.end());
  return k;
}

OpDef def(const char* type, int maxIn) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::DataMove;
  d.minInputs = 1;
  d.maxInputs = maxIn;
  d.infer = inferResize;
  d.lower = lowerResize;
  return d;
}

ATC_REGISTER_OP(def("Resize", 4));
ATC_REGISTER_OP(def("Upsample", 2));

}  // namespace
}  // namespace atc
