// Window geometry shared by Conv, ConvTranspose and the pooling ops: reads the ONNX
// attributes (kernel_shape, strides, dilations, pads, auto_pad, ceil_mode) and computes
// output sizes and begin pads.
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/op_registry.h"

namespace atc {

struct WindowGeom {
  int nd = 0;                               // spatial dims
  std::vector<int64_t> in, kernel, stride, dil, padBegin, padEnd, out;
};

// in: spatial input sizes; kernel: window sizes. For Conv / pooling (not transposed).
inline WindowGeom windowGeometry(const Node& n, const std::vector<int64_t>& in,
                                 const std::vector<int64_t>& kernel, bool ceilMode) {
  WindowGeom g;
  g.nd = (int)in.size();
  g.in = in;
  g.kernel = kernel;
  g.stride = n.attrInts("strides", std::vector<int64_t>(g.nd, 1));
  g.dil = n.attrInts("dilations", std::vector<int64_t>(g.nd, 1));
  std::vector<int64_t> pads = n.attrInts("pads", std::vector<int64_t>(2 * g.nd, 0));
  if ((int)g.stride.size() != g.nd) opError(n, "strides must have one value per spatial dim");
  if ((int)g.dil.size() != g.nd) opError(n, "dilations must have one value per spatial dim");
  if ((int)pads.size() != 2 * g.nd) opError(n, "pads must have two values per spatial dim");
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  g.padBegin.assign(g.nd, 0);
  g.padEnd.assign(g.nd, 0);
  g.out.assign(g.nd, 0);
  for (int i = 0; i < g.nd; ++i) {
    if (g.stride[i] < 1 || g.dil[i] < 1 || g.kernel[i] < 1)
      opError(n, "strides, dilations and kernel sizes must be >= 1");
    int64_t ext = (g.kernel[i] - 1) * g.dil[i] + 1;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t o = (in[i] + g.stride[i] - 1) / g.stride[i];
      int64_t total = std::max<int64_t>(0, (o - 1) * g.stride[i] + ext - in[i]);
      g.padBegin[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.padEnd[i] = total - g.padBegin[i];
      g.out[i] = o;
    } else if (autoPad == "VALID") {
      if (in[i] < ext) opError(n, "window larger than the input");
      g.out[i] = (in[i] - ext) / g.stride[i] + 1;
    } else if (autoPad == "NOTSET" || autoPad.empty()) {
      g.padBegin[i] = pads[i];
      g.padEnd[i] = pads[i + g.nd];
      if (g.padBegin[i] < 0 || g.padEnd[i] < 0) opError(n, "negative pads");
      int64_t span = in[i] + g.padBegin[i] + g.padEnd[i] - ext;
      if (span < 0) opError(n, "window larger than the padded input");
      if (ceilMode) {
        int64_t o = (span + g.stride[i] - 1) / g.stride[i] + 1;
        // The last window must start inside the input or the begin padding.
        if ((o - 1) * g.stride[i] >= in[i] + g.padBegin[i]) --o;
        g.out[i] = o;
      } else {
        g.out[i] = span / g.stride[i] + 1;
      }
    } else {
      opError(n, "unknown auto_pad value " + autoPad);
    }
  }
  return g;
}

// Planes per task of the plane-wise kernels (conv_dw, the pool kernel's band path): each task
// reuses one workspace slot for its planes, so 8 to 32 tasks, fewer as the slots grow, keep the
// slots a layer touches within ~512 KB (a slot per plane, 144 planes of 56x56, touched 2.3 MB:
// cache lines evicted for nothing).
inline int64_t planesPerTask(int64_t planes, int64_t slotBytes) {
  int64_t tasks = std::max<int64_t>(8, std::min<int64_t>(32, (512 * 1024) / std::max<int64_t>(slotBytes, 1)));
  tasks = std::max<int64_t>(1, std::min<int64_t>(tasks, planes));
  return (planes + tasks - 1) / tasks;
}

}  // namespace atc
