// Element-wise ops through the native kernel library (atc::evalNodeNative) against
// references computed here: broadcasting, dtypes, attributes, NaN/inf edge values.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "kernels/codegen/host_cpu.h"
#include "ops/native_eval.h"
#include "support/diagnostics.h"
#include "ir/op_registry.h"
#include "kernels/lib/math_fast.h"

using namespace atc;

namespace {

std::shared_ptr<Tensor> makeT(DType dt, Shape s, const std::vector<double>& v) {
  auto t = std::make_shared<Tensor>(TensorType(dt, s));
  int64_t n = t->type.numel();
  for (int64_t i = 0; i < n; ++i) {
    double x = v.empty() ? 0 : v[i % v.size()];
    switch (dt) {
      case DType::F32: t->as<float>()[i] = (float)x; break;
      case DType::F64: t->as<double>()[i] = x; break;
      case DType::F16: t->as<uint16_t>()[i] = floatToHalf((float)x); break;
      case DType::BF16: t->as<uint16_t>()[i] = floatToBf16((float)x); break;
      case DType::I64: t->as<int64_t>()[i] = (int64_t)x; break;
      case DType::I32: t->as<int32_t>()[i] = (int32_t)x; break;
      case DType::I8: t->as<int8_t>()[i] = (int8_t)x; break;
      case DType::U8: t->as<uint8_t>()[i] = (uint8_t)x; break;
      case DType::U64: t->as<uint64_t>()[i] = (uint64_t)x; break;
      case DType::Bool: t->as<uint8_t>()[i] = x != 0; break;
      default: ADD_FAILURE() << "dtype";
    }
  }
  return t;
}

std::vector<double> randVec(size_t n, double lo, double hi, unsigned seed = 1) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = (float)u(g);
  return v;
}

struct EltRun {
  Graph g;
  Node* n = nullptr;
  std::vector<TensorPtr> out;
};

// Builds one node with constant inputs, infers and evaluates it.
std::unique_ptr<EltRun> runOp(const std::string& type, std::vector<TensorPtr> ins,
                           std::map<std::string, AttrValue> attrs = {}, int nout = 1,
                           int64_t opset = 17) {
  auto r = std::make_unique<EltRun>();
  r->g.opsetVersion = opset;
  std::vector<Value*> vin, vout;
  for (size_t i = 0; i < ins.size(); ++i)
    vin.push_back(ins[i] ? r->g.newConstant("in" + std::to_string(i), ins[i]) : nullptr);
  for (int i = 0; i < nout; ++i) vout.push_back(r->g.newValue("out" + std::to_string(i)));
  r->n = r->g.addNode(type, "node", vin, vout);
  r->n->attrs = attrs;
  inferNode(r->g, *r->n);
  r->out = evalNodeNative(r->g, *r->n);
  return r;
}

void expectNear(const Tensor& t, const std::vector<double>& ref, double rtol, double atol) {
  ASSERT_EQ((size_t)t.type.numel(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    double v = t.floatAt(i);
    if (std::isnan(ref[i])) {
      EXPECT_TRUE(std::isnan(v)) << "at " << i;
    } else if (std::isinf(ref[i])) {
      EXPECT_EQ(v, ref[i]) << "at " << i;
    } else {
      EXPECT_NEAR(v, ref[i], atol + rtol * std::fabs(ref[i])) << "at " << i;
    }
  }
}

double ulpDiff(float a, double ref) {
  float r = (float)ref;
  if (a == r) return 0;
  float u = std::nextafter(std::fabs(r), INFINITY) - std::fabs(r);
  return std::fabs((double)a - ref) / u;
}

}  // namespace

