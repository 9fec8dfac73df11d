// The cast-only element types (ir/dtype.h: float8, float4, int4, uint4, int2, uint2): their
// decoded values, the ONNX importer's unpacking of 4- and 2-bit tensors (raw data and
// int32_data), IR text round trips, Cast through the native kernel (kernels/lib/cast_lp.h) at
// the formats' edges, and the refusal of arithmetic on them. tests/e2e/lowp_types_check.py runs
// them through atc and omrun.
#include <gtest/gtest.h>

#include <cmath>

#include "frontends/onnx/onnx_tensor.h"
#include "ir/op_registry.h"
#include "ir/printer.h"
#include "ops/native_eval.h"
#include "support/diagnostics.h"

using namespace atc;

namespace {

TensorPtr floats(const std::vector<float>& v) {
  auto t = std::make_shared<Tensor>(TensorType(DType::F32, {(int64_t)v.size()}));
  for (size_t i = 0; i < v.size(); ++i) t->as<float>()[i] = v[i];
  return t;
}

// Cast of a constant through the native kernel library; the output's bytes.
std::vector<uint8_t> castBits(const std::vector<float>& x, DType to, int64_t saturate = 1) {
  Graph g;
  g.opsetVersion = 23;
  Node* n = g.addNode("Cast", "c", {g.newConstant("x", floats(x))}, {g.newValue("y")});
  n->attrs["to"] = onnxCodeOf(to);
  n->attrs["saturate"] = saturate;
  inferNode(g, *n);
  auto out = evalNodeNative(g, *n);
  return out.at(0)->data;
}

}  // namespace

