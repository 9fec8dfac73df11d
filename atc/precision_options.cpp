// Precision options: command-line checks and file formats (docs/precision.md).
#include "atc/precision_options.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ir/error.h"

namespace atc {
namespace {

std::string trimS(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

[[noreturn]] void invalidOpt(const std::string& v, const std::string& opt, const std::string& why,
                             const std::string& fix) {
  throw AtcError("E10001", "Value [" + v + "] for parameter [--" + opt + "] is invalid. Reason: " + why, fix);
}

[[noreturn]] void badContent(const std::string& where, const std::string& why) {
  throw AtcError("E10003", "The content of " + where + " is invalid. Reason: " + why,
                 "Fix the file (formats: docs/precision.md).");
}

std::string readAll(const std::string& path, const std::string& opt) {
  std::ifstream f(path, std::ios::binary);
  struct stat st{};
  if (!f || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    invalidOpt(path, opt, "the file does not exist or cannot be read.", "Pass the path of an existing file.");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> split(const std::string& s, char c) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, c)) out.push_back(x);
  return out;
}

// "FP16", "float16", "fp32"...
bool dtypeFromUser(std::string s, DType* out) {
  for (auto& ch : s) ch = (char)std::tolower((unsigned char)ch);
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

PrecMode precisionModeOf(const CompileOptions& o) {
  const std::string& a = o.precisionMode;
  const std::string& b = o.precisionModeV2;
  if (a == "force_fp16" || b == "fp16") return PrecMode::ForceFp16;
  if (a == "allow_fp32_to_fp16") return PrecMode::AllowFp32ToFp16;
  if (a == "force_fp32" || a == "cube_fp16in_fp32out" || b == "cube_fp16in_fp32out") return PrecMode::CubeFp16InFp32Out;
  if (a == "allow_mix_precision" || a == "allow_mix_precision_fp16" || b == "mixed_float16") return PrecMode::MixFp16;
  if (a == "allow_mix_precision_bf16" || b == "mixed_bfloat16") return PrecMode::MixBf16;
  if (a == "allow_fp32_to_bf16") return PrecMode::AllowFp32ToBf16;
  return PrecMode::Origin;
}

const char* precModeName(PrecMode m) {
  switch (m) {
    case PrecMode::Origin: return "must_keep_origin_dtype";
    case PrecMode::ForceFp16: return "force_fp16";
    case PrecMode::AllowFp32ToFp16: return "allow_fp32_to_fp16";
    case PrecMode::CubeFp16InFp32Out: return "cube_fp16in_fp32out";
    case PrecMode::MixFp16: return "allow_mix_precision_fp16";
    case PrecMode::MixBf16: return "allow_mix_precision_bf16";
    case PrecMode::AllowFp32ToBf16: return "allow_fp32_to_bf16";
  }
  return "?";
}

void parsePrecisionCliOptions(const std::function<bool(const std::string&)>& isGiven,
                              const std::function<std::string(const std::string&)>& val, CompileOptions& opts) {
  if (isGiven("modify_mixlist")) {
    std::string v = trimS(val("modify_mixlist"));
    if (!isMixedMode(precisionModeOf(opts)))
      invalidOpt(v, "modify_mixlist", "it is only valid with a mixed precision mode.",
                 "Add --precision_mode=allow_mix_precision (or _bf16) or --precision_mode_v2=mixed_float16 / "
                 "mixed_bfloat16, or drop --modify_mixlist.");
    loadMixlist(v);  // content errors now, before the model is read
    opts.modifyMixlist = v;
  }
  if (isGiven("keep_dtype")) {
    opts.keepDtype = trimS(val("keep_dtype"));
    loadKeepDtype(opts.keepDtype);
  }
  if (isGiven("customize_dtypes")) {
    opts.customizeDtypes = trimS(val("customize_dtypes"));
    loadCustomizeDtypes(opts.customizeDtypes);
  }
  if (isGiven("input_fp16_nodes")) {
    opts.inputFp16Nodes = trimS(val("input_fp16_nodes"));
    if (parseInputFp16Nodes(opts.inputFp16Nodes).empty())
      invalidOpt(opts.inputFp16Nodes, "input_fp16_nodes", "no input name given.", "Use --input_fp16_nodes=\"in1;in2\".");
  }
  if (isGiven("output_type")) {
    opts.outputType = trimS(val("output_type"));
    parseOutputType(opts.outputType);
  }
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

MixlistMods loadMixlist(const std::string& path) {
  return parseMixlistText(readAll(path, "modify_mixlist"), "--modify_mixlist file " + path);
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

std::vector<PrecLine> parseKeepDtypeText(const std::string& text, const std::string& where) {
  std::vector<PrecLine> out;
  int ln = 0;
  for (auto& raw : split(text, '\n')) {
    ++ln;
    std::string s = trimS(raw);
    if (s.empty() || s[0] == '#') continue;
    PrecLine p = nameOrType(s, ln);
    if (p.name.empty()) badContent(where, "line " + std::to_string(ln) + ": empty op type");
    out.push_back(p);
  }
  return out;
}

std::vector<PrecLine> loadKeepDtype(const std::string& path) {
  return parseKeepDtypeText(readAll(path, "keep_dtype"), "--keep_dtype file " + path);
}

// Opname::InputDtype:a,b,...OutputDtype:c,...   or   OpType::T:InputDtype:...,OutputDtype:...
std::vector<PrecLine> parseCustomizeDtypesText(const std::string& text, const std::string& where) {
  std::vector<PrecLine> out;
  int ln = 0;
  for (auto& raw : split(text, '\n')) {
    ++ln;
    std::string s = trimS(raw);
    if (s.empty() || s[0] == '#') continue;
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
        std::string x = trimS(t);
        if (x.empty()) continue;
        DType d;
        if (!dtypeFromUser(x, &d)) bad("unknown dtype " + x);
        v.push_back(d);
      }
    };
    if (ip != std::string::npos) list(ip, 11, op > ip ? op : std::string::npos, p.in);
    if (op != std::string::npos) list(op, 12, ip > op ? ip : std::string::npos, p.out);
    out.push_back(p);
  }
  return out;
}

std::vector<PrecLine> loadCustomizeDtypes(const std::string& path) {
  return parseCustomizeDtypesText(readAll(path, "customize_dtypes"), "--customize_dtypes file " + path);
}

OutputTypeSpec parseOutputType(const std::string& text) {
  OutputTypeSpec s;
  auto bad = [&](const std::string& why) {
    invalidOpt(text, "output_type", why, "Use FP32, FP16, BF16, UINT8, INT8, or \"node:0:FP16;node2:1:FP32\".");
  };
  if (text.find(':') == std::string::npos) {
    if (!dtypeFromUser(trimS(text), &s.global)) bad("unknown dtype.");
    return s;
  }
  for (auto& e : split(text, ';')) {
    std::string x = trimS(e);
    if (x.empty()) continue;
    size_t c2 = x.rfind(':');
    size_t c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : x.rfind(':', c2 - 1);
    if (c1 == std::string::npos || c1 == 0) bad("entry [" + x + "] is not node:index:dtype.");
    std::string node = x.substr(0, c1), idx = x.substr(c1 + 1, c2 - c1 - 1);
    DType d;
    if (!dtypeFromUser(x.substr(c2 + 1), &d)) bad("unknown dtype in [" + x + "].");
    if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos) bad("bad index in [" + x + "].");
    s.perOutput[{node, std::stoi(idx)}] = d;
  }
  if (s.perOutput.empty()) bad("no entry.");
  return s;
}

std::vector<std::string> parseInputFp16Nodes(const std::string& text) {
  std::vector<std::string> out;
  for (auto& e : split(text, ';'))
    if (!trimS(e).empty()) out.push_back(trimS(e));
  return out;
}

}  // namespace atc