TEST(EltwiseFastMath, ExpTanhErfSigmoidAccuracy) {
  double worst[5] = {0, 0, 0, 0, 0};
  for (int i = -2000000; i <= 2000000; i += 7) {
    float x = (float)i * 5e-5f;  // [-100, 100]
    worst[0] = std::max(worst[0], ulpDiff(atck_expf(x), std::exp((double)x)));
    worst[1] = std::max(worst[1], ulpDiff(atck_tanhf(x * 0.1f), std::tanh((double)(x * 0.1f))));
    worst[2] = std::max(worst[2], ulpDiff(atck_erff(x * 0.05f), std::erf((double)(x * 0.05f))));
    // sigmoid and SiLU flush results under FLT_MIN (x below about -87.3) to 0 or a subnormal
    // (math_fast.h, atck_expnegf): there the error is absolute, under FLT_MIN.
    const double sg = 1.0 / (1.0 + std::exp(-(double)x)), si = (double)x * sg;
    if (sg >= FLT_MIN) {
      worst[3] = std::max(worst[3], ulpDiff(atck_sigmoidf(x), sg));
      worst[4] = std::max(worst[4], ulpDiff(atck_siluf(x), si));
    } else {
      EXPECT_LE(std::fabs(atck_sigmoidf(x) - sg), FLT_MIN) << x;
      EXPECT_LE(std::fabs(atck_siluf(x) - si), 100 * FLT_MIN) << x;
    }
  }
  for (float x : {1e-6f, -3e-5f, 1e-20f, 0.3f}) {
    worst[1] = std::max(worst[1], ulpDiff(atck_tanhf(x), std::tanh((double)x)));
    worst[2] = std::max(worst[2], ulpDiff(atck_erff(x), std::erf((double)x)));
  }
  EXPECT_LE(worst[0], 2.0);
  EXPECT_LE(worst[1], 3.0);
  EXPECT_LE(worst[2], 7.0);  // erf: rational approximation, <= 6.4 ulp (math_fast.h)
  EXPECT_LE(worst[3], 3.0);
  EXPECT_LE(worst[4], 3.5);  // SiLU: x * sigmoid(x), one rounding more (3.14 ulp measured)
  EXPECT_EQ(atck_sigmoidf(INFINITY), 1.0f);
  EXPECT_EQ(atck_sigmoidf(-INFINITY), 0.0f);
  EXPECT_EQ(atck_siluf(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(atck_sigmoidf(NAN)));
  EXPECT_TRUE(std::isnan(atck_siluf(NAN)));
  EXPECT_TRUE(std::isnan(atck_expf(NAN)));
  EXPECT_EQ(atck_expf(INFINITY), INFINITY);
  EXPECT_EQ(atck_expf(-INFINITY), 0.0f);
  EXPECT_EQ(atck_tanhf(-INFINITY), -1.0f);
  EXPECT_EQ(atck_erff(INFINITY), 1.0f);
  EXPECT_TRUE(std::isnan(atck_erff(NAN)));
  EXPECT_TRUE(std::isnan(atck_tanhf(NAN)));
  EXPECT_GT(atck_expf(-100.f), 0.0f);  // subnormal result
  EXPECT_LE(ulpDiff(atck_expf(-100.f), std::exp(-100.0)), 1.0);
}

TEST(Eltwise, UnaryFloatOps) {
  std::vector<double> xs = {-3.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.5, 2.5, 7.0};
  auto x = makeT(DType::F32, {2, 5}, xs);
  struct Case {
    const char* op;
    std::function<double(double)> f;
    std::map<std::string, AttrValue> attrs;
  };
  std::vector<Case> cases = {
      {"Relu", [](double v) { return v < 0 ? 0 : v; }, {}},
      {"LeakyRelu", [](double v) { return v < 0 ? 0.1 * v : v; }, {{"alpha", 0.1}}},
      {"Elu", [](double v) { return v < 0 ? 2.0 * (std::exp(v) - 1) : v; }, {{"alpha", 2.0}}},
      {"Selu", [](double v) { return v <= 0 ? 1.0507009873554805 * 1.6732632423543772 * (std::exp(v) - 1) : 1.0507009873554805 * v; }, {}},
      {"Celu", [](double v) { return std::max(0.0, v) + std::min(0.0, 1.5 * (std::exp(v / 1.5) - 1)); }, {{"alpha", 1.5}}},
      {"Sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }, {}},
      {"HardSigmoid", [](double v) { return std::max(0.0, std::min(1.0, 0.2 * v + 0.5)); }, {}},
      {"HardSwish", [](double v) { return v * std::max(0.0, std::min(1.0, v / 6 + 0.5)); }, {}},
      {"Softplus", [](double v) { return std::log(1 + std::exp(v)); }, {}},
      {"Softsign", [](double v) { return v / (1 + std::fabs(v)); }, {}},
      {"Tanh", [](double v) { return std::tanh(v); }, {}},
      {"Erf", [](double v) { return std::erf(v); }, {}},
      {"Exp", [](double v) { return std::exp(v); }, {}},
      {"Log", [](double v) { return std::log(v); }, {}},
      {"Sqrt", [](double v) { return std::sqrt(v); }, {}},
      {"Reciprocal", [](double v) { return 1 / v; }, {}},
      {"Neg", [](double v) { return -v; }, {}},
      {"Abs", [](double v) { return std::fabs(v); }, {}},
      {"Floor", [](double v) { return std::floor(v); }, {}},
      {"Ceil", [](double v) { return std::ceil(v); }, {}},
      {"Round", [](double v) { return std::nearbyint(v); }, {}},
      {"Sign", [](double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }, {}},
      {"Sin", [](double v) { return std::sin(v); }, {}},
      {"Cos", [](double v) { return std::cos(v); }, {}},
      {"Tan", [](double v) { return std::tan(v); }, {}},
      {"Asin", [](double v) { return std::asin(v); }, {}},
      {"Acos", [](double v) { return std::acos(v); }, {}},
      {"Atan", [](double v) { return std::atan(v); }, {}},
      {"Sinh", [](double v) { return std::sinh(v); }, {}},
      {"Cosh", [](double v) { return std::cosh(v); }, {}},
      {"Asinh", [](double v) { return std::asinh(v); }, {}},
      {"Acosh", [](double v) { return std::acosh(v); }, {}},
      {"Atanh", [](double v) { return std::atanh(v); }, {}},
      {"ThresholdedRelu", [](double v) { return v > 0.5 ? v : 0; }, {{"alpha", 0.5}}},
      {"Shrink", [](double v) { return v < -1 ? v + 0.5 : (v > 1 ? v - 0.5 : 0); }, {{"bias", 0.5}, {"lambd", 1.0}}},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.op);
    auto r = runOp(c.op, {x}, c.attrs);
    EXPECT_EQ(r->out[0]->type.str(), "float32[2,5]");
    std::vector<double> ref;
    for (double v : xs) ref.push_back((float)c.f((float)v));
    expectNear(*r->out[0], ref, 3e-7, 1e-7);
  }
}

TEST(Eltwise, NanInfPropagation) {
  auto x = makeT(DType::F32, {5}, {NAN, INFINITY, -INFINITY, 0.0, 1.0});
  auto relu = runOp("Relu", {x});
  expectNear(*relu->out[0], {NAN, INFINITY, 0, 0, 1}, 0, 0);
  auto sig = runOp("Sigmoid", {x});
  expectNear(*sig->out[0], {NAN, 1, 0, 0.5, 1 / (1 + std::exp(-1.0))}, 1e-6, 0);
  auto isn = runOp("IsNaN", {x});
  EXPECT_EQ(isn->out[0]->type.dtype, DType::Bool);
  expectNear(*isn->out[0], {1, 0, 0, 0, 0}, 0, 0);
  auto isi = runOp("IsInf", {x}, {{"detect_negative", (int64_t)0}});
  expectNear(*isi->out[0], {0, 1, 0, 0, 0}, 0, 0);
  auto mx = runOp("Max", {x, makeT(DType::F32, {1}, {0.5})});
  expectNear(*mx->out[0], {NAN, INFINITY, 0.5, 0.5, 1}, 0, 0);
}

TEST(Eltwise, BinaryBroadcasting) {
  // [2,3,4] op [3,1], [4], scalar, [2,1,4]
  auto a = makeT(DType::F32, {2, 3, 4}, randVec(24, -2, 2, 3));
  std::vector<std::pair<Shape, unsigned>> bs = {{{3, 1}, 4}, {{4}, 5}, {{}, 6}, {{2, 1, 4}, 7}, {{2, 3, 4}, 8}, {{1, 1, 1, 1}, 9}};
  for (auto& bsh : bs) {
    int64_t bn = 1;
    for (auto d : bsh.first) bn *= d;
    auto bv = randVec(bn, 0.5, 2, bsh.second);
    auto b = makeT(DType::F32, bsh.first, bv);
    for (std::string op : {"Add", "Sub", "Mul", "Div", "Pow", "Greater"}) {
      SCOPED_TRACE(op + " " + b->type.str());
      auto r = runOp(op, {a, b});
      Shape os = bsh.first.size() == 4 ? Shape{1, 2, 3, 4} : Shape{2, 3, 4};
      EXPECT_EQ(r->out[0]->type.shape, os);
      std::vector<double> ref;
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
          for (int k = 0; k < 4; ++k) {
            double x = a->floatAt(i * 12 + j * 4 + k);
            const Shape& s = bsh.first;
            int64_t bi = 0;
            if (s.size() == 2) bi = j;
            else if (s.size() == 1) bi = k;
            else if (s.size() == 3) bi = (s[0] == 2 ? i * 4 + k : 0) + (s[1] == 3 ? j * 4 : 0);
            if (s.size() == 3 && s[1] == 3) bi = i * 12 + j * 4 + k;
            double y = b->floatAt(bi);
            double v = op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y
                     : op == "Div" ? x / y : op == "Pow" ? std::pow(x, y) : (double)(x > y);
            ref.push_back((float)v);
          }
      expectNear(*r->out[0], ref, 1e-6, 1e-7);
    }
  }
}

TEST(Eltwise, LargeBroadcastAcrossBlocks) {
  // More than one 16K block, with the row broadcast (BERT bias add) and column broadcast.
  const int R = 77, C = 1031;
  auto a = makeT(DType::F32, {R, C}, randVec(R * C, -1, 1, 11));
  auto row = makeT(DType::F32, {C}, randVec(C, -1, 1, 12));
  auto col = makeT(DType::F32, {R, 1}, randVec(R, -1, 1, 13));
  auto r1 = runOp("Add", {a, row});
  auto r2 = runOp("Mul", {col, a});
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      ASSERT_EQ(r1->out[0]->as<float>()[i * C + j], a->as<float>()[i * C + j] + row->as<float>()[j]);
      ASSERT_EQ(r2->out[0]->as<float>()[i * C + j], col->as<float>()[i] * a->as<float>()[i * C + j]);
    }
}

