#include "ir/printer.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "ir/error.h"

namespace atc {
namespace {

// ---------------------------------------------------------------- printing helpers

bool isNameChar(char c) {
  return std::isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' || c == '/';
}

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
  for (char c : s) plain = plain && isNameChar(c);
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

// ---------------------------------------------------------------- parser

namespace {

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  std::unique_ptr<Graph> run() {
    g_ = std::make_unique<Graph>();
    expectWord("graph");
    g_->name = parseName();
    expect('(');
    if (!accept(')')) {
      do {
        Value* v = valueDef();
        expect(':');
        v->type = parseType();
        g_->inputs.push_back(v);
      } while (accept(','));
      expect(')');
    }
    expect('-');
    expect('>');
    expect('(');
    if (!accept(')')) {
      do g_->outputs.push_back(valueUse()); while (accept(','));
      expect(')');
    }
    expect('{');
    while (!accept('}')) statement();
    skipSpace();
    if (pos_ != s_.size()) fail("text after the closing '}'");
    for (auto& [name, v] : byName_)
      if (!defined_.count(v)) fail("value %" + name + " is used but never defined");
    return std::move(g_);
  }

 private:
  void statement() {
    std::vector<std::pair<Value*, TensorType>> outs;
    do {
      Value* v = valueDef();
      expect(':');
      outs.push_back({v, parseType()});
    } while (accept(','));
    expect('=');
    skipSpace();
    if (peekWord("const")) {
      expectWord("const");
      if (outs.size() != 1) fail("a constant defines exactly one value");
      outs[0].first->type = outs[0].second;
      outs[0].first->constant = parseTensorData(outs[0].second);
      return;
    }
    std::string type = parseName();
    expect('(');
    std::vector<Value*> ins;
    if (!accept(')')) {
      do {
        skipSpace();
        if (accept('_')) ins.push_back(nullptr);
        else ins.push_back(valueUse());
      } while (accept(','));
      expect(')');
    }
    std::vector<Value*> outVals;
    for (auto& [v, t] : outs) {
      v->type = t;
      outVals.push_back(v);
    }
    std::string nodeName, domain;
    std::vector<std::string> fusedFrom;
    std::map<std::string, AttrValue> attrs;
    if (accept('{')) {
      if (!accept('}')) {
        do {
          std::string key = parseName();
          expect('=');
          AttrValue a = parseAttr();
          if (key == "name" && std::holds_alternative<std::string>(a)) nodeName = std::get<std::string>(a);
          else if (key == "domain" && std::holds_alternative<std::string>(a)) domain = std::get<std::string>(a);
          else if (key == "fused_from" && std::holds_alternative<std::vector<std::string>>(a))
            fusedFrom = std::get<std::vector<std::string>>(a);
          else attrs[key] = std::move(a);
        } while (accept(','));
        expect('}');
      }
    }
    Node* n = g_->addNode(type, nodeName, ins, outVals);
    n->domain = domain;
    n->originalNames = fusedFrom;
    n->attrs = std::move(attrs);
  }

  AttrValue parseAttr() {
    skipSpace();
    if (peek() == '"') return parseString();
    if (peekWord("ints")) { expectWord("ints"); expect('['); expect(']'); return std::vector<int64_t>{}; }
    if (peekWord("floats")) { expectWord("floats"); expect('['); expect(']'); return std::vector<double>{}; }
    if (peekWord("strings")) { expectWord("strings"); expect('['); expect(']'); return std::vector<std::string>{}; }
    if (peekWord("tensor")) {
      expectWord("tensor");
      expect('<');
      TensorType t = parseType();
      expect('>');
      return TensorPtr(parseTensorData(t));
    }
    if (accept('[')) {
      skipSpace();
      if (peek() == '"') {
        std::vector<std::string> r;
        do r.push_back(parseString()); while (accept(','));
        expect(']');
        return r;
      }
      std::vector<std::string> toks;
      do toks.push_back(numberToken()); while (accept(','));
      expect(']');
      bool anyFloat = false;
      for (auto& t : toks) anyFloat = anyFloat || looksFloat(t);
      if (anyFloat) {
        std::vector<double> r;
        for (auto& t : toks) r.push_back(toDouble(t));
        return r;
      }
      std::vector<int64_t> r;
      for (auto& t : toks) r.push_back(toInt(t));
      return r;
    }
    std::string t = numberToken();
    if (looksFloat(t)) return toDouble(t);
    return toInt(t);
  }

  std::shared_ptr<Tensor> parseTensorData(const TensorType& type) {
    if (!type.isStatic()) fail("a constant needs a static type");
    skipSpace();
    if (peek() == '<') fail("an elided constant (" + type.str() + ") cannot be parsed back");
    auto t = std::make_shared<Tensor>(type);
    expect('[');
    int64_t n = type.numel(), i = 0;
    if (!accept(']')) {
      do {
        std::string tok = numberToken();
        if (i >= n) fail("too many elements for " + type.str());
        setElement(*t, i++, tok);
      } while (accept(','));
      expect(']');
    }
    if (i != n) fail("constant of type " + type.str() + " needs " + std::to_string(n) + " elements");
    return t;
  }

