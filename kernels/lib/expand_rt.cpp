// expand_rt and tile_rt: Expand with its shape, Tile with its repeats fed at run time. Their
// output is run-sized (kernels/lib/run_sized.h): the size pass writes the dims, the data pass
// copies. One task each (these ops move little data in the models that feed shapes at run time).
// expand_rt: bufs = {x, shape, y, y's dims slot};
//   P = {esize, x rank, shape length L, shape dtype, x dims[rank]}; y's rank is max(rank, L).
// tile_rt: bufs = {x, repeats, y, y's dims slot}; P = {esize, rank, repeats dtype, x dims[rank]}.
#include "kernels/lib/run_sized.h"

ATC_KERNEL(expand_rt)
ATC_KERNEL(tile_rt)

enum { ER_ES, ER_RANK, ER_L, ER_DT, ER_HEADER };

int64_t atck_expand_rt_ntasks(const int64_t*) { return 1; }

// numpy broadcasting of x's dims with the shape; 0 when they do not broadcast.
static inline ATCK_INLINE int atck_er_dims(const int64_t* P, void** bufs, int64_t* od, int64_t* orank) {
  const int64_t r = P[ER_RANK], L = P[ER_L];
  const int64_t R = r > L ? r : L;
  const int64_t* xd = P + ER_HEADER;
  *orank = R;
  for (int64_t d = 0; d < R; ++d) {
    int64_t a = d - (R - r) >= 0 ? xd[d - (R - r)] : 1;
    int64_t b = d - (R - L) >= 0 ? atck_rs_int(bufs[1], P[ER_DT], d - (R - L)) : 1;
    if (b < 0) return 0;
    if (a != b && a != 1 && b != 1) return 0;
    od[d] = a == 1 ? b : a;
  }
  return 1;
}

void atck_expand_rt_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t r = P[ER_RANK], L = P[ER_L], es = P[ER_ES];
  const int64_t R = r > L ? r : L;
  void* slot = bufs[3];
  if (!bufs[2]) {  // the size pass
    int64_t od[ATCK_RS_MAX_RANK], orank = 0;
    if (begin != 0) return;
    if (atck_er_dims(P, bufs, od, &orank)) atck_rs_put(slot, od, orank);
    else atck_rs_invalid(slot, R);
    return;
  }
  const int64_t* od = (const int64_t*)slot;
  const int64_t* xd = P + ER_HEADER;
  int64_t xs[ATCK_RS_MAX_RANK], st = es;
  for (int64_t d = R - 1; d >= 0; --d) {
    const int64_t k = d - (R - r);
    if (k < 0) {
      xs[d] = 0;
      continue;
    }
    xs[d] = xd[k] == 1 && od[d] != 1 ? 0 : st;
    st *= xd[k];
  }
  atck_rs_strided_fill((char*)bufs[2], (const char*)bufs[0], od, xs, R, es);
}

enum { TR_ES, TR_RANK, TR_DT, TR_HEADER };

int64_t atck_tile_rt_ntasks(const int64_t*) { return 1; }

void atck_tile_rt_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t r = P[TR_RANK], es = P[TR_ES];
  const int64_t* xd = P + TR_HEADER;
  void* slot = bufs[3];
  if (!bufs[2]) {
    int64_t od[ATCK_RS_MAX_RANK];
    if (begin != 0) return;
    for (int64_t d = 0; d < r; ++d) {
      const int64_t rep = atck_rs_int(bufs[1], P[TR_DT], d);
      if (rep < 0 || (xd[d] && rep > INT64_MAX / xd[d])) {
        atck_rs_invalid(slot, r);
        return;
      }
      od[d] = xd[d] * rep;
    }
    atck_rs_put(slot, od, r);
    return;
  }
  const int64_t* od = (const int64_t*)slot;
  int64_t n = 1;
  for (int64_t d = 0; d < r; ++d) n *= od[d];
  if (n == 0) return;
  char* y = (char*)bufs[2];
  const char* x = (const char*)bufs[0];
  if (r == 0) {
    atck_move_one(y, x, es);
    return;
  }
  int64_t xs[ATCK_RS_MAX_RANK], st = es, idx[ATCK_RS_MAX_RANK] = {0};
  for (int64_t d = r - 1; d >= 0; --d) xs[d] = st, st *= xd[d];
  const int64_t last = od[r - 1], xl = xd[r - 1];
  for (int64_t row = 0; row < n / last; ++row) {
    int64_t off = 0;
    for (int64_t d = 0; d + 1 < r; ++d) off += (idx[d] % xd[d]) * xs[d];
    char* yr = y + row * last * es;
    for (int64_t i = 0; i < last; i += xl) memcpy(yr + i * es, x + off, (size_t)(xl * es));
    for (int64_t d = r - 2; d >= 0; --d) {
      if (++idx[d] < od[d]) break;
      idx[d] = 0;
    }
  }
}