TEST(Eltwise, IntegerArithmetic) {
  auto a = makeT(DType::I64, {6}, {7, -7, 7, -7, 0, 100});
  auto b = makeT(DType::I64, {6}, {2, 2, -2, -2, 3, 0});
  expectNear(*runOp("Add", {a, b})->out[0], {9, -5, 5, -9, 3, 100}, 0, 0);
  expectNear(*runOp("Sub", {a, b})->out[0], {5, -9, 9, -5, -3, 100}, 0, 0);
  expectNear(*runOp("Mul", {a, b})->out[0], {14, -14, -14, 14, 0, 0}, 0, 0);
  expectNear(*runOp("Div", {a, b})->out[0], {3, -3, -3, 3, 0, 0}, 0, 0);
  expectNear(*runOp("Mod", {a, b})->out[0], {1, 1, -1, -1, 0, 0}, 0, 0);
  expectNear(*runOp("Mod", {a, b}, {{"fmod", (int64_t)1}})->out[0], {1, -1, 1, -1, 0, 0}, 0, 0);
  expectNear(*runOp("Pow", {a, makeT(DType::I64, {1}, {3})})->out[0], {343, -343, 343, -343, 0, 1000000}, 0, 0);
  expectNear(*runOp("Max", {a, b, makeT(DType::I64, {}, {1})})->out[0], {7, 2, 7, 1, 3, 100}, 0, 0);
  expectNear(*runOp("Min", {a, b})->out[0], {2, -7, -2, -7, 0, 0}, 0, 0);
  expectNear(*runOp("Sum", {a, b, a})->out[0], {16, -12, 12, -16, 3, 200}, 0, 0);
  expectNear(*runOp("Abs", {a})->out[0], {7, 7, 7, 7, 0, 100}, 0, 0);
  expectNear(*runOp("Neg", {a})->out[0], {-7, 7, -7, 7, 0, -100}, 0, 0);
  expectNear(*runOp("Sign", {a})->out[0], {1, -1, 1, -1, 0, 1}, 0, 0);
  expectNear(*runOp("Equal", {a, makeT(DType::I64, {}, {7})})->out[0], {1, 0, 1, 0, 0, 0}, 0, 0);
  // Large int64 values survive (shape arithmetic).
  auto big = makeT(DType::I64, {1}, {0});
  const_cast<int64_t*>(big->as<int64_t>())[0] = (int64_t(1) << 62) + 1;
  auto rb = runOp("Add", {big, makeT(DType::I64, {1}, {1})});
  EXPECT_EQ(rb->out[0]->as<int64_t>()[0], (int64_t(1) << 62) + 2);
  auto i32 = runOp("Mul", {makeT(DType::I32, {3}, {3, -4, 5}), makeT(DType::I32, {3}, {2, 2, -2})});
  EXPECT_EQ(i32->out[0]->type.str(), "int32[3]");
  expectNear(*i32->out[0], {6, -8, -10}, 0, 0);
  auto u8 = runOp("Add", {makeT(DType::U8, {2}, {250, 3}), makeT(DType::U8, {2}, {10, 4})});
  expectNear(*u8->out[0], {4, 7}, 0, 0);
}