  void setElement(Tensor& t, int64_t i, const std::string& tok) {
    switch (t.type.dtype) {
      case DType::F32: t.as<float>()[i] = (float)toDouble(tok); break;
      case DType::F64: t.as<double>()[i] = toDouble(tok); break;
      case DType::F16: t.as<uint16_t>()[i] = floatToHalf((float)toDouble(tok)); break;
      case DType::BF16: t.as<uint16_t>()[i] = floatToBf16((float)toDouble(tok)); break;
      case DType::I64: t.as<int64_t>()[i] = toInt(tok); break;
      case DType::I32: t.as<int32_t>()[i] = (int32_t)toInt(tok); break;
      case DType::I16: t.as<int16_t>()[i] = (int16_t)toInt(tok); break;
      case DType::I8: t.as<int8_t>()[i] = (int8_t)toInt(tok); break;
      case DType::U8: t.as<uint8_t>()[i] = (uint8_t)toInt(tok); break;
      case DType::U16: t.as<uint16_t>()[i] = (uint16_t)toInt(tok); break;
      case DType::U32: t.as<uint32_t>()[i] = (uint32_t)toInt(tok); break;
      case DType::U64: t.as<uint64_t>()[i] = std::strtoull(tok.c_str(), nullptr, 10); break;
      case DType::Bool: t.as<uint8_t>()[i] = (tok == "true" || tok == "1") ? 1 : 0; break;
      default: fail("constant of undefined dtype");
    }
  }

  TensorType parseType() {
    skipSpace();
    std::string dt;
    while (pos_ < s_.size() && std::isalnum((unsigned char)s_[pos_])) dt += s_[pos_++];
    TensorType t;
    if (dt == "undefined") t.dtype = DType::Undefined;
    else if (!dtypeFromName(dt, &t.dtype)) fail("unknown dtype '" + dt + "'");
    expect('[');
    t.shapeKnown = true;
    if (!accept(']')) {
      bool first = true;
      do {
        if (accept('?')) {
          // "[?]" is an unknown rank (TensorType::str prints it so).
          if (first && accept(']')) {
            t.shapeKnown = false;
            t.shape.clear();
            return t;
          }
          t.shape.push_back(-1);
        } else {
          t.shape.push_back(toInt(numberToken()));
        }
        first = false;
      } while (accept(','));
      expect(']');
    }
    return t;
  }

  Value* lookup(const std::string& name) {
    auto it = byName_.find(name);
    if (it != byName_.end()) return it->second;
    Value* v = g_->newValue(name);
    if (v->name != name) fail("value name clash for %" + name);
    byName_[name] = v;
    return v;
  }
  Value* valueDef() {
    expect('%');
    std::string name = parseNameNoSpace();
    Value* v = lookup(name);
    if (!defined_.insert(v).second) fail("value %" + name + " is defined twice");
    return v;
  }
  Value* valueUse() {
    expect('%');
    return lookup(parseNameNoSpace());
  }

  std::string parseName() {
    skipSpace();
    return parseNameNoSpace();
  }
  std::string parseNameNoSpace() {
    if (peek() == '"') return parseString();
    std::string r;
    while (pos_ < s_.size() && isNameChar(s_[pos_])) r += s_[pos_++];
    if (r.empty()) fail("expected a name");
    return r;
  }
  std::string parseString() {
    expect('"');
    std::string r;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\' && pos_ < s_.size()) {
        char e = s_[pos_++];
        if (e == 'n') r += '\n';
        else if (e == 't') r += '\t';
        else if (e == 'x' && pos_ + 2 <= s_.size()) {
          r += (char)std::strtol(s_.substr(pos_, 2).c_str(), nullptr, 16);
          pos_ += 2;
        } else r += e;
      } else r += c;
    }
    expect('"');
    return r;
  }
  std::string numberToken() {
    skipSpace();
    std::string r;
    while (pos_ < s_.size() && (std::isalnum((unsigned char)s_[pos_]) || s_[pos_] == '.' ||
                                s_[pos_] == '-' || s_[pos_] == '+'))
      r += s_[pos_++];
    if (r.empty()) fail("expected a number");
    return r;
  }
  static bool looksFloat(const std::string& t) {
    return t.find_first_of(".eEn") != std::string::npos && t != "true" && t != "false";
  }
  double toDouble(const std::string& t) {
    if (t == "nan") return NAN;
    if (t == "inf") return INFINITY;
    if (t == "-inf") return -INFINITY;
    char* end = nullptr;
    double d = std::strtod(t.c_str(), &end);
    if (!end || *end) fail("bad number '" + t + "'");
    return d;
  }
  int64_t toInt(const std::string& t) {
    if (t == "true") return 1;
    if (t == "false") return 0;
    char* end = nullptr;
    long long v = std::strtoll(t.c_str(), &end, 10);
    if (!end || *end) fail("bad integer '" + t + "'");
    return v;
  }

  void skipSpace() {
    for (;;) {
      while (pos_ < s_.size() && std::isspace((unsigned char)s_[pos_])) ++pos_;
      if (pos_ + 1 < s_.size() && s_[pos_] == '/' && s_[pos_ + 1] == '/') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
        continue;
      }
      break;
    }
  }
  char peek() { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool accept(char c) {
    skipSpace();
    if (peek() == c) { ++pos_; return true; }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }
  bool peekWord(const std::string& w) {
    skipSpace();
    if (s_.compare(pos_, w.size(), w) != 0) return false;
    size_t e = pos_ + w.size();
    return e >= s_.size() || !(std::isalnum((unsigned char)s_[e]) || s_[e] == '_');
  }
  void expectWord(const std::string& w) {
    if (!peekWord(w)) fail("expected '" + w + "'");
    pos_ += w.size();
  }
  [[noreturn]] void fail(const std::string& what) {
    int line = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) line += s_[i] == '\n';
    throw AtcError("E19999", "IR text, line " + std::to_string(line) + ": " + what,
                   "Fix the graph text (see ir/printer.h for the syntax).");
  }

  const std::string& s_;
  size_t pos_ = 0;
  std::unique_ptr<Graph> g_;
  std::map<std::string, Value*> byName_;
  std::set<Value*> defined_;
};

}  // namespace

std::unique_ptr<Graph> parseGraph(const std::string& text) { return Parser(text).run(); }

}  // namespace atc
