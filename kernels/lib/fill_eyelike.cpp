// eye_like: out = zeros with ones on diagonal k. bufs = {in (unused), out}.
// P = {dtype, rows, cols, k}. Items: rows.
#include "kernels/lib/index_elem.h"

ATC_KERNEL(eye_like)

int64_t atck_eye_like_ntasks(const int64_t* P) { return P[2] == 0 ? 0 : P[1]; }

void atck_eye_like_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t dt = P[0], cols = P[2], k = P[3];
  int64_t es = 1;
  int64_t one = 1;
  switch (dt) {
    case ATCK_F32: { float f = 1.f; es = 4; one = 0; memcpy(&one, &f, 4); break; }
    case ATCK_F64: { double f = 1.0; es = 8; memcpy(&one, &f, 8); break; }
    case ATCK_F16: es = 2; one = 0x3c00; break;
    case ATCK_BF16: es = 2; one = 0x3f80; break;
    case ATCK_I64: case ATCK_U64: es = 8; break;
    case ATCK_I32: case ATCK_U32: es = 4; break;
    case ATCK_I16: case ATCK_U16: es = 2; break;
    default: es = 1; break;
  }
  char* out = (char*)bufs[1];
  for (int64_t i = begin; i < end; ++i) {
    char* row = out + i * cols * es;
    memset(row, 0, (size_t)(cols * es));
    int64_t j = i + k;
    if (j >= 0 && j < cols) memcpy(row + j * es, &one, (size_t)es);
  }
}