TEST(Eltwise, BitShift) {
  auto a = makeT(DType::U8, {3}, {16, 4, 1});
  auto b = makeT(DType::U8, {3}, {1, 2, 3});
  expectNear(*runOp("BitShift", {a, b}, {{"direction", std::string("RIGHT")}})->out[0], {8, 1, 0}, 0, 0);
  expectNear(*runOp("BitShift", {a, b}, {{"direction", std::string("LEFT")}})->out[0], {32, 16, 8}, 0, 0);
}

TEST(Eltwise, ComparisonAndLogic) {
  auto a = makeT(DType::F32, {4}, {1, 2, NAN, -1});
  auto b = makeT(DType::F32, {4}, {1, 3, NAN, -2});
  expectNear(*runOp("Equal", {a, b})->out[0], {1, 0, 0, 0}, 0, 0);
  expectNear(*runOp("Less", {a, b})->out[0], {0, 1, 0, 0}, 0, 0);
  expectNear(*runOp("LessOrEqual", {a, b})->out[0], {1, 1, 0, 0}, 0, 0);
  expectNear(*runOp("Greater", {a, b})->out[0], {0, 0, 0, 1}, 0, 0);
  expectNear(*runOp("GreaterOrEqual", {a, b})->out[0], {1, 0, 0, 1}, 0, 0);
  auto p = makeT(DType::Bool, {2, 2}, {0, 0, 1, 1});
  auto q = makeT(DType::Bool, {2}, {0, 1});
  EXPECT_EQ(runOp("And", {p, q})->out[0]->type.str(), "bool[2,2]");
  expectNear(*runOp("And", {p, q})->out[0], {0, 0, 0, 1}, 0, 0);
  expectNear(*runOp("Or", {p, q})->out[0], {0, 1, 1, 1}, 0, 0);
  expectNear(*runOp("Xor", {p, q})->out[0], {0, 1, 1, 0}, 0, 0);
  expectNear(*runOp("Not", {p})->out[0], {1, 1, 0, 0}, 0, 0);
}

