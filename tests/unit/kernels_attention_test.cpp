// The attention kernel (FusedAttention, kernels/lib/attention.cpp) against a float64 reference,
// with the 6x16 tiles (cubeRows 6) and the 6x64 tiles of 512-bit targets (cubeRows 16, AT_WIDE):
// ragged query blocks, key lengths and value widths (padded K^T / V / O), a head-interleaved
// output view, a transposed V view (non-unit dim stride), an additive mask.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/op_registry.h"
#include "kernels/lib/attention_params.h"
#include "ops/native_eval.h"

using namespace atc;

namespace {

struct AttCase {
  int64_t B, H, SQ, SK, D, DV;
  bool mask, oInterleaved, vTransposed;
};

std::shared_ptr<Tensor> rnd(const Shape& s, uint32_t seed) {
  auto t = std::make_shared<Tensor>(TensorType(DType::F32, s));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int64_t i = 0; i < t->type.numel(); ++i) t->as<float>()[i] = u(rng);
  return t;
}

void runAttention(const AttCase& c, uint32_t seed) {
  const int64_t B = c.B, H = c.H, SQ = c.SQ, SK = c.SK, D = c.D, DV = c.DV;
  auto q = rnd({B, H, SQ, D}, seed), k = rnd({B, H, SK, D}, seed + 1);
  // V stored [B, H, SK, DV], or [B, H, DV, SK] viewed transposed.
  auto v = c.vTransposed ? rnd({B, H, DV, SK}, seed + 2) : rnd({B, H, SK, DV}, seed + 2);
  auto m = rnd({1, 1, SQ, SK}, seed + 3);
  const double scale = 1.0 / std::sqrt((double)D);
  std::vector<int64_t> vView = c.vTransposed ? std::vector<int64_t>{0, H * DV * SK, DV * SK, 1, SK}
                                             : std::vector<int64_t>{0, H * SK * DV, SK * DV, DV, 1};
  // Output [B, SQ, H, DV] (heads interleaved, as before the output projection) or [B, H, SQ, DV].
  std::vector<int64_t> oView = c.oInterleaved ? std::vector<int64_t>{0, SQ * H * DV, DV, H * DV, 1}
                                              : std::vector<int64_t>{0, H * SQ * DV, SQ * DV, DV, 1};
  Shape oShape = c.oInterleaved ? Shape{B, SQ, H, DV} : Shape{B, H, SQ, DV};
  std::vector<double> want(B * H * SQ * DV);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < SQ; ++i) {
        std::vector<double> s(SK);
        double mx = -INFINITY;
        for (int64_t j = 0; j < SK; ++j) {
          double acc = 0;
          for (int64_t d = 0; d < D; ++d)
            acc += (double)q->as<float>()[((b * H + h) * SQ + i) * D + d] * k->as<float>()[((b * H + h) * SK + j) * D + d];
          s[j] = acc * scale + (c.mask ? m->as<float>()[i * SK + j] : 0.0);
          mx = std::max(mx, s[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < SK; ++j) sum += (s[j] = std::exp(s[j] - mx));
        for (int64_t e = 0; e < DV; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < SK; ++j) {
            const int64_t vi = c.vTransposed ? ((b * H + h) * DV + e) * SK + j : ((b * H + h) * SK + j) * DV + e;
            acc += s[j] / sum * v->as<float>()[vi];
          }
          want[oView[0] + b * oView[1] + h * oView[2] + i * oView[3] + e * oView[4]] = acc;
        }
      }
  for (int rows : {6, 16}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    Graph g;
    std::vector<Value*> ins = {g.newConstant("q", q), g.newConstant("k", k), g.newConstant("v", v)};
    if (c.mask) ins.push_back(g.newConstant("m", m));
    Node* n = g.addNode("FusedAttention", "att", ins, {g.newValue("o")});
    n->attrs["dims"] = std::vector<int64_t>{B, H, SQ, SK, D, DV};
    n->attrs["scale"] = scale;
    n->attrs["q_view"] = std::vector<int64_t>{0, H * SQ * D, SQ * D, D, 1};
    n->attrs["k_view"] = std::vector<int64_t>{0, H * SK * D, SK * D, D, 1};
    n->attrs["v_view"] = vView;
    n->attrs["o_view"] = oView;
    if (c.mask) n->attrs["m_view"] = std::vector<int64_t>{0, 0, 0, SK, 1};
    n->attrs["out_shape"] = oShape;
    inferNode(g, *n);
    LowerCtx ctx(g, *n);
    ctx.cubeRows = rows;
    EXPECT_EQ(OpRegistry::instance().find("FusedAttention")->lower(ctx).params[AT_WIDE], rows == 16 ? 1 : 0);
    auto r = evalNodeNative(g, *n, rows);
    double worst = 0;
    for (size_t i = 0; i < want.size(); ++i)
      worst = std::max(worst, std::fabs(r[0]->as<float>()[i] - want[i]));
    EXPECT_LE(worst, 2e-5);
  }
}

}  // namespace

TEST(AttentionKernel, TilesAndViews) {
  runAttention({1, 2, 13, 77, 24, 40, false, false, false}, 1);   // ragged: SK, DV not multiples of 64
  runAttention({1, 3, 9, 64, 64, 64, true, true, false}, 2);      // whole 64-column tiles, O interleaved
  runAttention({2, 2, 50, 129, 16, 70, true, false, true}, 3);    // V transposed (packed), several q blocks
  runAttention({1, 1, 1, 5, 8, 3, false, true, false}, 4);        // one query, tiny widths
}
