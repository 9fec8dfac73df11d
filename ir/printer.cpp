#include "ir/printer.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "support/diagnostics.h"

namespace atc {
bool isIrNameChar(char c) {
  return std::isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' || c == '/';
}

namespace {

std::string quoted(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') { r += '\\'; r += c; }
    else if (c == '\n') r += "\\n";
    else if (c == '\t') r += "\\t";
    else if ((unsigned char)c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", (unsigned)(unsigned char)c);
      r += buf;
    } else r += c;
  }
  return r + "\"";
}

std::string nameText(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s) plain = plain && isIrNameChar(c);
  return plain ? s : quoted(s);
}

std::string valueRef(const Value* v) { return v ? "%" + nameText(v->name) : "_"; }

// Always looks like a float (has '.', 'e', "inf" or "nan").
std::string floatText(double d, bool single) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, single ? "%.9g" : "%.17g", d);
  std::string s = buf;
  // Prefer the shortest text that reads back to the same value.
  for (int p = 1; p < (single ? 9 : 17); ++p) {
    char b2[40];
    std::snprintf(b2, sizeof b2, "%.*g", p, d);
    double back = std::strtod(b2, nullptr);
    if (single ? (float)back == (float)d : back == d) { s = b2; break; }
  }
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string elementText(const Tensor& t, int64_t i) {
  DType dt = t.type.dtype;
  if (dt == DType::Bool) return t.intAt(i) ? "true" : "false";
  // float8 / float4 constants: their bit patterns (the parser reads them back as such).
  if (isCastOnly(dt) && dt != DType::I4 && dt != DType::U4 && dt != DType::I2 && dt != DType::U2)
    return std::to_string(t.as<uint8_t>()[i]);
  if (isFloat(dt)) return floatText(t.floatAt(i), dt != DType::F64);
  if (dt == DType::U64) return std::to_string(t.as<uint64_t>()[i]);
  return std::to_string(t.intAt(i));
}

uint64_t fnv1a(const std::vector<uint8_t>& d) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : d) { h ^= b; h *= 1099511628211ull; }
  return h;
}

std::string attrText(const AttrValue& a) {
  std::ostringstream os;
  if (auto p = std::get_if<int64_t>(&a)) os << *p;
  else if (auto p = std::get_if<double>(&a)) os << floatText(*p, false);
  else if (auto p = std::get_if<std::string>(&a)) os << quoted(*p);
  else if (auto p = std::get_if<std::vector<int64_t>>(&a)) {
    if (p->empty()) return "ints[]";
    os << "[";
    for (size_t i = 0; i < p->size(); ++i) os << (i ? ", " : "") << (*p)[i];
    os << "]";
  } else if (auto p = std::get_if<std::vector<double>>(&a)) {
    if (p->empty()) return "floats[]";
    os << "[";
    for (size_t i = 0; i < p->size(); ++i) os << (i ? ", " : "") << floatText((*p)[i], false);
    os << "]";
  } else if (auto p = std::get_if<std::vector<std::string>>(&a)) {
    if (p->empty()) return "strings[]";
    os << "[";
    for (size_t i = 0; i < p->size(); ++i) os << (i ? ", " : "") << quoted((*p)[i]);
    os << "]";
  } else if (auto p = std::get_if<TensorPtr>(&a)) {
    if (!*p) return "tensor<undefined[?]>[]";
    os << "tensor<" << (*p)->type.str() << ">" << printTensorData(**p);
  }
  return os.str();
}

}  // namespace

std::string printTensorData(const Tensor& t, int64_t maxElements) {
  int64_t n = t.type.numel();
  if (n < 0 || (int64_t)t.data.size() < t.type.byteSize()) return "<invalid>";
  std::ostringstream os;
  if (n > maxElements) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)fnv1a(t.data));
    os << "<" << n << " elements, fnv1a=" << buf << ">";
    return os.str();
  }
  os << "[";
  for (int64_t i = 0; i < n; ++i) os << (i ? ", " : "") << elementText(t, i);
  os << "]";
  return os.str();
}

std::string printNode(const Node& n) {
  std::ostringstream os;
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const Value* o = n.outputs[i];
    os << (i ? ", " : "") << valueRef(o) << ": " << (o ? o->type.str() : "undefined[?]");
    if (o && o->shapeFromData) os << " bound";
  }
  os << " = " << nameText(n.type) << "(";
  for (size_t i = 0; i < n.inputs.size(); ++i) os << (i ? ", " : "") << valueRef(n.inputs[i]);
  os << ") {name=" << quoted(n.name);
  if (!n.domain.empty()) os << ", domain=" << quoted(n.domain);
  if (!n.originalNames.empty()) os << ", fused_from=" << attrText(n.originalNames);
  for (auto& [k, v] : n.attrs) os << ", " << nameText(k) << "=" << attrText(v);
  os << "}";
  return os.str();
}

std::string printGraph(const Graph& g) {
  std::ostringstream os;
  os << "graph " << nameText(g.name.empty() ? "main" : g.name) << "(";
  for (size_t i = 0; i < g.inputs.size(); ++i)
    os << (i ? ", " : "") << valueRef(g.inputs[i]) << ": " << g.inputs[i]->type.str();
  os << ") -> (";
  for (size_t i = 0; i < g.outputs.size(); ++i) os << (i ? ", " : "") << valueRef(g.outputs[i]);
  os << ") {\n";
  // Constants in order of first use.
  std::vector<const Value*> consts;
  std::set<const Value*> seen;
  auto note = [&](const Value* v) {
    if (v && v->isConstant() && !v->producer && seen.insert(v).second) consts.push_back(v);
  };
  for (auto& n : g.nodes())
    for (auto* in : n->inputs) note(in);
  for (auto* o : g.outputs) note(o);
  for (auto* c : consts)
    os << "  " << valueRef(c) << ": " << c->type.str() << " = const "
       << printTensorData(*c->constant) << "\n";
  for (auto& n : g.nodes()) os << "  " << printNode(*n) << "\n";
  os << "}\n";
  return os.str();
}

}  // namespace atc