TEST(Eltwise, WhereBroadcast) {
  auto c = makeT(DType::Bool, {2, 1}, {1, 0});
  auto x = makeT(DType::F32, {3}, {1, 2, 3});
  auto y = makeT(DType::F32, {2, 3}, {10, 20, 30, 40, 50, 60});
  auto r = runOp("Where", {c, x, y});
  EXPECT_EQ(r->out[0]->type.str(), "float32[2,3]");
  expectNear(*r->out[0], {1, 2, 3, 40, 50, 60}, 0, 0);
  auto ri = runOp("Where", {c, makeT(DType::I64, {1}, {-1}), makeT(DType::I64, {1}, {5})});
  expectNear(*ri->out[0], {-1, 5}, 0, 0);
}

TEST(Eltwise, ClipForms) {
  auto x = makeT(DType::F32, {5}, {-5, -1, 0, 1, 5});
  expectNear(*runOp("Clip", {x}, {{"min", -2.0}, {"max", 2.0}}, 1, 6)->out[0], {-2, -1, 0, 1, 2}, 0, 0);
  expectNear(*runOp("Clip", {x, makeT(DType::F32, {}, {-0.5}), makeT(DType::F32, {}, {0.5})})->out[0], {-0.5, -0.5, 0, 0.5, 0.5}, 0, 0);
  expectNear(*runOp("Clip", {x, nullptr, makeT(DType::F32, {}, {0.5})})->out[0], {-5, -1, 0, 0.5, 0.5}, 0, 0);
  expectNear(*runOp("Clip", {x})->out[0], {-5, -1, 0, 1, 5}, 0, 0);
  auto xi = makeT(DType::I32, {4}, {-100, 5, 50, 1000});
  expectNear(*runOp("Clip", {xi, makeT(DType::I32, {}, {0}), makeT(DType::I32, {}, {100})})->out[0], {0, 5, 50, 100}, 0, 0);
  // min > max: every value becomes max (min(max(x, lo), hi)).
  expectNear(*runOp("Clip", {x, makeT(DType::F32, {}, {2}), makeT(DType::F32, {}, {1})})->out[0], {1, 1, 1, 1, 1}, 0, 0);
  // Non-scalar bounds are refused.
  Graph g;
  Value* in = g.newValue("x", TensorType(DType::F32, {4}));
  Value* lo = g.newValue("lo", TensorType(DType::F32, {2}));
  Node* n = g.addNode("Clip", "clip", {in, lo}, {g.newValue("y")});
  EXPECT_THROW(inferNode(g, *n), AtcError);
}

