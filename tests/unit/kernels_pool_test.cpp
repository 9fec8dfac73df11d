// Pooling ops through their native kernel against naive references.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/native_eval.h"
#include "support/diagnostics.h"
#include "ir/op_registry.h"
#include "kernels/lib/cube_params.h"
#include "kernels/lib/native_registry.h"

using namespace atc;

namespace {

struct PoolCase {
  std::string op;
  Shape x;                         // N, C, spatial...
  std::vector<int64_t> k, s, d, pads;
  bool ceil = false, countPad = false, indices = false;
  int64_t storageOrder = 0;
  std::string autoPad = "NOTSET";
  int64_t p = 2;
};

// Stores v as element i of a float32 / float16 tensor; returns the value stored (rounded).
float storeAs(Tensor& t, int64_t i, float v, DType dt) {
  if (dt != DType::F16) return t.as<float>()[i] = v;
  t.as<uint16_t>()[i] = floatToHalf(v);
  return halfToFloat(t.as<uint16_t>()[i]);
}

void runPool(const PoolCase& pc, uint32_t seed, DType dt = DType::F32) {
  int nd = (int)pc.x.size() - 2;
  auto xt = std::make_shared<Tensor>(TensorType(dt, pc.x));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  int64_t nx = xt->type.numel();
  std::vector<float> xf(nx);
  for (int64_t i = 0; i < nx; ++i) xf[i] = storeAs(*xt, i, u(rng), dt);
  Graph g;
  std::vector<Value*> outs = {g.newValue("y")};
  if (pc.indices) outs.push_back(g.newValue("i"));
  Node* n = g.addNode(pc.op, "pool", {g.newConstant("x", xt)}, outs);
  n->attrs["kernel_shape"] = pc.k;
  n->attrs["strides"] = pc.s;
  if (pc.op == "MaxPool") n->attrs["dilations"] = pc.d;
  if (pc.autoPad != "NOTSET") n->attrs["auto_pad"] = pc.autoPad;
  else n->attrs["pads"] = pc.pads;
  if (pc.ceil) n->attrs["ceil_mode"] = int64_t(1);
  if (pc.countPad) n->attrs["count_include_pad"] = int64_t(1);
  if (pc.storageOrder) n->attrs["storage_order"] = pc.storageOrder;
  if (pc.op == "LpPool") n->attrs["p"] = pc.p;
  inferNode(g, *n);
  // Reference geometry.
  std::vector<int64_t> out(nd), pb(nd), pe(nd);
  for (int i = 0; i < nd; ++i) {
    int64_t in = pc.x[2 + i], ext = (pc.k[i] - 1) * pc.d[i] + 1;
    if (pc.autoPad == "NOTSET") {
      pb[i] = pc.pads[i];
      pe[i] = pc.pads[i + nd];
      double o = double(in + pb[i] + pe[i] - ext) / pc.s[i] + 1;
      out[i] = pc.ceil ? (int64_t)std::ceil(o - 1e-9) : (int64_t)std::floor(o);
      if (pc.ceil && (out[i] - 1) * pc.s[i] >= in + pb[i]) --out[i];
    } else {
      out[i] = (in + pc.s[i] - 1) / pc.s[i];
      int64_t total = std::max<int64_t>(0, (out[i] - 1) * pc.s[i] + ext - in);
      pb[i] = pc.autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe[i] = total - pb[i];
    }
  }
  Shape ys = {pc.x[0], pc.x[1]};
  ys.insert(ys.end(), out.begin(), out.end());
  ASSERT_EQ(n->outputs[0]->type.shape, ys);
  auto r = evalNodeNative(g, *n);
  // Reference over 3-D normalised geometry.
  auto to3 = [&](const std::vector<int64_t>& v, int64_t f) {
    std::vector<int64_t> o(3 - nd, f);
    o.insert(o.end(), v.begin(), v.end());
    return o;
  };
  std::vector<int64_t> in3 = to3(std::vector<int64_t>(pc.x.begin() + 2, pc.x.end()), 1),
                       o3 = to3(out, 1), k3 = to3(pc.k, 1), s3 = to3(pc.s, 1), d3 = to3(pc.d, 1),
                       pb3 = to3(pb, 0), pe3 = to3(pe, 0);
  int64_t NC = pc.x[0] * pc.x[1], IP = in3[0] * in3[1] * in3[2], OP = o3[0] * o3[1] * o3[2];
  double tol = dt == DType::F16 ? 2e-3 : 1e-5;
  for (int64_t pl = 0; pl < NC; ++pl)
    for (int64_t od = 0; od < o3[0]; ++od)
      for (int64_t oh = 0; oh < o3[1]; ++oh)
        for (int64_t ow = 0; ow < o3[2]; ++ow) {
          int64_t o[3] = {od, oh, ow};
          double acc = pc.op == "MaxPool" ? -INFINITY : 0.0;
          int64_t cnt = 0, cntPad = 1, best = -1;
          for (int a = 0; a < 3; ++a) {
            int64_t c = 0;
            for (int64_t kk = 0; kk < k3[a]; ++kk) {
              int64_t x = o[a] * s3[a] - pb3[a] + kk * d3[a];
              if (x >= -pb3[a] && x < in3[a] + pe3[a]) ++c;
            }
            cntPad *= c;
          }
          for (int64_t kd = 0; kd < k3[0]; ++kd)
            for (int64_t kh = 0; kh < k3[1]; ++kh)
              for (int64_t kw = 0; kw < k3[2]; ++kw) {
                int64_t id = od * s3[0] - pb3[0] + kd * d3[0];
                int64_t ih = oh * s3[1] - pb3[1] + kh * d3[1];
                int64_t iw = ow * s3[2] - pb3[2] + kw * d3[2];
                if (id < 0 || id >= in3[0] || ih < 0 || ih >= in3[1] || iw < 0 || iw >= in3[2]) continue;
                int64_t idx = (id * in3[1] + ih) * in3[2] + iw;
                double v = xf[pl * IP + idx];
                ++cnt;
                if (pc.op == "MaxPool") {
                  if (best < 0 || v > acc) { acc = v; best = idx; }
                } else if (pc.op == "AveragePool") {
                  acc += v;
                } else {
                  acc += std::pow(std::fabs(v), (double)pc.p);
                }
              }
          double want = acc;
          if (pc.op == "AveragePool") want = acc / (pc.countPad ? cntPad : cnt);
          if (pc.op == "LpPool") want = std::pow(acc, 1.0 / pc.p);
          int64_t oi = pl * OP + (od * o3[1] + oh) * o3[2] + ow;
          double got = dt == DType::F16 ? halfToFloat(r[0]->as<uint16_t>()[oi]) : r[0]->as<float>()[oi];
          ASSERT_NEAR(got, want, tol * (1 + std::fabs(want))) << pc.op << " at " << oi;
          if (pc.indices) {
            int64_t gi = best;
            if (pc.storageOrder) {
              int64_t bw = best % in3[2], bh = (best / in3[2]) % in3[1], bd = best / (in3[2] * in3[1]);
              gi = (bw * in3[1] + bh) * in3[0] + bd;
            }
            ASSERT_EQ(r[1]->as<int64_t>()[oi], pl * IP + gi) << "indices at " << oi;
          }
        }
}

// A 2-D pool node over the constant xt with the given window attributes, shapes inferred.
Node* addPoolNode(Graph& g, const std::string& op, const std::shared_ptr<Tensor>& xt, const std::vector<int64_t>& k,
                  const std::vector<int64_t>& s, const std::vector<int64_t>& d, const std::vector<int64_t>& pads,
                  bool ceil, bool countPad) {
  Node* n = g.addNode(op, "pool", {g.newConstant("x", xt)}, {g.newValue("y")});
  n->attrs["kernel_shape"] = k;
  n->attrs["strides"] = s;
  if (op == "MaxPool") n->attrs["dilations"] = d;
  n->attrs["pads"] = pads;
  if (ceil) n->attrs["ceil_mode"] = int64_t(1);
  if (countPad) n->attrs["count_include_pad"] = int64_t(1);
  inferNode(g, *n);
  return n;
}

}  // namespace

