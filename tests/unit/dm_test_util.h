// Helpers for the data-movement / shape op tests: build one node with constant inputs,
// infer, run it natively (atc::evalNodeNative) and compare with a reference.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ops/native_eval.h"
#include "support/diagnostics.h"
#include "ir/op_registry.h"

namespace dmtest {
using namespace atc;

inline std::shared_ptr<Tensor> tensorOf(DType dt, const Shape& s) {
  return std::make_shared<Tensor>(TensorType(dt, s));
}

// Float tensor with values 0, 1, 2, ... (+ offset).
inline std::shared_ptr<Tensor> iotaF(const Shape& s, float offset = 0.f) {
  auto t = tensorOf(DType::F32, s);
  for (int64_t i = 0; i < t->type.numel(); ++i) t->as<float>()[i] = (float)i + offset;
  return t;
}

template <class T>
std::shared_ptr<Tensor> tensorFrom(DType dt, const Shape& s, const std::vector<T>& v) {
  auto t = tensorOf(dt, s);
  EXPECT_EQ((int64_t)v.size(), t->type.numel());
  for (size_t i = 0; i < v.size(); ++i) t->as<T>()[i] = v[i];
  return t;
}

inline TensorPtr ints(const std::vector<int64_t>& v) { return makeIntTensor(v); }

struct OneNode {
  Graph g;
  Node* node = nullptr;
  OneNode(const std::string& type, const std::vector<TensorPtr>& inputs, int nout = 1,
          std::map<std::string, AttrValue> attrs = {}, int64_t opset = 17) {
    g.opsetVersion = opset;
    std::vector<Value*> ins, outs;
    for (size_t i = 0; i < inputs.size(); ++i)
      ins.push_back(inputs[i] ? g.newConstant("in" + std::to_string(i), inputs[i]) : nullptr);
    for (int i = 0; i < nout; ++i) outs.push_back(g.newValue("out" + std::to_string(i)));
    node = g.addNode(type, type + "_node", ins, outs);
    node->attrs = std::move(attrs);
  }
  std::vector<TensorPtr> run() {
    inferNode(g, *node);
    return evalNodeNative(g, *node);
  }
  TensorPtr run1() { return run().at(0); }
};

// Runs a single-output op.
inline TensorPtr runOp(const std::string& type, const std::vector<TensorPtr>& inputs,
                       std::map<std::string, AttrValue> attrs = {}, int64_t opset = 17) {
  OneNode o(type, inputs, 1, std::move(attrs), opset);
  return o.run1();
}

// Infers only; returns the output type.
inline TensorType inferOp(const std::string& type, const std::vector<TensorPtr>& inputs,
                          std::map<std::string, AttrValue> attrs = {}, int64_t opset = 17) {
  OneNode o(type, inputs, 1, std::move(attrs), opset);
  inferNode(o.g, *o.node);
  return o.node->outputs[0]->type;
}

inline std::vector<int64_t> stridesOf(const Shape& s) {
  std::vector<int64_t> r(s.size());
  int64_t k = 1;
  for (size_t d = s.size(); d-- > 0;) { r[d] = k; k *= s[d]; }
  return r;
}

// Calls f(multi-index) for every element of shape s in row-major order.
inline void forEachIndex(const Shape& s, const std::function<void(const std::vector<int64_t>&)>& f) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  std::vector<int64_t> idx(s.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(idx);
    for (size_t d = s.size(); d-- > 0;) {
      if (++idx[d] < s[d]) break;
      idx[d] = 0;
    }
  }
}

inline int64_t offsetOf(const std::vector<int64_t>& idx, const Shape& s) {
  auto st = stridesOf(s);
  int64_t o = 0;
  for (size_t d = 0; d < idx.size(); ++d) o += idx[d] * st[d];
  return o;
}

inline void expectFloats(const Tensor& t, const std::vector<float>& want, float tol = 0.f) {
  ASSERT_EQ(t.type.numel(), (int64_t)want.size()) << t.type.str();
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(t.floatAt((int64_t)i), want[i], tol) << "at " << i << " of " << t.type.str();
}

}  // namespace dmtest
