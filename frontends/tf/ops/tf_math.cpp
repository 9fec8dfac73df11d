// TF math ops: element-wise unary/binary, AddN, reductions, ArgMax/ArgMin, MatMul,
// BatchMatMul(V2), Cast.
#include "frontends/tf/tf_common.h"
#include "frontends/tf/tf_convert.h"

namespace atc {
namespace tffe {
namespace {

using Outs = std::vector<Value*>;

Converter same(const std::string& type) {
  return [type](TfCtx& c) -> Outs { return {c.op(type, c.in)}; };
}

Outs rsqrt(TfCtx& c) { return {c.op("Reciprocal", {c.op("Sqrt", {c.in.at(0)}, {}, "sqrt")})}; }
Outs square(TfCtx& c) { return {c.op("Mul", {c.in.at(0), c.in.at(0)})}; }
Outs squaredDifference(TfCtx& c) {
  Value* d = c.op("Sub", {c.in.at(0), c.in.at(1)}, {}, "diff");
  return {c.op("Mul", {d, d})};
}
Outs floorDiv(TfCtx& c) {
  DType t = c.irType("T", DType::F32);
  if (!isFloat(t)) c.unsupported("integer FloorDiv is not supported");
  return {c.op("Floor", {c.op("Div", {c.in.at(0), c.in.at(1)}, {}, "div")})};
}
Outs log1p(TfCtx& c) {
  return {c.op("Log", {c.op("Add", {c.in.at(0), c.constScalar(1, c.irType("T", DType::F32))}, {}, "plus1")})};
}
Outs expm1(TfCtx& c) {
  return {c.op("Sub", {c.op("Exp", {c.in.at(0)}, {}, "exp"), c.constScalar(1, c.irType("T", DType::F32))})};
}
// Select (v1): a vector condition with higher-rank branches picks rows (its dim 0), where
// Where (SelectV2) would broadcast it against the last dim; so it gets trailing 1 dims first.
Outs select(TfCtx& c) {
  Value* cond = c.in.at(0);
  const int64_t rc = c.rank(cond), rx = c.rank(c.in.at(1));
  if (rc == 1 && rx > 1) {
    std::vector<int64_t> shape((size_t)rx, 1);
    shape[0] = -1;
    cond = c.op("Reshape", {cond, c.constI64(shape)}, {}, "rows");
  }
  return {c.op("Where", {cond, c.in.at(1), c.in.at(2)})};
}

Outs notEqual(TfCtx& c) { return {c.op("Not", {c.op("Equal", c.in, {}, "equal")})}; }

Converter reduce(const std::string& type) {
  return [type](TfCtx& c) -> Outs {
    std::vector<int64_t> axes = c.constInts(1, "reduction_indices");
    std::map<std::string, AttrValue> a = {{"keepdims", (int64_t)(c.b("keep_dims", false) ? 1 : 0)},
                                          {"noop_with_empty_axes", (int64_t)1}};
    if (axes.empty()) return {c.op("Identity", {c.in[0]})};  // TF: no axes = no reduction
    a["axes"] = axes;
    return {c.op(type, {c.in[0]}, a)};
  };
}

Converter argReduce(const std::string& type) {
  return [type](TfCtx& c) -> Outs {
    std::vector<int64_t> axis = c.constInts(1, "dimension");
    if (axis.size() != 1) c.invalid("dimension must be a scalar");
    DType outT = c.irType("output_type", DType::I64);
    std::string sfx = outT == DType::I64 ? "" : "arg";
    Value* y = c.op(type, {c.in[0]}, {{"axis", axis[0]}, {"keepdims", (int64_t)0}}, sfx);
    if (outT != DType::I64) y = c.op("Cast", {y}, {{"to", onnxTypeOf(outT)}});
    return {y};
  };
}

Outs matmul(TfCtx& c) {
  bool ta = c.b("transpose_a", false), tb = c.b("transpose_b", false);
  if (!ta && !tb) return {c.op("MatMul", {c.in.at(0), c.in.at(1)})};
  return {c.op("Gemm", {c.in.at(0), c.in.at(1)}, {{"transA", (int64_t)ta}, {"transB", (int64_t)tb}})};
}

Value* swapLastTwo(TfCtx& c, Value* v, const std::string& sfx) {
  int64_t r = c.requireRank(v, "a BatchMatMul operand");
  if (r < 2) c.invalid("a BatchMatMul operand with adj_x/adj_y must have rank >= 2");
  std::vector<int64_t> perm;
  for (int64_t k = 0; k < r; ++k) perm.push_back(k);
  std::swap(perm[r - 1], perm[r - 2]);
  return c.op("Transpose", {v}, {{"perm", perm}}, sfx);
}

Outs batchMatmul(TfCtx& c) {
  Value *a = c.in.at(0), *b = c.in.at(1);
  if (c.b("adj_x", false)) a = swapLastTwo(c, a, "adj_x");
  if (c.b("adj_y", false)) b = swapLastTwo(c, b, "adj_y");
  return {c.op("MatMul", {a, b})};
}

Outs cast(TfCtx& c) {
  DType to = c.irType("DstT", DType::Undefined);
  if (to == DType::Undefined) c.invalid("Cast has no DstT");
  return {c.op("Cast", {c.in.at(0)}, {{"to", onnxTypeOf(to)}})};
}

}  // namespace

void registerMathConverters(ConverterTable& t) {
  for (auto [tf, ir] : std::vector<std::pair<const char*, const char*>>{
           {"Add", "Add"}, {"AddV2", "Add"}, {"Sub", "Sub"}, {"Mul", "Mul"}, {"RealDiv", "Div"}, {"Div", "Div"},
           {"Maximum", "Max"}, {"Minimum", "Min"}, {"Pow", "Pow"}, {"AddN", "Sum"}, {"Equal", "Equal"},
           {"Less", "Less"}, {"Greater", "Greater"}, {"LessEqual", "LessOrEqual"},
           {"GreaterEqual", "GreaterOrEqual"}, {"LogicalAnd", "And"}, {"LogicalOr", "Or"},
           {"LogicalNot", "Not"}, {"Exp", "Exp"}, {"Log", "Log"}, {"Neg", "Neg"}, {"Abs", "Abs"},
           {"Erf", "Erf"}, {"Sqrt", "Sqrt"}, {"Reciprocal", "Reciprocal"}, {"Inv", "Reciprocal"},
           {"Floor", "Floor"}, {"Ceil", "Ceil"}, {"Round", "Round"}, {"Rint", "Round"}, {"Sign", "Sign"},
           {"Sin", "Sin"}, {"Cos", "Cos"}, {"Tan", "Tan"}, {"Asin", "Asin"}, {"Acos", "Acos"},
           {"Atan", "Atan"}, {"Sinh", "Sinh"}, {"Cosh", "Cosh"}, {"SelectV2", "Where"},
           {"IsNan", "IsNaN"}, {"IsInf", "IsInf"}})
    t[tf] = same(ir);
  t["Rsqrt"] = rsqrt;
  t["Select"] = select;
  t["Square"] = square;
  t["SquaredDifference"] = squaredDifference;
  t["FloorDiv"] = floorDiv;
  t["Log1p"] = log1p;
  t["Expm1"] = expm1;
  t["NotEqual"] = notEqual;
  t["Mean"] = reduce("ReduceMean");
  t["Sum"] = reduce("ReduceSum");
  t["Max"] = reduce("ReduceMax");
  t["Min"] = reduce("ReduceMin");
  t["Prod"] = reduce("ReduceProd");
  t["ArgMax"] = argReduce("ArgMax");
  t["ArgMin"] = argReduce("ArgMin");
  t["MatMul"] = matmul;
  t["BatchMatMul"] = batchMatmul;
  t["BatchMatMulV2"] = batchMatmul;
  t["BatchMatMulV3"] = batchMatmul;
  t["Cast"] = cast;
}

}  // namespace tffe
}  // namespace atc