TEST(Pool, MaxPool) {
  runPool({"MaxPool", {1, 4, 15, 15}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}}, 1);  // ResNet stem
  runPool({"MaxPool", {2, 3, 10, 11}, {2, 3}, {2, 1}, {1, 1}, {0, 1, 1, 0}, true}, 2);
  runPool({"MaxPool", {1, 2, 12, 12}, {3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2}}, 3);  // dilation
  runPool({"MaxPool", {1, 3, 9, 10}, {3, 3}, {2, 2}, {1, 1}, {}, false, false, false, 0, "SAME_UPPER"}, 4);
  runPool({"MaxPool", {1, 3, 20}, {4}, {3}, {1}, {1, 2}}, 5);                   // 1-D
  runPool({"MaxPool", {1, 2, 5, 6, 7}, {2, 2, 3}, {2, 1, 2}, {1, 1, 1}, {0, 1, 1, 1, 0, 1}}, 6);
}

// MaxPool on int8 / uint8 (kernel maxpool_int) against a direct reference: padding never
// wins (all-negative int8 input), dilation, a 1-D and a 3-D window; float-only forms refused.
TEST(Pool, MaxPoolInt8) {
  auto run = [](DType dt, Shape xs, std::vector<int64_t> k, std::vector<int64_t> st, std::vector<int64_t> dil,
                std::vector<int64_t> pads, int seed) {
    Graph g;
    auto x = std::make_shared<Tensor>(TensorType(dt, xs));
    std::mt19937 rng(seed);
    for (auto& b : x->data) b = (uint8_t)(dt == DType::I8 ? (int8_t)(-1 - (int)(rng() % 120)) : (uint8_t)(rng() % 256));
    Node* n = g.addNode("MaxPool", "mp", {g.newConstant("x", x)}, {g.newValue("y")});
    n->attrs["kernel_shape"] = k;
    n->attrs["strides"] = st;
    n->attrs["dilations"] = dil;
    n->attrs["pads"] = pads;
    inferNode(g, *n);
    auto y = evalNodeNative(g, *n).at(0);
    const int nd = (int)k.size();
    std::vector<int64_t> in(3, 1), out(3, 1), k3(3, 1), s3(3, 1), d3(3, 1), p3(3, 0);
    for (int i = 0; i < nd; ++i) {
      in[3 - nd + i] = xs[2 + i], out[3 - nd + i] = y->type.shape[2 + i], k3[3 - nd + i] = k[i];
      s3[3 - nd + i] = st[i], d3[3 - nd + i] = dil[i], p3[3 - nd + i] = pads[i];
    }
    const int64_t planes = xs[0] * xs[1], ip = in[0] * in[1] * in[2], op = out[0] * out[1] * out[2];
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t o = 0; o < op; ++o) {
        int64_t o0 = o / (out[1] * out[2]), o1 = o / out[2] % out[1], o2 = o % out[2];
        int best = dt == DType::I8 ? -128 : 0;
        for (int64_t a = 0; a < k3[0]; ++a)
          for (int64_t b = 0; b < k3[1]; ++b)
            for (int64_t c = 0; c < k3[2]; ++c) {
              int64_t i0 = o0 * s3[0] - p3[0] + a * d3[0], i1 = o1 * s3[1] - p3[1] + b * d3[1],
                      i2 = o2 * s3[2] - p3[2] + c * d3[2];
              if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] || i2 < 0 || i2 >= in[2]) continue;
              int64_t at = pl * ip + (i0 * in[1] + i1) * in[2] + i2;
              int v = dt == DType::I8 ? (int)x->as<int8_t>()[at] : (int)x->as<uint8_t>()[at];
              best = std::max(best, v);
            }
        int got = dt == DType::I8 ? (int)y->as<int8_t>()[pl * op + o] : (int)y->as<uint8_t>()[pl * op + o];
        ASSERT_EQ(got, best) << "plane " << pl << " output " << o;
      }
  };
  run(DType::I8, {1, 3, 9, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 1);
  run(DType::U8, {2, 2, 8, 7}, {2, 3}, {1, 2}, {2, 1}, {0, 1, 1, 0}, 2);
  run(DType::U8, {1, 2, 20}, {4}, {3}, {1}, {1, 2}, 3);
  run(DType::I8, {1, 1, 4, 5, 6}, {2, 2, 3}, {2, 1, 2}, {1, 1, 1}, {0, 1, 1, 1, 0, 1}, 4);
  // 2-D windows through the row passes (rows of up to 4096 bytes): the ResNet stem's 3x3 stride 2,
  // 2x2 stride 2, stride 1, dilation, windows off both ends of a row, a window wider than the
  // padded row, and a 4100-byte row (the scalar loop).
  run(DType::U8, {1, 4, 56, 57}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 5);
  run(DType::I8, {2, 3, 16, 33}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}, 6);
  run(DType::I8, {1, 2, 13, 70}, {3, 5}, {1, 1}, {1, 1}, {1, 2, 1, 2}, 7);
  run(DType::U8, {1, 2, 17, 40}, {3, 3}, {2, 3}, {2, 3}, {2, 3, 1, 4}, 8);
  run(DType::U8, {1, 1, 6, 3}, {2, 7}, {1, 1}, {1, 1}, {0, 3, 0, 3}, 9);
  run(DType::I8, {1, 1, 3, 4100}, {2, 3}, {1, 2}, {1, 1}, {0, 1, 0, 1}, 10);
  Graph g;
  auto x = std::make_shared<Tensor>(TensorType(DType::U8, {1, 1, 4, 4}));
  Node* n = g.addNode("AveragePool", "ap", {g.newConstant("x", x)}, {g.newValue("y")});
  n->attrs["kernel_shape"] = std::vector<int64_t>{2, 2};
  EXPECT_THROW(inferNode(g, *n), AtcError);
  Node* m = g.addNode("MaxPool", "mi", {g.newConstant("x2", x)}, {g.newValue("y2"), g.newValue("i2")});
  m->attrs["kernel_shape"] = std::vector<int64_t>{2, 2};
  EXPECT_THROW(inferNode(g, *m), AtcError);
}