TEST(Eltwise, CastPairs) {
  auto f = makeT(DType::F32, {6}, {1.5, -2.7, 0.0, 300.0, NAN, 65504.0});
  expectNear(*runOp("Cast", {f}, {{"to", (int64_t)7}})->out[0], {1, -2, 0, 300, 0, 65504}, 0, 0);
  expectNear(*runOp("Cast", {f}, {{"to", (int64_t)9}})->out[0], {1, 1, 0, 1, 1, 1}, 0, 0);
  auto h = runOp("Cast", {f}, {{"to", (int64_t)10}});
  EXPECT_EQ(h->out[0]->type.dtype, DType::F16);
  expectNear(*h->out[0], {1.5, -2.69921875, 0, 300, NAN, 65504}, 0, 0);
  auto back = runOp("Cast", {h->out[0]}, {{"to", (int64_t)1}});
  expectNear(*back->out[0], {1.5, -2.69921875, 0, 300, NAN, 65504}, 0, 0);
  auto bf = runOp("Cast", {f}, {{"to", (int64_t)16}});
  expectNear(*bf->out[0], {1.5, -2.703125, 0, 300, NAN, 65536}, 0, 0);
  auto i = makeT(DType::I64, {3}, {-1, 2, 300});
  expectNear(*runOp("Cast", {i}, {{"to", (int64_t)6}})->out[0], {-1, 2, 300}, 0, 0);
  expectNear(*runOp("Cast", {i}, {{"to", (int64_t)2}})->out[0], {255, 2, 44}, 0, 0);
  expectNear(*runOp("Cast", {i}, {{"to", (int64_t)11}})->out[0], {-1, 2, 300}, 0, 0);
  auto b = makeT(DType::Bool, {2}, {1, 0});
  expectNear(*runOp("Cast", {b}, {{"to", (int64_t)1}})->out[0], {1, 0}, 0, 0);
  auto big = makeT(DType::I64, {1}, {0});
  const_cast<int64_t*>(big->as<int64_t>())[0] = (int64_t(1) << 60) + 3;
  auto r = runOp("Cast", {big}, {{"to", (int64_t)13}});
  EXPECT_EQ(r->out[0]->as<uint64_t>()[0], (uint64_t(1) << 60) + 3);
}

TEST(Eltwise, Float16Arithmetic) {
  auto a = makeT(DType::F16, {3}, {1.5, 2.0, -0.25});
  auto b = makeT(DType::F16, {3}, {0.5, 0.001, 4});
  auto r = runOp("Add", {a, b});
  EXPECT_EQ(r->out[0]->type.dtype, DType::F16);
  expectNear(*r->out[0], {2.0, 2.001953125, 3.75}, 0, 0);
  auto m = runOp("Mean", {a, b, a});
  expectNear(*m->out[0], {halfToFloat(floatToHalf(3.5f / 3)), halfToFloat(floatToHalf(4.001f / 3)), halfToFloat(floatToHalf(3.5f / 3))}, 2e-3, 0);
}

