// Precision options: command-line checks and file formats (docs/precision.md).
#include "atc/precision_options.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/diagnostics.h"
#include "support/file_io.h"
#include "support/strings.h"

namespace atc {
namespace {

constexpr size_t kMaxOptionFileBytes = 16u << 20;

[[noreturn]] void invalidOpt(const std::string& v, const std::string& opt, const std::string& why,
                             const std::string& fix) {
  invalidParam(opt, v, why, fix);
}

[[noreturn]] void badContent(const std::string& where, const std::string& why) {
  invalidFileContent(where, why, "Fix the file (formats: docs/precision.md).");
}

std::string readAll(const std::string& path, const std::string& opt) {
  std::string text, err = readOptionFile(path, kMaxOptionFileBytes, &text);
  if (!err.empty()) invalidOpt(path, opt, err + ".", "Pass the path of an existing, readable file.");
  return text;
}

// "FP16", "float16", "fp32"...
bool dtypeFromUser(std::string s, DType* out) {
  s = toLower(s);
  static const std::map<std::string, DType> m = {
      {"fp32", DType::F32}, {"fp16", DType::F16}, {"bf16", DType::BF16}, {"uint8", DType::U8}, {"int8", DType::I8}};
  auto it = m.find(s);
  if (it != m.end()) {
    *out = it->second;
    return true;
  }
  return dtypeFromName(s, out) && *out != DType::Undefined;
}

}  // namespace

PrecMode precisionModeFromNames(const std::string& a, const std::string& b) {
  if (a == "force_fp16" || b == "fp16") return PrecMode::ForceFp16;
  if (a == "allow_fp32_to_fp16") return PrecMode::AllowFp32ToFp16;
  if (a == "force_fp32" || a == "cube_fp16in_fp32out" || b == "cube_fp16in_fp32out") return PrecMode::CubeFp16InFp32Out;
  if (a == "allow_mix_precision" || a == "allow_mix_precision_fp16" || b == "mixed_float16") return PrecMode::MixFp16;
  if (a == "allow_mix_precision_bf16" || b == "mixed_bfloat16") return PrecMode::MixBf16;
  if (a == "allow_fp32_to_bf16") return PrecMode::AllowFp32ToBf16;
  return PrecMode::Origin;
}


void parsePrecisionCliOptions(const std::function<bool(const std::string&)>& isGiven,
                              const std::function<std::string(const std::string&)>& val, PrecisionOptions& po) {
  if (isGiven("modify_mixlist")) {
    std::string v = trim(val("modify_mixlist"));
    if (!isMixedMode(po.mode))
      invalidOpt(v, "modify_mixlist", "it is only valid with a mixed precision mode.",
                 "Add --precision_mode=allow_mix_precision (or _bf16) or --precision_mode_v2=mixed_float16 / "
                 "mixed_bfloat16, or drop --modify_mixlist.");
    po.mixlist = parseMixlistText(readAll(v, "modify_mixlist"), "--modify_mixlist file " + v);
  }
  if (isGiven("keep_dtype")) {
    std::string v = trim(val("keep_dtype"));
    po.keepDtype = parseKeepDtypeText(readAll(v, "keep_dtype"), "--keep_dtype file " + v);
  }
  if (isGiven("customize_dtypes")) {
    std::string v = trim(val("customize_dtypes"));
    po.customizeDtypes = parseCustomizeDtypesText(readAll(v, "customize_dtypes"), "--customize_dtypes file " + v);
  }
  if (isGiven("input_fp16_nodes")) {
    std::string v = trim(val("input_fp16_nodes"));
    po.inputFp16Nodes = parseInputFp16Nodes(v);
    if (po.inputFp16Nodes.empty())
      invalidOpt(v, "input_fp16_nodes", "no input name given.", "Use --input_fp16_nodes=\"in1;in2\".");
  }
  if (isGiven("output_type")) po.outputType = parseOutputType(trim(val("output_type")));
}

MixlistMods parseMixlistText(const std::string& text, const std::string& where) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    badContent(where, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) badContent(where, "the top level must be an object");
  MixlistMods m;
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool black = it.key() == "black-list";
    if (!black && it.key() != "white-list")
      badContent(where, "unknown key \"" + it.key() + "\" (expected black-list, white-list)");
    if (!it.value().is_object()) badContent(where, it.key() + " must be an object");
    for (auto k = it.value().begin(); k != it.value().end(); ++k) {
      bool add = k.key() == "to-add";
      if (!add && k.key() != "to-remove")
        badContent(where, "unknown key \"" + k.key() + "\" in " + it.key() + " (expected to-add, to-remove)");
      if (!k.value().is_array()) badContent(where, it.key() + "." + k.key() + " must be a list of op types");
      for (auto& x : k.value()) {
        if (!x.is_string()) badContent(where, it.key() + "." + k.key() + " must hold strings");
        std::string t = x.get<std::string>();
        (black ? (add ? m.blackAdd : m.blackRemove) : (add ? m.whiteAdd : m.whiteRemove)).insert(t);
      }
    }
  }
  for (auto& t : m.blackAdd)
    if (m.whiteAdd.count(t)) badContent(where, "op type " + t + " is added to both the black and the white list");
  return m;
}