TEST(Pool, MaxPoolIndices) {
  runPool({"MaxPool", {2, 3, 9, 8}, {3, 2}, {2, 2}, {1, 1}, {1, 0, 1, 1}, false, false, true}, 10);
  runPool({"MaxPool", {1, 2, 7, 9}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}, true, false, true, 1}, 11);
}

TEST(Pool, AveragePool) {
  runPool({"AveragePool", {1, 4, 11, 13}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}}, 20);
  runPool({"AveragePool", {1, 4, 11, 13}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false, true}, 21);
  runPool({"AveragePool", {2, 3, 10, 10}, {3, 2}, {3, 3}, {1, 1}, {1, 0, 1, 1}, true, true}, 22);
  runPool({"AveragePool", {2, 3, 10, 10}, {3, 2}, {3, 3}, {1, 1}, {1, 0, 1, 1}, true, false}, 23);
  runPool({"AveragePool", {1, 5, 8, 8}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}}, 24, DType::F16);
}

TEST(Pool, LpPool) {
  runPool({"LpPool", {1, 3, 8, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false, false, false, 0, "NOTSET", 2}, 30);
  runPool({"LpPool", {1, 3, 8, 9}, {2, 2}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false, false, false, 0, "NOTSET", 3}, 31);
}

TEST(Pool, GlobalPools) {
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) {
    Graph g;
    auto xt = std::make_shared<Tensor>(TensorType(DType::F32, {2, 3, 5, 7}));
    for (int i = 0; i < 210; ++i) xt->as<float>()[i] = std::sin(i * 0.37f) * 3;
    Node* n = g.addNode(op, "gp", {g.newConstant("x", xt)}, {g.newValue("y")});
    inferNode(g, *n);
    EXPECT_EQ(n->outputs[0]->type.shape, (Shape{2, 3, 1, 1}));
    auto r = evalNodeNative(g, *n);
    for (int pl = 0; pl < 6; ++pl) {
      double sum = 0, mx = -1e30, sq = 0;
      for (int i = 0; i < 35; ++i) {
        double v = xt->as<float>()[pl * 35 + i];
        sum += v; mx = std::max(mx, v); sq += v * v;
      }
      double want = std::string(op) == "GlobalAveragePool" ? sum / 35
                  : std::string(op) == "GlobalMaxPool" ? mx : std::sqrt(sq);
      EXPECT_NEAR(r[0]->as<float>()[pl], want, 1e-4) << op;
    }
  }
}

