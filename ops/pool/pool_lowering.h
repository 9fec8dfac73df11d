// Shared lowering of the pooling ops to the pool kernel.
#pragma once
#include <algorithm>

#include "ir/op_registry.h"
#include "kernels/lib/cube_params.h"
#include "ops/cube/conv_geometry.h"

namespace atc {

struct PoolSpec {
  int kind = 0;  // 0 max, 1 avg, 2 lp
  WindowGeom g;
  bool countIncludePad = false;
  double p = 2.0;
  bool indices = false;
  int64_t storageOrder = 0;
};

inline KernelCall lowerPoolSpec(const Node& n, const PoolSpec& s) {
  const TensorType& xt = n.inputs[0]->type;
  if (xt.dtype != DType::F32 && xt.dtype != DType::F16)
    opError(n, std::string("pooling supports float32 and float16 (got ") + dtypeName(xt.dtype) + ")");
  auto to3 = [](const std::vector<int64_t>& v, int64_t fill) {
    std::vector<int64_t> r(3 - v.size(), fill);
    r.insert(r.end(), v.begin(), v.end());
    return r;
  };
  const WindowGeom& g = s.g;
  std::vector<int64_t> in = to3(g.in, 1), out = to3(g.out, 1), k = to3(g.kernel, 1),
                       st = to3(g.stride, 1), dl = to3(g.dil, 1), pb = to3(g.padBegin, 0),
                       pe = to3(g.padEnd, 0);
  std::vector<int64_t> P(PL_COUNT, 0);
  P[PL_DTYPE] = (int64_t)xt.dtype;
  P[PL_KIND] = s.kind;
  P[PL_NC] = xt.shape[0] * xt.shape[1];
  for (int i = 0; i < 3; ++i) {
    P[PL_ID + i] = in[i]; P[PL_OD + i] = out[i]; P[PL_KD + i] = k[i];
    P[PL_SD + i] = st[i]; P[PL_DD + i] = dl[i]; P[PL_PD + i] = pb[i]; P[PL_ED + i] = pe[i];
  }
  P[PL_COUNT_PAD] = s.countIncludePad;
  P[PL_P] = paramFromDouble(s.p);
  P[PL_INDICES] = s.indices;
  P[PL_STORAGE_ORDER] = s.storageOrder;
  P[PL_PLANES_PER_TASK] = std::max<int64_t>(1, P[PL_NC] / 64);
  P[PL_YIDX] = (int64_t)n.inputs.size();
  KernelCall kc{"pool", P};
  // Max / average 2-D (or 1-D) windows of column stride 1 without Indices: the vectorised band
  // path (kernels/lib/pool_band.h); bands of output rows whose padded input rows fit in 32 KB.
  // Column-strided windows keep the scalar loops, which read the input in place: a 3x3 stride-2
  // MaxPool over 64x112x112 took 0.065 ms there and 0.100 ms through the band (its phase
  // copy), 1 thread, Zen 5; a 3x3 stride-1 one over 528x14x14 0.25 -> 0.07 ms through the band.
  const bool global = out[0] * out[1] * out[2] == 1;
  if (s.kind <= 1 && !s.indices && in[0] == 1 && k[0] == 1 && !global && st[2] == 1) {
    const int64_t owp = (out[2] + 15) / 16 * 16;
    const int64_t padw = owp + (k[2] - 1) * dl[2], rs = padw;
    auto bandRows = [&](int64_t b) { return (b - 1) * st[1] + (k[1] - 1) * dl[1] + 1; };
    int64_t ohb = out[1];
    while (ohb > 1 && bandRows(ohb) * rs * 4 > 32768) ohb = (ohb + 1) / 2;
    P[PL_BAND] = 1;
    P[PL_PADW] = padw;
    P[PL_BROWS] = ohb;
    P[PL_SLOT] = (owp + bandRows(ohb) * rs + 15) / 16 * 16;
    P[PL_PLANES_PER_TASK] = planesPerTask(P[PL_NC], P[PL_SLOT] * 4);
    kc.params = P;
    kc.workspaceBytes = (P[PL_NC] + P[PL_PLANES_PER_TASK] - 1) / P[PL_PLANES_PER_TASK] * P[PL_SLOT] * 4 + 64;
  }
  return kc;
}

}  // namespace atc