TEST(CastOnlyTypes, DecodedValues) {
  EXPECT_EQ(castOnlyFloatValue(DType::F8E4M3FN, 0x7e), 448.0);
  EXPECT_TRUE(std::isnan(castOnlyFloatValue(DType::F8E4M3FN, 0xff)));
  EXPECT_EQ(castOnlyFloatValue(DType::F8E4M3FN, 0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(castOnlyFloatValue(DType::F8E4M3FNUZ, 0x7f), 240.0);
  EXPECT_TRUE(std::isnan(castOnlyFloatValue(DType::F8E4M3FNUZ, 0x80)));
  EXPECT_EQ(castOnlyFloatValue(DType::F8E5M2, 0x7b), 57344.0);
  EXPECT_EQ(castOnlyFloatValue(DType::F8E5M2, 0xfc), -INFINITY);
  EXPECT_EQ(castOnlyFloatValue(DType::F8E5M2FNUZ, 0x7f), 57344.0);
  EXPECT_EQ(castOnlyFloatValue(DType::F4E2M1, 0x7), 6.0);
  EXPECT_EQ(castOnlyFloatValue(DType::F4E2M1, 0xf), -6.0);
  EXPECT_EQ(castOnlyFloatValue(DType::F8E8M0, 127), 1.0);
  EXPECT_EQ(dtypeFromOnnxCode(22), DType::I4);
  EXPECT_EQ(onnxCodeOf(DType::F8E8M0), 24);
  EXPECT_EQ(dtypeBits(DType::U2), 2);
}

TEST(CastOnlyTypes, CastAtTheFormatsEdges) {
  // 464 lies halfway between E4M3FN's 448 and the next step (480, not in the format): it rounds
  // to 448 (ties to even) and anything at or beyond 480 overflows: 448 with saturate, NaN without.
  EXPECT_EQ(castBits({448, 464, 480, -1e9f, INFINITY}, DType::F8E4M3FN),
            (std::vector<uint8_t>{0x7e, 0x7e, 0x7e, 0xfe, 0x7e}));
  EXPECT_EQ(castBits({464, 480, -INFINITY}, DType::F8E4M3FN, 0), (std::vector<uint8_t>{0x7e, 0x7f, 0xff}));
  // E5M2 keeps infinities without saturate; FNUZ has one NaN (0x80) and no negative zero.
  EXPECT_EQ(castBits({1e9f, -INFINITY}, DType::F8E5M2, 0), (std::vector<uint8_t>{0x7c, 0xfc}));
  EXPECT_EQ(castBits({-0.0f, NAN, 1e9f}, DType::F8E4M3FNUZ, 0), (std::vector<uint8_t>{0x00, 0x80, 0x80}));
  // Subnormals: 2^-9 is E4M3FN's smallest; 2^-10 is a tie between 0 and it (to even: 0).
  EXPECT_EQ(castBits({std::ldexp(1.0f, -9), std::ldexp(1.0f, -10), std::ldexp(1.5f, -10)}, DType::F8E4M3FN),
            (std::vector<uint8_t>{0x01, 0x00, 0x01}));
  // Float4 E2M1: 0, 0.5, 1, 1.5, 2, 3, 4, 6; 5 is a tie between 4 (0x6) and 6 (0x7): even 0x6.
  EXPECT_EQ(castBits({0.25f, 0.3f, 5.0f, 7.0f, -2.5f}, DType::F4E2M1),
            (std::vector<uint8_t>{0x0, 0x1, 0x6, 0x7, 0xc}));
  // int4 / uint2 keep the low bits of the rounded integer (ONNX's opset-25 node tests).
  EXPECT_EQ(castBits({7.4f, 8.0f, -9.0f, 2.5f, 3.5f}, DType::I4),
            (std::vector<uint8_t>{7, (uint8_t)-8, 7, 2, 4}));
  EXPECT_EQ(castBits({-1.0f, 5.0f}, DType::U2), (std::vector<uint8_t>{3, 1}));
}

TEST(CastOnlyTypes, OnnxImportUnpacksSubByteTensors) {
  onnx::TensorProto p;
  p.set_name("w");
  p.set_data_type(22);  // INT4
  p.add_dims(3);
  p.set_raw_data(std::string("\x8f\x07", 2));  // -1, -8, 7 (low nibble first)
  TensorPtr t = onnxfe::tensorFromOnnx(p, ".", "m.onnx");
  ASSERT_EQ(t->type.dtype, DType::I4);
  EXPECT_EQ(t->toInts(), (std::vector<int64_t>{-1, -8, 7}));
  onnx::TensorProto q;
  q.set_name("z");
  q.set_data_type(25);  // UINT2, in int32_data: one packed byte per entry
  q.add_dims(5);
  q.add_int32_data(0xe4);  // 0, 1, 2, 3
  q.add_int32_data(0x02);  // 2
  TensorPtr u = onnxfe::tensorFromOnnx(q, ".", "m.onnx");
  EXPECT_EQ(u->toInts(), (std::vector<int64_t>{0, 1, 2, 3, 2}));
  q.add_int32_data(0);  // one entry too many for 5 elements
  EXPECT_THROW(onnxfe::tensorFromOnnx(q, ".", "m.onnx"), AtcError);
}

TEST(CastOnlyTypes, IrTextRoundTrip) {
  const std::string text =
      "graph g(%x: float8_e4m3fn[2]) -> (%y, %v) {\n"
      "  %w: int4[3] = const [-8, 0, 7]\n"
      "  %s: float8_e5m2[2] = const [60, 124]\n"
      "  %y: float32[2] = Cast(%x) {name=\"c\", to=1}\n"
      "  %v: float32[3] = Cast(%w) {name=\"d\", to=1}\n"
      "  %u: float32[2] = Cast(%s) {name=\"e\", to=1}\n"
      "}\n";
  auto g = parseGraph(text);
  EXPECT_EQ(printGraph(*g), text);
  const Value* sv = g->findNode("e")->inputs[0];
  ASSERT_TRUE(sv->isConstant());
  EXPECT_EQ(sv->constant->floatAt(0), 1.0);  // E5M2 0x3c
  EXPECT_EQ(sv->constant->floatAt(1), INFINITY);  // E5M2 0x7c
}

TEST(CastOnlyTypes, ArithmeticIsRefused) {
  Graph g;
  g.opsetVersion = 23;
  Value* x = g.newValue("x", TensorType(DType::F8E5M2, {4}));
  Node* n = g.addNode("Relu", "r", {x}, {g.newValue("y")});
  try {
    inferNode(g, *n);
    FAIL() << "Relu on float8 was accepted";
  } catch (const AtcError& e) {
    EXPECT_EQ(e.code(), "E19010");
    EXPECT_NE(std::string(e.what()).find("float8_e5m2"), std::string::npos) << e.what();
  }
}