// Global max / average pools of planes of at least 16 elements take a vectorised reduction
// (four 16-lane accumulators, then single vectors, and a scalar tail: 7x7 is three vectors and
// one element, 4x5 one vector and four); max keeps the scalar rule that a NaN never
// replaces the running maximum; float16 planes convert on load.
TEST(Pool, GlobalPoolsVectorised) {
  for (DType dt : {DType::F32, DType::F16})
    for (Shape spatial : {Shape{9, 13}, Shape{1, 151}, Shape{8, 8}, Shape{64, 64}, Shape{7, 7}, Shape{4, 5}})
      for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
        SCOPED_TRACE(std::string(op) + " " + std::to_string(spatial[0]) + "x" + std::to_string(spatial[1]) +
                     (dt == DType::F16 ? " f16" : " f32"));
        const int64_t P = spatial[0] * spatial[1];
        auto xt = std::make_shared<Tensor>(TensorType(dt, {1, 3, spatial[0], spatial[1]}));
        std::vector<float> xf(3 * P);
        for (int64_t i = 0; i < 3 * P; ++i) {
          float v = std::sin(i * 0.37f) * 3 + (i % 17 == 0 ? 0.5f : 0.0f);
          if (i == P + 70 % P) v = NAN;         // plane 1: a NaN
          if (i == 2 * P + (P - 1)) v = 40.0f;  // plane 2: the maximum in the scalar tail
          xf[i] = storeAs(*xt, i, v, dt);
        }
        Graph g;
        Node* n = g.addNode(op, "gp", {g.newConstant("x", xt)}, {g.newValue("y")});
        inferNode(g, *n);
        auto r = evalNodeNative(g, *n);
        for (int pl = 0; pl < 3; ++pl) {
          double sum = 0, mx = -INFINITY;
          for (int64_t i = 0; i < P; ++i) {
            float v = xf[pl * P + i];
            sum += v;
            mx = v > mx ? v : mx;
          }
          double got = dt == DType::F16 ? halfToFloat(r[0]->as<uint16_t>()[pl]) : r[0]->as<float>()[pl];
          if (std::string(op) == "GlobalAveragePool") {
            if (std::isnan(sum)) EXPECT_TRUE(std::isnan(got));
            else EXPECT_NEAR(got, sum / P, dt == DType::F16 ? 2e-3 : 1e-5);
          } else {
            EXPECT_EQ(got, mx);
          }
        }
      }
}