// float16 / bfloat16 binary arithmetic runs 16 lanes at a time with the last row % 16 elements
// through the chunked loops: every element equals the float32 result rounded once, for rows
// shorter than, equal to and longer than 16, a broadcast operand on either side, and NaN.
TEST(Eltwise, Float16BinaryRowsRoundOnce) {
  struct Case {
    const char* op;
    DType dt;
    Shape a, b;
  };
  const Case cases[] = {
      {"Mul", DType::F16, {2, 5, 49}, {2, 5, 1}},  // squeeze-excite rows: 3 vectors + 1
      {"Add", DType::F16, {70}, {70}},             // both contiguous
      {"Sub", DType::F16, {1, 3, 1}, {1, 3, 33}},  // the broadcast operand first
      {"Div", DType::BF16, {4, 16}, {4, 1}},       // exactly one vector per row
      {"Max", DType::F16, {3, 7}, {3, 1}},         // rows shorter than a vector
      {"Min", DType::F16, {2, 40}, {1}},           // a scalar
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    Shape sa = c.a, sb = c.b;
    int64_t na = 1, nb = 1;
    for (auto d : sa) na *= d;
    for (auto d : sb) nb *= d;
    std::vector<double> va = randVec((size_t)na, -3, 3, 31), vb = randVec((size_t)nb, 0.25, 2, 32);
    va[1] = NAN;
    auto a = makeT(c.dt, sa, va), b = makeT(c.dt, sb, vb);
    auto r = runOp(c.op, {a, b});
    const Tensor& y = *r->out[0];
    ASSERT_EQ(y.type.dtype, c.dt);
    // Broadcast by hand: the output has the larger operand's shape; the other is repeated.
    for (int64_t e = 0; e < y.type.numel(); ++e) {
      int64_t ia = e, ib = e;
      if (na < nb) ia = e / (nb / na);  // {1,3,1} against {1,3,33}: one value per row
      if (nb < na) ib = nb == 1 ? 0 : e / (na / nb);
      float x = (float)a->floatAt(ia), z = (float)b->floatAt(ib), w;
      std::string op = c.op;
      if (op == "Mul") w = x * z;
      else if (op == "Add") w = x + z;
      else if (op == "Sub") w = x - z;
      else if (op == "Div") w = x / z;
      else if (op == "Max") w = std::isnan(x) || std::isnan(z) ? NAN : std::max(x, z);
      else w = std::isnan(x) || std::isnan(z) ? NAN : std::min(x, z);
      double want = c.dt == DType::F16 ? halfToFloat(floatToHalf(w)) : bf16ToFloat(floatToBf16(w));
      double got = y.floatAt(e);
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(got)) << "element " << e;
      else EXPECT_EQ(got, want) << "element " << e;
    }
  }
}

TEST(Eltwise, VariadicMeanAndSum) {
  auto a = makeT(DType::F32, {2, 2}, {1, 2, 3, 4});
  auto b = makeT(DType::F32, {2}, {10, 20});
  auto c = makeT(DType::F32, {}, {100});
  expectNear(*runOp("Sum", {a, b, c})->out[0], {111, 122, 113, 124}, 0, 0);
  expectNear(*runOp("Mean", {a, b, c})->out[0], {37, 122.0 / 3, 113.0 / 3, 124.0 / 3}, 1e-6, 0);
  expectNear(*runOp("Mean", {a, b})->out[0], {5.5, 11, 6.5, 12}, 0, 0);
  expectNear(*runOp("Sum", {a})->out[0], {1, 2, 3, 4}, 0, 0);
}

TEST(Eltwise, PReluSlopeBroadcast) {
  auto x = makeT(DType::F32, {1, 2, 2}, {-1, 1, -2, 2});
  auto s = makeT(DType::F32, {2, 1}, {0.1, 0.5});
  expectNear(*runOp("PRelu", {x, s})->out[0], {-0.1, 1, -1, 2}, 1e-7, 0);
}

// ---- The LLVM-specialised kernels (what runs in the .om) match the native ones ------------
#include "kernels/codegen/codegen.h"
#include "runtime/atc_rt_abi.h"
#include "runtime/so_loader.h"
#include "runtime/thread_pool.h"

