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
  return KernelCall{"pool", P};
}

}  // namespace atc