static PrecLine nameOrType(const std::string& s, int line) {
  PrecLine p;
  p.line = line;
  if (s.compare(0, 8, "OpType::") == 0) {
    p.isType = true;
    p.name = s.substr(8);
  } else {
    p.name = s;
  }
  return p;
}

// Calls fn(lineNumber, trimmedLine) for each line that is neither blank nor a '#' comment.
template <class Fn>
static void forEachContentLine(const std::string& text, Fn fn) {
  int ln = 0;
  for (auto& raw : split(text, '\n')) {
    ++ln;
    std::string s = trim(raw);
    if (!s.empty() && s[0] != '#') fn(ln, s);
  }
}

std::vector<PrecLine> parseKeepDtypeText(const std::string& text, const std::string& where) {
  std::vector<PrecLine> out;
  forEachContentLine(text, [&](int ln, const std::string& s) {
    PrecLine p = nameOrType(s, ln);
    if (p.name.empty()) badContent(where, "line " + std::to_string(ln) + ": empty op type");
    out.push_back(p);
  });
  return out;
}


// Opname::InputDtype:a,b,...OutputDtype:c,...   or   OpType::T:InputDtype:...,OutputDtype:...
std::vector<PrecLine> parseCustomizeDtypesText(const std::string& text, const std::string& where) {
  std::vector<PrecLine> out;
  forEachContentLine(text, [&](int ln, const std::string& s) {
    auto bad = [&](const std::string& why) { badContent(where, "line " + std::to_string(ln) + " [" + s + "]: " + why); };
    size_t ip = s.find("InputDtype:"), op = s.find("OutputDtype:");
    if (ip == std::string::npos && op == std::string::npos) bad("needs InputDtype: and/or OutputDtype:");
    size_t first = std::min(ip, op);
    std::string head = s.substr(0, first);
    PrecLine p;
    if (head.compare(0, 8, "OpType::") == 0) {
      if (head.size() < 10 || head.back() != ':') bad("expected OpType::Type:InputDtype:...");
      p = nameOrType(head.substr(0, head.size() - 1), ln);
    } else {
      if (head.size() < 3 || head.compare(head.size() - 2, 2, "::") != 0) bad("expected Opname::InputDtype:...");
      p = nameOrType(head.substr(0, head.size() - 2), ln);
    }
    if (p.name.empty()) bad("empty op name");
    auto list = [&](size_t at, size_t len, size_t end, std::vector<DType>& v) {
      std::string body = s.substr(at + len, end == std::string::npos ? std::string::npos : end - at - len);
      for (auto& t : split(body, ',')) {
        std::string x = trim(t);
        if (x.empty()) continue;
        DType d;
        if (!dtypeFromUser(x, &d)) bad("unknown dtype " + x);
        v.push_back(d);
      }
    };
    if (ip != std::string::npos) list(ip, 11, op > ip ? op : std::string::npos, p.in);
    if (op != std::string::npos) list(op, 12, ip > op ? ip : std::string::npos, p.out);
    out.push_back(p);
  });
  return out;
}


OutputTypeSpec parseOutputType(const std::string& text) {
  OutputTypeSpec s;
  auto bad = [&](const std::string& why) {
    invalidOpt(text, "output_type", why, "Use FP32, FP16, BF16, UINT8, INT8, or \"node:0:FP16;node2:1:FP32\".");
  };
  if (text.find(':') == std::string::npos) {
    if (!dtypeFromUser(trim(text), &s.global)) bad("unknown dtype.");
    return s;
  }
  for (auto& e : split(text, ';')) {
    std::string x = trim(e);
    if (x.empty()) continue;
    size_t c2 = x.rfind(':');
    size_t c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : x.rfind(':', c2 - 1);
    if (c1 == std::string::npos || c1 == 0) bad("entry [" + x + "] is not node:index:dtype.");
    std::string node = x.substr(0, c1), idx = x.substr(c1 + 1, c2 - c1 - 1);
    DType d;
    if (!dtypeFromUser(x.substr(c2 + 1), &d)) bad("unknown dtype in [" + x + "].");
    if (idx.empty() || idx.size() > 9 || idx.find_first_not_of("0123456789") != std::string::npos)
      bad("bad index in [" + x + "].");  // at most 9 digits: std::stoi cannot overflow
    s.perOutput[{node, std::stoi(idx)}] = d;
  }
  if (s.perOutput.empty()) bad("no entry.");
  return s;
}

std::vector<std::string> parseInputFp16Nodes(const std::string& text) {
  std::vector<std::string> out;
  for (auto& e : split(text, ';'))
    if (!trim(e).empty()) out.push_back(trim(e));
  return out;
}

}  // namespace atc