TEST(Pool, RejectsMissingKernelShape) {
  Graph g;
  Value* x = g.newValue("x", TensorType(DType::F32, {1, 3, 8, 8}));
  Node* n = g.addNode("MaxPool", "p", {x}, {g.newValue("y")});
  EXPECT_THROW(inferNode(g, *n), AtcError);
}

// The vectorised band path (kernels/lib/pool_band.h) against the scalar loops of the same
// kernel (PL_BAND = 0): bit-identical outputs for max and average pools, wide rows (overlapping
// last chunk), narrow ones (full-vector stores into the next rows), row strides, dilations,
// ceil_mode, count_include_pad, windows wholly in the padding, float16, several planes per task.
TEST(Pool, BandPathMatchesScalar) {
  struct C {
    std::string op;
    Shape x;
    std::vector<int64_t> k, s, d, pads;
    bool ceil, countPad;
    DType dt;
  };
  const C cases[] = {
      {"MaxPool", {1, 6, 40, 37}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false, false, DType::F32},
      {"MaxPool", {1, 130, 7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false, false, DType::F32},
      {"MaxPool", {2, 5, 29, 30}, {3, 3}, {2, 1}, {1, 1}, {0, 0, 0, 0}, true, false, DType::F32},
      {"MaxPool", {1, 4, 23, 50}, {2, 3}, {3, 1}, {2, 2}, {1, 2, 2, 1}, false, false, DType::F16},
      {"MaxPool", {1, 3, 5, 3}, {5, 5}, {1, 1}, {1, 1}, {4, 4, 4, 4}, false, false, DType::F32},
      {"MaxPool", {1, 3, 33}, {3}, {1}, {2}, {1, 1}, true, false, DType::F32},
      {"AveragePool", {1, 6, 40, 37}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false, false, DType::F32},
      {"AveragePool", {1, 70, 14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false, true, DType::F32},
      {"AveragePool", {2, 3, 17, 19}, {3, 2}, {3, 1}, {1, 1}, {1, 0, 1, 1}, true, true, DType::F32},
      {"AveragePool", {2, 3, 17, 19}, {3, 2}, {3, 1}, {1, 1}, {1, 0, 1, 1}, true, false, DType::F16},
      {"AveragePool", {1, 2, 4, 4}, {3, 3}, {2, 1}, {1, 1}, {2, 2, 2, 2}, true, false, DType::F32},
  };
  uint32_t seed = 500;
  for (const C& c : cases) {
    SCOPED_TRACE(c.op + " seed " + std::to_string(seed));
    auto xt = std::make_shared<Tensor>(TensorType(c.dt, c.x));
    std::mt19937 rng(seed++);
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    for (int64_t i = 0; i < xt->type.numel(); ++i) storeAs(*xt, i, u(rng), c.dt);
    Graph g;
    Node* n = addPoolNode(g, c.op, xt, c.k, c.s, c.d, c.pads, c.ceil, c.countPad);
    LowerCtx ctx(g, *n);
    KernelCall call = OpRegistry::instance().find(c.op)->lower(ctx);
    ASSERT_EQ(call.params[PL_BAND], 1);
    // A column stride keeps the scalar loops.
    if (c.s.back() == 1) {
      Graph g2;
      Node* n2 = g2.addNode(c.op, "pool", {g2.newConstant("x", xt)}, {g2.newValue("y")});
      n2->attrs = n->attrs;
      std::vector<int64_t> s2 = c.s;
      s2.back() = 2;
      n2->attrs["strides"] = s2;
      inferNode(g2, *n2);
      LowerCtx ctx2(g2, *n2);
      EXPECT_EQ(OpRegistry::instance().find(c.op)->lower(ctx2).params[PL_BAND], 0);
    }
    const size_t ybytes = (size_t)n->outputs[0]->type.byteSize();
    std::vector<std::vector<uint8_t>> ys;
    for (int band = 1; band >= 0; --band) {
      std::vector<int64_t> P = call.params;
      P[PL_BAND] = band;
      std::vector<uint8_t> y(ybytes + 64, 0xA5), ws(call.workspaceBytes + 64);
      std::vector<void*> bufs = {xt->data.data(), y.data(), ws.data()};
      runNativeKernel(*findNativeKernel("pool"), P.data(), bufs.data());
      for (size_t i = ybytes; i < y.size(); ++i) ASSERT_EQ(y[i], 0xA5) << "written past the output";
      ys.push_back(y);
    }
    EXPECT_TRUE(ys[0] == ys[1]) << "band path differs from the scalar path";
  }
  runPool({"MaxPool", {1, 130, 7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}}, 520);
  runPool({"AveragePool", {1, 6, 40, 37}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false, true}, 521);
}

// Float16 pools of column stride 2 (kernels/lib/pool.cpp pool_f16_rows_s2: rows split into column
// phases, 16 outputs per vector) against the float32 scalar loops on the same values, rounded
// to float16 once: bit-identical for max and average, padding, ceil_mode (windows past the end),
// count_include_pad, dilations, row strides 1 to 3, outputs narrower than a vector and wider
// ones with a partial last vector, the tensor's first and last rows, several planes per task.
TEST(Pool, Float16StrideTwoMatchesFloat32) {
  struct C {
    std::string op;
    Shape x;
    std::vector<int64_t> k, s, d, pads;
    bool ceil, countPad;
  };
  const C cases[] = {
      {"MaxPool", {1, 5, 30, 30}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false, false},
      {"MaxPool", {2, 3, 27, 27}, {3, 3}, {2, 2}, {1, 1}, {0, 0, 0, 0}, true, false},
      {"MaxPool", {1, 3, 25, 40}, {3, 3}, {2, 2}, {2, 2}, {2, 2, 2, 2}, false, false},
      {"MaxPool", {1, 2, 12, 31}, {2, 3}, {1, 2}, {1, 1}, {0, 1, 1, 1}, true, false},
      {"MaxPool", {1, 70, 9, 9}, {5, 5}, {3, 2}, {1, 1}, {2, 2, 2, 2}, false, false},
      {"MaxPool", {1, 2, 6, 75}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}, false, false},
      // rows too wide for one output row's 9 dilated input rows: the per-row path (no overflow)
      {"MaxPool", {1, 1, 12, 600}, {3, 3}, {2, 2}, {4, 4}, {0, 0, 0, 0}, false, false},
      {"AveragePool", {1, 4, 20, 20}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}, false, false},
      {"AveragePool", {2, 3, 29, 29}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, true, false},
      {"AveragePool", {2, 3, 29, 29}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, true, true},
      {"AveragePool", {1, 3, 7, 66}, {3, 4}, {2, 2}, {1, 1}, {1, 2, 0, 1}, false, true},
  };
  uint32_t seed = 700;
  for (const C& c : cases) {
    SCOPED_TRACE(c.op + " seed " + std::to_string(seed));
    auto x16 = std::make_shared<Tensor>(TensorType(DType::F16, c.x));
    auto x32 = std::make_shared<Tensor>(TensorType(DType::F32, c.x));
    std::mt19937 rng(seed++);
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    for (int64_t i = 0; i < x16->type.numel(); ++i) x32->as<float>()[i] = storeAs(*x16, i, u(rng), DType::F16);
    std::vector<std::vector<uint8_t>> ys;
    std::vector<size_t> sizes;
    for (const auto& xt : {x16, x32}) {
      Graph g;
      Node* n = addPoolNode(g, c.op, xt, c.k, c.s, c.d, c.pads, c.ceil, c.countPad);
      LowerCtx ctx(g, *n);
      KernelCall call = OpRegistry::instance().find(c.op)->lower(ctx);
      ASSERT_EQ(call.params[PL_BAND], 0);
      const size_t ybytes = (size_t)n->outputs[0]->type.byteSize();
      std::vector<uint8_t> y(ybytes + 64, 0xA5), ws(call.workspaceBytes + 64);
      std::vector<void*> bufs = {xt->data.data(), y.data(), ws.data()};
      runNativeKernel(*findNativeKernel("pool"), call.params.data(), bufs.data());
      for (size_t i = ybytes; i < y.size(); ++i) ASSERT_EQ(y[i], 0xA5) << "written past the output";
      ys.push_back(y);
      sizes.push_back(ybytes);
    }
    const size_t n = sizes[0] / 2;
    ASSERT_EQ(sizes[1], n * 4);
    const uint16_t* h = (const uint16_t*)ys[0].data();
    const float* f = (const float*)ys[1].data();
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(h[i], floatToHalf(f[i])) << "at " << i << ": " << f[i];
  }
}
