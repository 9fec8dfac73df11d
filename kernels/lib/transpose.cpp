// strided_copy: out (dense, row-major dims) [i] = in[offset + sum_d idx_d * stride_d].
// One kernel for Transpose, Slice (any steps), Expand (stride 0), Tile (as a 2r-dim view),
// DepthToSpace / SpaceToDepth (6-d transposes). The lowering merges contiguous dims.
// P = {esize, rank, dims[rank], inStrides[rank] (elements, may be 0 or negative), inOffset,
//      outBuf (index of the output in bufs: the op's constant inputs come before it)}.
// When the output's last dim is not the input's contiguous dim but another output dim is,
// the copy is blocked over those two dims (the fast path of 2-d transposes).
#include "kernels/lib/index_elem.h"

ATC_KERNEL(strided_copy)

namespace {

const int64_t kBlock = 32;

struct StridedView {
  int64_t esize, rank;
  const int64_t* dims;
  const int64_t* strides;
  int64_t offset;
  int64_t numel;
  int64_t jdim;  // output dim read contiguously from the input, -1: row mode
};

ATCK_INLINE StridedView viewOf(const int64_t* P) {
  StridedView v;
  v.esize = P[0];
  v.rank = P[1];
  v.dims = P + 2;
  v.strides = P + 2 + v.rank;
  v.offset = P[2 + 2 * v.rank];
  v.numel = 1;
  for (int64_t d = 0; d < v.rank; ++d) v.numel *= v.dims[d];
  v.jdim = -1;
  int64_t last = v.rank - 1;
  if (v.rank >= 2 && v.strides[last] != 1 && v.dims[last] >= 4) {
    for (int64_t d = last - 1; d >= 0; --d)
      if (v.strides[d] == 1 && v.dims[d] >= 4) { v.jdim = d; break; }
  }
  return v;
}

// Transposes the [a0, a1) x [0, nb) block: out[a * outStrideA + b] = in[a + b * inStrideB].
// Each kBlock x kBlock tile goes through a small buffer in 8 x 8 micro-tiles with constant
// trip counts (LLVM turns them into register shuffles); both memory sides are read/written
// in contiguous runs.
template <class T>
ATCK_INLINE void block2d(T* ATCK_RESTRICT out, const T* ATCK_RESTRICT in, int64_t a0, int64_t a1,
                         int64_t nb, int64_t outStrideA, int64_t inStrideB) {
  const int64_t M = 8;
  for (int64_t b0 = 0; b0 < nb; b0 += kBlock) {
    int64_t b1 = b0 + kBlock < nb ? b0 + kBlock : nb;
    int64_t a = a0;
    for (; a + M <= a1; a += M) {
      int64_t b = b0;
      for (; b + M <= b1; b += M) {
        T tile[M][M];
        for (int64_t y = 0; y < M; ++y)
          for (int64_t x = 0; x < M; ++x) tile[y][x] = in[a + x + (b + y) * inStrideB];
        for (int64_t x = 0; x < M; ++x)
          for (int64_t y = 0; y < M; ++y) out[(a + x) * outStrideA + b + y] = tile[y][x];
      }
      for (; b < b1; ++b)
        for (int64_t x = 0; x < M; ++x) out[(a + x) * outStrideA + b] = in[a + x + b * inStrideB];
    }
    for (; a < a1; ++a)
      for (int64_t b = b0; b < b1; ++b) out[a * outStrideA + b] = in[a + b * inStrideB];
  }
}

}  // namespace

int64_t atck_strided_copy_ntasks(const int64_t* P) {
  StridedView v = viewOf(P);
  if (v.numel == 0) return 0;
  if (v.rank == 0) return 1;
  if (v.jdim < 0) return v.numel / v.dims[v.rank - 1];
  int64_t other = v.numel / (v.dims[v.rank - 1] * v.dims[v.jdim]);
  return other * ((v.dims[v.jdim] + kBlock - 1) / kBlock);
}

void atck_strided_copy_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  StridedView v = viewOf(P);
  const char* in = (const char*)bufs[0];
  char* out = (char*)bufs[P[3 + 2 * v.rank]];
  int64_t es = v.esize;
  if (v.rank == 0) {
    atck_move_one(out, in + v.offset * es, es);
    return;
  }
  int64_t last = v.rank - 1;
  int64_t len = v.dims[last];
  int64_t idx[ATCK_MAX_RANK];
  if (v.jdim < 0) {
    atck_unravel(begin, v.dims, last, idx);
    for (int64_t row = begin; row < end; ++row) {
      int64_t off = v.offset;
      for (int64_t d = 0; d < last; ++d) off += idx[d] * v.strides[d];
      atck_move_strided(out + row * len * es, in + off * es, len, v.strides[last], es);
      atck_odometer_next(idx, v.dims, last);
    }
    return;
  }
  // Blocked mode: dims other than jdim and last, in order.
  int64_t odims[ATCK_MAX_RANK], ostr[ATCK_MAX_RANK], ooutstr[ATCK_MAX_RANK];
  int64_t outStride[ATCK_MAX_RANK];
  int64_t s = 1;
  for (int64_t d = last; d >= 0; --d) { outStride[d] = s; s *= v.dims[d]; }
  int64_t no = 0;
  for (int64_t d = 0; d < last; ++d) {
    if (d == v.jdim) continue;
    odims[no] = v.dims[d];
    ostr[no] = v.strides[d];
    ooutstr[no] = outStride[d];
    ++no;
  }
  int64_t dj = v.dims[v.jdim];
  int64_t nblk = (dj + kBlock - 1) / kBlock;
  for (int64_t t = begin; t < end; ++t) {
    int64_t o = t / nblk, jb = t % nblk;
    atck_unravel(o, odims, no, idx);
    int64_t inOff = v.offset, outOff = 0;
    for (int64_t d = 0; d < no; ++d) { inOff += idx[d] * ostr[d]; outOff += idx[d] * ooutstr[d]; }
    int64_t a0 = jb * kBlock, a1 = a0 + kBlock < dj ? a0 + kBlock : dj;
    int64_t osa = outStride[v.jdim], isb = v.strides[last];
    switch (es) {
      case 1: block2d((uint8_t*)out + outOff, (const uint8_t*)in + inOff, a0, a1, len, osa, isb); break;
      case 2: block2d((uint16_t*)out + outOff, (const uint16_t*)in + inOff, a0, a1, len, osa, isb); break;
      case 4: block2d((uint32_t*)out + outOff, (const uint32_t*)in + inOff, a0, a1, len, osa, isb); break;
      case 8: block2d((uint64_t*)out + outOff, (const uint64_t*)in + inOff, a0, a1, len, osa, isb); break;
      default:
        for (int64_t a = a0; a < a1; ++a)
          for (int64_t b = 0; b < len; ++b)
            memcpy(out + (outOff + a * osa + b) * es, in + (inOff + a + b * isb) * es, (size_t)es);
    }
  }
}
