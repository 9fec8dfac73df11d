// Parameter layouts of the cube and pooling kernels (indices into the int64 params array).
// Shared by the kernels (kernels/lib/conv*.cpp, matmul.cpp, pool.cpp) and their lowerings
// (ops/cube, ops/pool). Plain C so both sides can include it.
#pragma once

// conv (implicit-GEMM convolution, 1-3 spatial dims normalised to 3: D,H,W) and conv_dw.
enum CubeConvParam {
  CV_DTYPE = 0,  // dtype of X (f32, f16, bf16); W packed f32 or same as X; Y: CV_ODT
  CV_N, CV_G, CV_C, CV_OC,
  CV_ID, CV_IH, CV_IW, CV_OD, CV_OH, CV_OW, CV_KD, CV_KH, CV_KW,
  CV_SD, CV_SH, CV_SW, CV_DD, CV_DH, CV_DW, CV_PD, CV_PH, CV_PW,
  CV_HAS_BIAS,   // input 2 present
  CV_W_PACKED,   // weights pre-packed into MR-row panels [G][ceil(M/MR)][K][MR] (f32)
  CV_DIRECT,     // unused (was: 1x1 convs read B rows in place; im2col's plain copy is faster)
  CV_MB,         // output channels per task (multiple of MR); conv_dw, conv_dwc: output rows per band
  CV_NB,         // output pixels per task (multiple of 16)
  CV_KC,         // K block; conv_dwc: units (image, 16 channels) per task
  CV_MSUB,       // output channels per inner block (multiple of MR)
  CV_MBLOCKS, CV_NBLOCKS,
  CV_LDB,        // row stride of the im2col block in the workspace
  CV_SLOT,       // workspace floats per task (excluding alignment)
  CV_PADH, CV_PADW,  // conv_dw: padded rows of one band (CV_MB output rows) and row width;
                     // conv_dwc: the same in pixels of its [CV_PADH][CV_PADW][16] input tile
  CV_YIDX,       // index of the output in bufs (= number of input slots)
  CV_EPI,        // 4 words: epilogue (cube_epilogue in cube_gemm.h; conv, conv_dw)
  CV_ODT = CV_EPI + 4,  // dtype of Y (0 or f32: float32; f16 / bf16: rounded on store)
  CV_ACC,        // conv, reduced Y or CV_BAND: offset (floats) of the fp32 accumulator in the task slot
  CV_BAND,       // conv: 0 im2col; 1 band: B rows read in place from a zero-padded band of
                 // input rows stored as stride phase planes (no im2col), 1-D/2-D only.
  CV_BROWS,      // band: output rows per task
  CV_PQ,         // band: floats per row of a phase plane = the grid's row pitch (OW + (KW-1)*DW/SW)
  CV_NQ,         // band: accumulator floats per output channel (multiple of 16)
  CV_BAND_OFF,   // band: offset (floats) of the padded band in the task slot (row offsets at 0)
  CV_BPLANE,     // band: floats per input channel in the band (an odd multiple of 16: spreads L1 sets)
  CV_MR,         // conv: rows of a weight panel and of the microkernel (cube_gemm.h: 6, or 16 on
                 // 512-bit targets; 0 reads as 6). CV_MB, CV_MSUB and the packed panels use it.
  CV_OCM,        // conv: the channel-major path (kernels/lib/conv_ocm.h), 4 or 2 = vectors per weight
                 // panel: 64-channel panels [G][ceil(M/64)][K][64] with 6-pixel tiles, or 32-channel
                 // ones with 8-pixel tiles; output channels the vector operand, pixels broadcast from
                 // the band (CV_BAND) or from X (1x1); 0: the other paths
  CV_OCM_GQ,     // OCM: offset (floats) in the task slot of the pixel offset table (int32)
  CV_OCM_ROWS,   // OCM: accumulator rows (pixels, a multiple of 16) per 64-channel panel
  CV_BF16DP,     // OCM on bfloat16 X and W (target with AVX512-BF16): 1 the pair tiles on vdpbf16ps
                 // (cube_ukbf.h), 2 the same as float32 FMAs (tests). K runs over pairs of input
                 // channels: W packed [G][MP][KP][NR][2] bfloat16 with KP = ceil(Cg/2)*KH*KW pairs
                 // (p, kh, kw); the band (or a 1x1's converted K block) holds 32-bit words of two
                 // channels' bfloat16 values; CV_KC counts pairs; off[] has KP entries
  CV_AMX,        // conv on AMX tiles (kernels/lib/conv_amx.h; bfloat16 X and W, target with AMX-BF16):
                 // 1 tdpbf16ps where the host has it, 2 the same sums in plain code (tests). W packed
                 // [G][MT][S][16][16][2] bfloat16 (MT = 16-channel tiles, an even count; S = KH*KW*CV_KC/16
                 // steps of 16 channel pairs at one tap); CV_KC: channel pairs per tap padded to a
                 // multiple of 16; CV_NQ: accumulator and (1x1) pair-row pitch in floats; CV_MB: a
                 // multiple of 32 channels; CV_BAND: a pair band (else an unpadded 1x1, CV_NB pixels)
  CV_AMX_BIAS,   // AMX: offset (floats) in the task slot of the bias tiles [CV_MB][16]
  CV_AMX_PIX,    // AMX: offset (floats) in the task slot of a strided 1x1's pixel offsets (int32), or
                 // of the im2col row offsets (CV_AMX_COL)
  CV_AMX_COL,    // AMX, convs with few input channels: 0, or the offset (floats) in the task slot of a
                 // bfloat16 band (one value per position) from which pair rows [CV_KC][CV_NQ] of im2col
                 // rows 2r, 2r + 1 (k = (ic, kh, kw)) are built: W packed with K = Cg*KH*KW as one tap
                 // (a float32 band when CV_AMX_PARTS is 2)
  CV_AMX_PARTS,  // AMX: bfloat16 parts per value, 1 for bfloat16 X and W; 2 for float16 X and W, each
                 // value the exact sum of its parts (kernels/lib/conv_amx_split.h): the band (or pair
                 // rows) holds the parts' planes CV_AMX_PSTRIDE words apart, W is packed
                 // [G][MT][S][parts][16][16][2]
  CV_AMX_PSTRIDE,  // AMX: words from one part's band (or pair rows) to the next
  CV_COUNT
};

