// Op codes and parameter layouts of the reduction kernels "reduce" and "argreduce"
// (kernels/lib/reduce.cpp), shared with ops/reduce. Never renumber.
#pragma once

enum AtckReduceOp {
  ATCK_R_SUM = 0,
  ATCK_R_MEAN = 1,
  ATCK_R_MAX = 2,
  ATCK_R_MIN = 3,
  ATCK_R_PROD = 4,
  ATCK_R_L1 = 5,
  ATCK_R_L2 = 6,
  ATCK_R_LOGSUM = 7,
  ATCK_R_LOGSUMEXP = 8,
  ATCK_R_SUMSQUARE = 9,
};

// "reduce" params. The lowering collapses the input into alternating kept / reduced dims
// (size-1 dims dropped, adjacent dims of one kind merged); outputs are row-major over the
// kept dims.
enum AtckReduceParam {
  ATCK_RP_OP = 0,
  ATCK_RP_CT = 1,       // compute type (AtckComputeType)
  ATCK_RP_INDT = 2,
  ATCK_RP_OUTDT = 3,
  ATCK_RP_NOUT = 4,     // number of output elements
  ATCK_RP_NRED = 5,     // number of reduced elements per output
  ATCK_RP_KRANK = 6,    // number of kept dims K
  ATCK_RP_RRANK = 7,    // number of reduced dims R (>= 1)
  ATCK_RP_INNER = 8,    // > 1: the last kept dim has input stride 1 (vectorise across it)
  ATCK_RP_OUTBUF = 9,   // index of the output in bufs
  ATCK_RP_PER_TASK = 10, // outputs per work item
  ATCK_RP_HEADER = 11,
  // then keptShape[K], keptStrides[K], redShape[R], redStrides[R]
};

// "reduce_axes" params: the reduced axes are read at run time from bufs[1] (int64, RA_NAXES
// values, each in [-rank, rank), none repeated; otherwise every output dim is written as -1
// and the run fails). The output's actual dims go after its data at byte RA_AT
// (Value::shapeFromData). bufs: X, axes, Y.
enum AtckReduceAxesParam {
  ATCK_RA_OP = 0,      // AtckReduceOp, with the implementation variant bits as ATCK_RP_OP
  ATCK_RA_CT = 1,
  ATCK_RA_INDT = 2,
  ATCK_RA_OUTDT = 3,
  ATCK_RA_RANK = 4,
  ATCK_RA_NAXES = 5,   // > 0
  ATCK_RA_KEEP = 6,    // keepdims
  ATCK_RA_AT = 7,
  ATCK_RA_TASKS = 8,
  ATCK_RA_HEADER = 9,
  // then the input dims[RANK]
};

// "argreduce" params: input viewed as [outer, n, inner]; output int64 [outer, inner].
enum AtckArgParam {
  ATCK_AP_ISMAX = 0,
  ATCK_AP_LAST = 1,  // select_last_index
  ATCK_AP_INDT = 2,
  ATCK_AP_OUTER = 3,
  ATCK_AP_N = 4,
  ATCK_AP_INNER = 5,
  ATCK_AP_OUTBUF = 6,
};

#define ATCK_REDUCE_MAX_RANK 16
#define ATCK_REDUCE_BLOCK 16384
#define ATCK_REDUCE_VEC 128