TEST(EltwiseCodegen, MatchesNative) {
  std::vector<std::unique_ptr<EltRun>> cases;
  auto add = [&](const std::string& type, std::vector<TensorPtr> ins,
                 std::map<std::string, AttrValue> attrs = {}, int nout = 1, int64_t opset = 17) {
    cases.push_back(runOp(type, ins, attrs, nout, opset));
  };
  auto big = makeT(DType::F32, {64, 1000}, randVec(64000, -4, 4, 21));
  auto row = makeT(DType::F32, {1000}, randVec(1000, -1, 1, 22));
  add("Add", {big, row});
  add("Mul", {makeT(DType::F32, {64, 1}, randVec(64, -1, 1, 23)), big});
  add("Erf", {big});
  add("Tanh", {big});
  add("Sigmoid", {big});
  add("Exp", {big});
  add("Relu", {big});
  add("Clip", {big, makeT(DType::F32, {}, {0}), makeT(DType::F32, {}, {6})});
  add("Pow", {big, makeT(DType::F32, {}, {2})});
  add("Where", {makeT(DType::Bool, {64, 1}, {1, 0, 0}), big, row});
  add("Cast", {big}, {{"to", (int64_t)10}});
  auto h49 = makeT(DType::F16, {8, 49}, randVec(392, -3, 3, 26));
  add("Mul", {h49, makeT(DType::F16, {8, 1}, randVec(8, -1, 1, 27))});  // float16: 16 lanes + tail
  add("Sub", {makeT(DType::BF16, {8, 1}, randVec(8, -1, 1, 28)), makeT(DType::BF16, {8, 49}, randVec(392, -3, 3, 29))});
  add("Greater", {big, row});
  add("Sum", {big, row, makeT(DType::F32, {}, {1})});
  add("Div", {makeT(DType::I64, {5}, {7, -7, 9, 100, 3}), makeT(DType::I64, {1}, {2})});
  add("ReduceMean", {big}, {{"axes", std::vector<int64_t>{-1}}}, 1, 11);
  add("ReduceSum", {big}, {{"axes", std::vector<int64_t>{0}}}, 1, 11);
  add("ReduceMax", {big}, {}, 1, 11);
  add("ReduceLogSumExp", {big}, {{"axes", std::vector<int64_t>{1}}}, 1, 11);
  add("ArgMax", {big}, {{"axis", (int64_t)1}});
  add("ArgMin", {big}, {{"axis", (int64_t)0}});
  add("Softmax", {big});
  add("LogSoftmax", {big}, {{"axis", (int64_t)0}});
  add("Hardmax", {big});
  add("LayerNormalization", {big, row, row});
  auto x4 = makeT(DType::F32, {2, 8, 9, 10}, randVec(1440, -2, 2, 24));
  auto c8 = makeT(DType::F32, {8}, randVec(8, 0.5, 1.5, 25));
  add("BatchNormalization", {x4, c8, c8, c8, c8}, {}, 1, 15);
  add("InstanceNormalization", {x4, c8, c8});
  add("MeanVarianceNormalization", {x4});
  add("LpNormalization", {x4}, {{"axis", (int64_t)1}});
  auto z4 = makeT(DType::F32, {2, 3, 4}, {0, 0, 0, 0, 1.5, -2, 0, 0});  // zero slices along axes 1 and 2
  add("LpNormalization", {z4}, {{"axis", (int64_t)1}});
  add("LpNormalization", {z4}, {{"axis", (int64_t)-1}, {"p", (int64_t)1}});

  std::vector<KernelInstance> ki;
  for (size_t i = 0; i < cases.size(); ++i) {
    LowerCtx ctx(cases[i]->g, *cases[i]->n);
    KernelCall kc = OpRegistry::instance().find(cases[i]->n->type)->lower(ctx);
    ki.push_back({kc.kernel, kc.params, "k" + std::to_string(i)});
  }
  std::vector<uint8_t> so = compileKernels(loadHostTargetProfile("native"), ki, CodegenOptions());
  rt::SharedObject obj(so.data(), so.size());
  rt::ThreadPool pool(2);
  for (size_t i = 0; i < cases.size(); ++i) {
    Node& n = *cases[i]->n;
    SCOPED_TRACE(n.type + " case " + std::to_string(i));
    std::vector<void*> bufs;
    for (auto* v : n.inputs) bufs.push_back(v ? const_cast<uint8_t*>(v->constant->data.data()) : nullptr);
    std::vector<std::vector<uint8_t>> outs;
    for (auto* o : n.outputs) outs.emplace_back((size_t)o->type.byteSize() + 1, 0xAB);
    for (auto& o : outs) bufs.push_back(o.data());
    auto fn = (AtcKernelEntry)obj.symbol(ki[i].symbol);
    fn(bufs.data(), pool.rt());
    for (size_t k = 0; k < outs.size(); ++k) {
      ASSERT_EQ(outs[k].back(), 0xAB) << "wrote past its output";
      outs[k].pop_back();
      Tensor got(n.outputs[k]->type);
      got.data = outs[k];
      const Tensor& want = *cases[i]->out[k];
      for (int64_t e = 0; e < want.type.numel(); ++e) {
        double w = want.floatAt(e), g = got.floatAt(e);
        // FMA contraction in the specialised code: ulp-level differences.
        ASSERT_NEAR(g, w, 2e-5 * (1 + std::fabs(w))) << "element " << e;
      }
    }
  }
}
