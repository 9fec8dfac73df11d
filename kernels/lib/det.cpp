// Kernel "det": Det (ops/reduce/det.cpp). Each M x M matrix is copied into the workspace in
// double, factorised by LU with partial pivoting, and its determinant (the product of the
// pivots, negated per row swap) rounded to the output type; a zero pivot (a singular
// matrix) gives 0 and a NaN pivot NaN (a NaN in the matrix reaches a pivot unless a zero
// pivot comes first, as in LAPACK's getrf). Params (never renumber): [0] dtype (ATCK_F32 / ATCK_F64),
// [1] matrices, [2] M. bufs: X, Y, workspace (matrices * M * M doubles). One task per matrix.
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_ops.h"

ATC_KERNEL(det)

int64_t atck_det_ntasks(const int64_t* P) { return P[1]; }

void atck_det_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t dt = P[0], m = P[2];
  for (int64_t t = begin; t < end; ++t) {
    double* a = (double*)bufs[2] + t * m * m;
    for (int64_t i = 0; i < m * m; ++i)
      a[i] = dt == ATCK_F64 ? ((const double*)bufs[0])[t * m * m + i] : (double)((const float*)bufs[0])[t * m * m + i];
    double det = 1.0;
    for (int64_t k = 0; k < m && det == det; ++k) {
      int64_t p = k;
      for (int64_t i = k + 1; i < m; ++i)
        if (fabs(a[i * m + k]) > fabs(a[p * m + k])) p = i;
      const double pivot = a[p * m + k];
      if (pivot != pivot) {  // NaN
        det = pivot;
        break;
      }
      if (pivot == 0.0) {
        det = 0.0;
        break;
      }
      if (p != k) {
        for (int64_t j = 0; j < m; ++j) {
          double s = a[k * m + j];
          a[k * m + j] = a[p * m + j];
          a[p * m + j] = s;
        }
        det = -det;
      }
      det *= pivot;
      for (int64_t i = k + 1; i < m; ++i) {
        const double f = a[i * m + k] / pivot;
        for (int64_t j = k + 1; j < m; ++j) a[i * m + j] -= f * a[k * m + j];
      }
    }
    if (dt == ATCK_F64) ((double*)bufs[1])[t] = det;
    else ((float*)bufs[1])[t] = (float)det;
  }
}