// conv band: rows of one stride phase plane (kernels/lib/conv.cpp conv_band_fill), BROWS - 1 +
// (KH-1)*DH/SH + 1, from the params (the lowering sizes the band with it, the kernel fills it).
#define CUBE_CONV_BAND_HBR(P) ((P)[CV_BROWS] + ((P)[CV_KH] - 1) * (P)[CV_DH] / (P)[CV_SH])

// gemm: batched C[b] = alpha * A[b] x B[b] + beta * Cin (broadcast), f32.
// Used by MatMul and Gemm. Batch dims (up to 6) with per-operand strides (0 = broadcast).
enum CubeGemmParam {
  GM_DTYPE = 0, GM_M, GM_N, GM_K,
  GM_A_PACKED,   // A pre-packed [ceil(M/MR)][K][MR] (alpha applied), batch-invariant
  GM_A_RS, GM_A_CS,   // raw A strides (elements)
  GM_B_PACKED,   // B pre-packed [ceil(N/16)][K][16], batch-invariant
  GM_B_RS, GM_B_CS,   // raw B strides
  GM_HAS_C,      // input 2 (Gemm C) present
  GM_C_RS, GM_C_CS,   // its broadcast strides
  GM_ALPHA, GM_BETA,  // doubles (atck_d)
  GM_MB, GM_NB, GM_KC, GM_MBLOCKS, GM_NBLOCKS,
  GM_SLOT,       // workspace floats per task
  GM_YIDX,       // index of the output in bufs
  GM_NBATCH,     // number of batch dims (0..6)
  GM_BATCH0,     // 6 batch dims
  GM_ABS0 = GM_BATCH0 + 6,  // 6 A batch strides
  GM_BBS0 = GM_ABS0 + 6,    // 6 B batch strides
  GM_EPI = GM_BBS0 + 6,     // 4 words: epilogue (cube_epilogue in cube_gemm.h)
  GM_BDT = GM_EPI + 4,      // dtype of B (GM_DTYPE: dtype of A)
  GM_ODT,        // dtype of Y (0 or f32: float32; f16 / bf16: rounded on store)
  GM_ACC,        // reduced Y: offset (floats) of the MB x NB fp32 accumulator in the task slot
  GM_MR,         // rows of an A panel and of the microkernel (6, or 16 on 512-bit targets; 0 reads as 6)
  GM_PACK_A,     // 1: pack a non-constant A even where it could be read in place (its MR rows would
                 // share a few L1 sets; set by the lowering)
  GM_WIDE,       // 1: B packed in 64-column panels [ceil(N/64)][K][64], 6x64 tiles (gemm_wide_task in
                 // kernels/lib/matmul.cpp): alpha 1, no C but a column bias
  GM_BF16DP,     // 1 (with GM_WIDE; A and B bfloat16, target with AVX512-BF16): B packed as bfloat16
                 // pairs [ceil(N/64)][ceil(K/2)][64][2], the tiles on vdpbf16ps (cube_ukbf.h); 2: the
                 // same tiles as float32 FMAs (tests on hosts with AVX512-BF16 check both); 3: 16-row
                 // tiles on AMX (tdpbf16ps, cube_amx.h; target with AMX-BF16)
  GM_COUNT
};

// pool: max / average / lp pooling, NC + 3 spatial dims (D,H,W).
enum CubePoolParam {
  PL_DTYPE = 0, PL_KIND,  // 0 max, 1 avg, 2 lp
  PL_NC, PL_ID, PL_IH, PL_IW, PL_OD, PL_OH, PL_OW, PL_KD, PL_KH, PL_KW,
  PL_SD, PL_SH, PL_SW, PL_DD, PL_DH, PL_DW, PL_PD, PL_PH, PL_PW,
  PL_COUNT_PAD,    // avg: count_include_pad
  PL_P,            // lp: p
  PL_INDICES,      // max: write Indices output (int64)
  PL_STORAGE_ORDER,
  PL_PLANES_PER_TASK,
  PL_YIDX,         // index of the output in bufs
  PL_ED, PL_EH, PL_EW,  // end pads (count_include_pad divisor)
  PL_BAND,         // 1: the vectorised 2-D path (kernels/lib/pool_band.h): max / average, no
                   // indices; the params below size its padded band (workspace: bufs[PL_YIDX + 1])
  PL_PADW,         // band: padded input row width (floats) covering ceil(OW / 16) * 16 outputs
  PL_BROWS,        // band: output rows per band
  PL_SLOT,         // band: workspace floats per task
  PL_COUNT
};
