// Blocking of the conv kernel's band paths (kernels/lib/conv.cpp, conv_ocm.h, conv_amx.h), shared
// by their lowerings (ops/cube/conv.cpp, conv_amx_lowering.h).
#pragma once
#include <algorithm>
#include <vector>

#include "kernels/lib/cube_params.h"

namespace atc {

// Band path blocking (kernel conv, CV_BAND; kernels/lib/conv.cpp): output rows per task so that
// a task covers about NB grid positions, fewer when there would be under 8 tasks; the band's
// geometry (phase planes of PQ floats per row; tiles span output rows of PQ grid positions).
// Returns the number of row blocks.
inline int64_t bandRows(std::vector<int64_t>& P, const std::vector<int64_t>& out, const std::vector<int64_t>& k,
                        const std::vector<int64_t>& s, const std::vector<int64_t>& dl, int64_t NB, int64_t planes) {
  const int64_t OH = out[1], OW = out[2];
  const int64_t PQ = OW + (k[2] - 1) * dl[2] / s[2];  // the columns a plane row's taps read
  int64_t rows = std::max<int64_t>(1, std::min<int64_t>(OH, (NB + PQ - 1) / PQ));
  auto blocks = [&](int64_t r) { return (OH + r - 1) / r; };
  while (planes * blocks(rows) < 8 && rows > 1 && rows * PQ > 64) rows = (rows + 1) / 2;
  rows = (OH + blocks(rows) - 1) / blocks(rows);  // equal blocks
  int64_t nq = ((rows - 1) * PQ + OW + 15) / 16 * 16;
  if ((nq / 16) % 2 == 0) nq += 16;  // odd multiple of 16 floats: fewer L1 set conflicts
  P[CV_BAND] = 1;
  P[CV_BROWS] = rows;
  P[CV_PQ] = PQ;
  P[CV_NQ] = nq;
  return blocks(rows);
}

}  // namespace atc
