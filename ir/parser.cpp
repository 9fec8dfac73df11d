// The parser of the IR text form (ir/printer.h has the format): tests and atc-opt write
// graphs as text.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "ir/printer.h"
#include "support/diagnostics.h"

namespace atc {

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
      skipSpace();
      if (peekWord("bound")) {  // printNode: a shapeFromData value
        expectWord("bound");
        v->shapeFromData = true;
      }
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
      default:
        if (!isCastOnly(t.type.dtype)) fail("constant of undefined dtype");
        t.as<uint8_t>()[i] = (uint8_t)toInt(tok);  // int4 / int2 values, float8 / float4 bit patterns
        break;
    }
  }

  TensorType parseType() {
    skipSpace();
    std::string dt;
    while (pos_ < s_.size() && (std::isalnum((unsigned char)s_[pos_]) || s_[pos_] == '_')) dt += s_[pos_++];
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
    while (pos_ < s_.size() && isIrNameChar(s_[pos_])) r += s_[pos_++];
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
