// Resize (opset 10, 11, 13, 18, 19) and Upsample (opset 7 attribute scales, opset 9 input
// scales). Modes nearest (all nearest_modes), linear (N-d: bilinear, trilinear...), cubic;
// every coordinate_transformation_mode of opsets 11-19; opset 18's axes, antialias and
// keep_aspect_ratio_policy. The lowering computes per-dim tap tables
// (input index + weight per output coordinate), following the ONNX reference
// implementation; the resize kernel applies them separably.
#include <cmath>

#include "kernels/lib/index_elem.h"
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

ResizeSpec resizeSpec(const Graph& g, const Node& n) {
  ResizeSpec s;
  s.in = dm::staticShape(n, 0);
  size_t r = s.in.size();
  s.mode = n.attrString("mode", "nearest");
  if (s.mode == "bilinear" || s.mode == "trilinear") s.mode = "linear";
  if (s.mode != "nearest" && s.mode != "linear" && s.mode != "cubic")
    opError(n, "unsupported mode '" + s.mode + "'");
  bool modern = n.type == "Resize" && (n.inputs.size() >= 3 || g.opsetVersion >= 11);
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (!modern) {
    // Upsample-7 (attribute) / Upsample-9, Resize-10 (input 1): asymmetric, floor.
    s.ctm = "asymmetric";
    s.nearestMode = "floor";
    if (s.mode == "cubic") opError(n, "cubic needs Resize opset 11+");
    if (n.hasAttr("scales")) scales = n.attrFloats("scales");
    else scales = dm::constFloats(n, 1, "scales");
  } else {
    s.ctm = n.attrString("coordinate_transformation_mode", "half_pixel");
    s.nearestMode = n.attrString("nearest_mode", "round_prefer_floor");
    s.cubicA = n.attrFloat("cubic_coeff_a", -0.75);
    s.excludeOutside = n.attrInt("exclude_outside", 0) != 0;
    s.extrap = n.attrFloat("extrapolation_value", 0.0);
    s.antialias = n.attrInt("antialias", 0) != 0;
    if (n.input(2) && (!n.input(2)->isConstant() || n.input(2)->constant->type.numel() > 0))
      scales = dm::constFloats(n, 2, "scales");
    if (n.input(3)) sizes = dm::constInts(n, 3, "sizes");
    if (s.ctm == "tf_crop_and_resize") {
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
  if (!sizes.empty()) {
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
    if (d < 0) opError(n, "negative output size");
  return s;
}

// Input coordinate of output coordinate x along dim d; sets *outside for crop extrapolation.
double sourceCoord(const ResizeSpec& s, size_t d, int64_t x, bool* outside) {
  double scale = s.scales[d];
  double inLen = (double)s.in[d];
  double outLen = scale * inLen;  // as the ONNX reference (not the rounded size)
  double xf = (double)x, r = 0;
  *outside = false;
  if (s.ctm == "half_pixel") r = (xf + 0.5) / scale - 0.5;
  else if (s.ctm == "half_pixel_symmetric") {  // opset 19: the output grid centred on the input's
    double adj = outLen > 0 ? (double)s.out[d] / outLen : 1.0;
    r = inLen / 2 * (1 - adj) + (xf + 0.5) / scale - 0.5;
  }
  else if (s.ctm == "pytorch_half_pixel") r = s.out[d] > 1 ? (xf + 0.5) / scale - 0.5 : 0.0;
  else if (s.ctm == "align_corners") r = outLen <= 1 ? 0.0 : xf * (inLen - 1) / (outLen - 1);
  else if (s.ctm == "asymmetric") r = xf / scale;
  else if (s.ctm == "tf_half_pixel_for_nn") r = (xf + 0.5) / scale;
  else {  // tf_crop_and_resize
    double b = s.roi[d], e = s.roi[d + s.in.size()];
    if (outLen <= 1) r = (e - b) * (inLen - 1) / 2;
    else r = xf * (e - b) * (inLen - 1) / (outLen - 1);
    r += b * (inLen - 1);
    if (r < 0 || r > inLen - 1) *outside = true;
  }
  return r;
}

int64_t nearestIndex(const std::string& m, double x) {
  double f = std::floor(x);
  if (m == "floor") return (int64_t)f;
  if (m == "ceil") return (int64_t)std::ceil(x);
  if (x - f == 0.5) return m == "round_prefer_floor" ? (int64_t)f : (int64_t)f + 1;
  return (int64_t)std::round(x);
}

void cubicCoeffs(double r, double A, double c[4]) {
  double t = r + 1, u = 1 - r, v = 2 - r;
  c[0] = ((A * t - 5 * A) * t + 8 * A) * t - 4 * A;
  c[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
  c[2] = ((A + 2) * u - (A + 3)) * u * u + 1;
  c[3] = ((A * v - 5 * A) * v + 8 * A) * v - 4 * A;
}

int64_t clampI(int64_t i, int64_t n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

// Taps per output coordinate along dim d: 1 (nearest), 2 (linear), 4 (cubic), or with
// antialias when downsampling the filter's footprint widened by 1/scale.
int64_t tapsOf(const ResizeSpec& s, size_t d) {
  if (s.mode == "nearest") return 1;
  bool lin = s.mode == "linear";
  if (!s.antialias || s.scales[d] >= 1.0) return lin ? 2 : 4;
  int64_t start = (int64_t)std::floor((lin ? -1.0 : -2.0) / s.scales[d]) + 1;
  return 2 - 2 * start;
}

// Opset 18 antialias (ONNX reference): around x0 = ceil(src) - 1 with ratio = src - x0 in
// (0, 1], point x0 + i (edge-clamped) gets the filter value at scale * (i - ratio): a
// triangle (linear) or the cubic kernel, normalised to sum 1.
void antialiasTaps(const ResizeSpec& s, size_t d, double src, int64_t taps, int64_t* ii, double* ww) {
  const double scale = s.scales[d], A = s.cubicA;
  const int64_t start = 1 - taps / 2;
  double x0 = std::ceil(src) - 1, ratio = src - x0, sum = 0;
  for (int64_t k = 0; k < taps; ++k) {
    double x = std::fabs(scale * ((double)(start + k) - ratio)), c;
    if (s.mode == "linear") c = std::max(0.0, 1.0 - x);
    else if (x <= 1) c = (A + 2) * x * x * x - (A + 3) * x * x + 1;
    else if (x < 2) c = A * x * x * x - 5 * A * x * x + 8 * A * x - 4 * A;
    else c = 0;
    ii[k] = clampI((int64_t)x0 + start + k, s.in[d]);
    ww[k] = c;
    sum += c;
  }
  for (int64_t k = 0; k < taps; ++k) ww[k] = sum != 0 ? ww[k] / sum : 0;
}

// Tap table of one dim: taps per output coordinate, idx (-1: outside) and weights.
void dimTable(const ResizeSpec& s, size_t d, int64_t taps, std::vector<int64_t>* idx,
              std::vector<double>* w) {
  int64_t inN = s.in[d];
  for (int64_t x = 0; x < s.out[d]; ++x) {
    bool outside = false;
    double src = sourceCoord(s, d, x, &outside);
    std::vector<int64_t> ii((size_t)taps, 0);
    std::vector<double> ww((size_t)taps, 0.0);
    if (outside || inN == 0) {
      ii.assign((size_t)taps, -1);
    } else if (s.mode == "nearest") {
      ii[0] = clampI(nearestIndex(s.nearestMode, src), inN);
      ww[0] = 1.0;
    } else if (s.antialias && s.mode != "nearest" && s.scales[d] < 1.0) {
      antialiasTaps(s, d, src, taps, ii.data(), ww.data());
    } else if (s.mode == "linear") {
      double f = std::floor(src);
      double r = src - f;
      ii[0] = clampI((int64_t)f, inN);
      ii[1] = clampI((int64_t)f + 1, inN);
      ww[0] = 1 - r;
      ww[1] = r;
    } else {
      double f = std::floor(src);
      double c[4];
      cubicCoeffs(src - f, s.cubicA, c);
      double sum = 0;
      for (int k = 0; k < 4; ++k) {
        int64_t raw = (int64_t)f - 1 + k;
        if (s.excludeOutside && (raw < 0 || raw >= inN)) c[k] = 0;
        sum += c[k];
        ii[(size_t)k] = clampI(raw, inN);
      }
      for (int k = 0; k < 4; ++k) ww[(size_t)k] = s.excludeOutside && sum != 0 ? c[k] / sum : c[k];
    }
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
  n.outputs[0]->type = TensorType(dt, s.out);
}

KernelCall lowerResize(LowerCtx& c) {
  ResizeSpec s = resizeSpec(c.graph, c.node);
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
