#include "frontends/onnx/onnx_einsum.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "frontends/onnx/onnx_function_body.h"
#include "support/diagnostics.h"

namespace atc {
namespace onnxfe {
namespace {

[[noreturn]] void refuse(const std::string& node, const std::string& why) {
  throw AtcError("E19999", "Op [" + node + "] of type [Einsum] is invalid: " + why,
                 "Check the equation and the operands' shapes (atc needs them declared) against the ONNX Einsum "
                 "specification, or write the product with MatMul, Transpose and ReduceSum.");
}

// One operand: its subscript letters (ellipsis dims as the characters '0', '1'...: digits
// cannot appear in an equation) and its value.
struct Operand {
  std::string letters, value;
};

// Splits "ab,bc->ac" (spaces dropped) into the operand subscripts and the output ("" with
// *implicit set when there is no "->").
std::vector<std::string> splitEquation(const std::string& node, std::string eq, std::string* out, bool* implicit) {
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const size_t arrow = eq.find("->");
  *implicit = arrow == std::string::npos;
  *out = *implicit ? "" : eq.substr(arrow + 2);
  const std::string lhs = *implicit ? eq : eq.substr(0, arrow);
  std::vector<std::string> terms(1);
  for (char c : lhs) {
    if (c == ',') terms.emplace_back();
    else if (std::isalpha((unsigned char)c) || c == '.') terms.back() += c;
    else refuse(node, std::string("the equation has the character '") + c + "'");
  }
  return terms;
}

// Replaces "..." by the last `count` of `nE` ellipsis characters ('0' + i).
std::string expandEllipsis(const std::string& node, const std::string& t, int64_t count, int64_t nE) {
  const size_t e = t.find("...");
  if (e == std::string::npos) {
    if (t.find('.') != std::string::npos) refuse(node, "a '.' outside an ellipsis");
    return t;
  }
  std::string dots;
  for (int64_t i = nE - count; i < nE; ++i) dots += (char)('0' + i);
  return t.substr(0, e) + dots + t.substr(e + 3);
}

// ReduceSum of x over `axes` (keepdims 0), by attribute below opset 13.
std::string reduceSum(Body& b, const std::string& x, const std::vector<int64_t>& axes, int64_t opset, const std::string& part) {
  if (opset >= 13) {
    onnx::NodeProto& r = b.add("ReduceSum", {x, b.constInts(axes, part + "Axes")}, b.v(part));
    Body::intAttr(r, "keepdims", 0);
  } else {
    onnx::NodeProto& r = b.add("ReduceSum", {x}, b.v(part));
    Body::intsAttr(r, "axes", axes);
    Body::intAttr(r, "keepdims", 0);
  }
  return b.v(part);
}

// x (letters `from`) transposed to the order `to` (the same letters); no node when equal.
std::string transposeTo(Body& b, const std::string& x, const std::string& from, const std::string& to,
                        const std::string& part) {
  if (from == to) return x;
  std::vector<int64_t> perm;
  for (char c : to) perm.push_back((int64_t)from.find(c));
  Body::intsAttr(b.add("Transpose", {x}, b.v(part)), "perm", perm);
  return b.v(part);
}

// Sums the letters of o that `keep` lacks.
void sumAway(Body& b, Operand& o, const std::string& keep, int64_t opset, const std::string& part) {
  std::vector<int64_t> axes;
  std::string left;
  for (size_t i = 0; i < o.letters.size(); ++i) {
    if (keep.find(o.letters[i]) == std::string::npos) axes.push_back((int64_t)i);
    else left += o.letters[i];
  }
  if (axes.empty()) return;
  o.value = reduceSum(b, o.value, axes, opset, part);
  o.letters = left;
}

// A letter repeated in one operand ("bii"): its diagonal. The operand times an identity mask over
// the two dims (EyeLike, reshaped to broadcast), summed over the second: the letter stays once.
void takeDiagonals(Body& b, Operand& o, std::vector<int64_t>& dims, int elemType, int64_t opset,
                   const std::string& node, const std::string& part) {
  for (int guard = 0; guard < 64; ++guard) {
    size_t k1 = 0, k2 = std::string::npos;
    for (size_t k = 0; k < o.letters.size() && k2 == std::string::npos; ++k)
      if (o.letters.find(o.letters[k]) != k) k2 = k, k1 = o.letters.find(o.letters[k]);
    if (k2 == std::string::npos) return;
    const int64_t d = dims[k1];
    if (d < 0 || dims[k2] != d)
      refuse(node, std::string("the letter '") + o.letters[k1] +
                       "' repeats in one operand over dims of different sizes");
    std::vector<int64_t> maskShape(o.letters.size(), 1);
    maskShape[k1] = maskShape[k2] = d;
    const std::string p = part + std::to_string(guard);
    std::string zeros = b.op("ConstantOfShape", {b.constInts({d, d}, p + "EyeDims")}, p + "Zeros");
    onnx::NodeProto& eye = b.add("EyeLike", {zeros}, b.v(p + "Eye"));
    Body::intAttr(eye, "dtype", elemType);
    std::string mask = b.op("Reshape", {b.v(p + "Eye"), b.constInts(maskShape, p + "MaskShape")}, p + "Mask");
    o.value = reduceSum(b, b.op("Mul", {o.value, mask}, p + "Masked"), {(int64_t)k2}, opset, p + "Diagonal");
    o.letters.erase(k2, 1);
    dims.erase(dims.begin() + (long)k2);
  }
}

void expandOne(Body& b, const onnx::GraphProto& g, const onnx::NodeProto& node, int64_t opset) {
  onnx::NodeProto n = node;  // refusals name it: "Einsum" when the model gives no name
  if (n.name().empty()) n.set_name("Einsum");
  std::string eq;
  for (const auto& a : n.attribute())
    if (a.name() == "equation") eq = a.s();
  bool implicit = false;
  std::string out;
  std::vector<std::string> terms = splitEquation(n.name(), eq, &out, &implicit);
  if ((int)terms.size() != n.input_size()) refuse(n.name(), "the equation has " + std::to_string(terms.size()) +
                                                             " operands, the node " + std::to_string(n.input_size()));
  if (terms.size() > 2) refuse(n.name(), "more than two operands");
  // Ranks, ellipsis widths and each letter's dim.
  std::vector<Operand> ops(terms.size());
  std::vector<Declared> decl;
  int64_t nE = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    decl.push_back(declared(g, input(n, (int)i)));
    if (decl[i].rank < 0) refuse(n.name(), "the rank of operand " + std::to_string(i) + " is not declared");
    int64_t named = 0;
    for (char c : terms[i]) named += c != '.';
    const int64_t width = terms[i].find("...") != std::string::npos ? decl[i].rank - named : 0;
    if (width < 0 || (width == 0 && named != decl[i].rank && terms[i].find("...") == std::string::npos))
      refuse(n.name(), "operand " + std::to_string(i) + " has rank " + std::to_string(decl[i].rank) +
                           " but subscripts '" + terms[i] + "'");
    nE = std::max(nE, width);
    ops[i].value = input(n, (int)i);
  }
  std::map<char, int64_t> dim;
  std::map<char, int> uses;
  for (size_t i = 0; i < terms.size(); ++i) {
    int64_t named = 0;
    for (char c : terms[i]) named += c != '.';
    ops[i].letters = expandEllipsis(n.name(), terms[i], decl[i].rank - named, nE);
    takeDiagonals(b, ops[i], decl[i].dims, decl[i].elemType, opset, n.name(), "Diag" + std::to_string(i));
    for (size_t k = 0; k < ops[i].letters.size(); ++k) {
      const char c = ops[i].letters[k];
      const int64_t d = decl[i].dims[k];
      if (d < 0) refuse(n.name(), "the dims of operand " + std::to_string(i) + " are not declared");
      if (dim.count(c) && dim[c] != d) refuse(n.name(), std::string("the letter '") + c + "' has dims " +
                                                            std::to_string(dim[c]) + " and " + std::to_string(d));
      dim[c] = d;
      ++uses[c];
    }
  }
  if (implicit) {
    for (int64_t i = 0; i < nE; ++i) out += (char)('0' + i);
    for (auto& [c, k] : uses)
      if (k == 1 && !std::isdigit((unsigned char)c)) out += c;
  } else {
    out = expandEllipsis(n.name(), out, nE, nE);
  }
  for (char c : out)
    if (!dim.count(c)) refuse(n.name(), std::string("the output letter '") + c + "' is in no operand");
  // Letters one operand has alone and the output lacks are summed away first.
  for (size_t i = 0; i < ops.size(); ++i) {
    std::string keep = out;
    for (size_t j = 0; j < ops.size(); ++j)
      if (j != i) keep += ops[j].letters;
    sumAway(b, ops[i], keep, opset, "Sum" + std::to_string(i));
  }
  if (ops.size() == 1) {
    std::string y = transposeTo(b, ops[0].value, ops[0].letters, out, "Out");
    b.add("Identity", {y}, output(n, 0));
    return;
  }
  std::string batch, contract, aKeep, bKeep;
  for (char c : out)
    if (ops[0].letters.find(c) != std::string::npos && ops[1].letters.find(c) != std::string::npos) batch += c;
  for (char c : ops[0].letters)
    if (ops[1].letters.find(c) != std::string::npos && out.find(c) == std::string::npos) contract += c;
    else if (ops[1].letters.find(c) == std::string::npos) aKeep += c;
  for (char c : ops[1].letters)
    if (ops[0].letters.find(c) == std::string::npos) bKeep += c;
  auto prod = [&](const std::string& s) {
    int64_t p = 1;
    for (char c : s) p *= dim[c];
    return p;
  };
  const int64_t B = prod(batch), M = prod(aKeep), K = prod(contract), N = prod(bKeep);
  // MatMul computes float types; other element types (double, integers) multiply the
  // broadcast operands [B, M, K, 1] x [B, 1, K, N] and sum K.
  const int t = decl[0].elemType;
  const bool mm = t == onnx::TensorProto::FLOAT || t == onnx::TensorProto::FLOAT16 || t == onnx::TensorProto::BFLOAT16;
  std::string a = transposeTo(b, ops[0].value, ops[0].letters, batch + aKeep + contract, "ATransposed");
  std::string c = transposeTo(b, ops[1].value, ops[1].letters, batch + contract + bKeep, "BTransposed");
  std::string product;
  if (mm) {
    a = b.op("Reshape", {a, b.constInts({B, M, K}, "AShape")}, "A3");
    c = b.op("Reshape", {c, b.constInts({B, K, N}, "BShape")}, "B3");
    product = b.op("MatMul", {a, c}, "Product");
  } else {
    a = b.op("Reshape", {a, b.constInts({B, M, K, 1}, "AShape")}, "A4");
    c = b.op("Reshape", {c, b.constInts({B, 1, K, N}, "BShape")}, "B4");
    product = reduceSum(b, b.op("Mul", {a, c}, "Products"), {2}, opset, "Product");
  }
  std::vector<int64_t> prodDims;
  for (char x : batch + aKeep + bKeep) prodDims.push_back(dim[x]);
  std::string y = b.op("Reshape", {product, b.constInts(prodDims, "ProductShape")}, "ProductDims");
  y = transposeTo(b, y, batch + aKeep + bKeep, out, "Out");
  b.add("Identity", {y}, output(n, 0));
}

}  // namespace

int expandEinsumNodes(onnx::ModelProto* model, int64_t opset) {
  return expandFunctionNodes(model, "Einsum", [opset](Body& b, const onnx::GraphProto& g, const onnx::NodeProto& n) {
    expandOne(b, g, n, opset);
  });
}

}  // namespace onnxfe
}  // namespace atc
