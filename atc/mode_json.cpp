// --mode=1 and the precision summary (atc/mode_json.h).
#include "atc/mode_json.h"

#include <fstream>
#include <sstream>

#include "support/diagnostics.h"
#include "support/file_io.h"
#include "support/strings.h"
#include "runtime/om_format.h"
#include "runtime/om_signature.h"

namespace atc {

using json = nlohmann::json;

static std::string omInfoFromJson(const json& md);

json omToJson(const std::string& omPath) {
  json md;
  std::vector<uint8_t> bytes;
  try {
    bytes = om::readFileBytes(omPath);
    om::OmView v = om::parseOm(bytes.data(), bytes.size(), omPath);
    md = json::parse(v.partString(om::kModelDef));
    json parts = json::array();
    for (auto& p : v.partitions) parts.push_back({{"type", p.type}, {"size", p.size}});
    md["partitions"] = parts;
    md["signed_by"] = om::omSigner(v);  // the signing key's fingerprint, "" when unsigned
  } catch (const AtcError&) {
    throw;
  } catch (const std::exception& e) {
    throw AtcError("E10041", "Failed to load the model [" + omPath + "]: " + e.what(),
                   "Pass an .om built by this version of atc to --om.");
  }
  // Per node that records one: the precision decisions, and (QDQ models) the int8 or float32
  // decision per quantized Conv / MatMul / Gemm (QdqConvFoldPass).
  auto decisions = [&](const char* attr, const std::vector<std::pair<const char*, const char*>>& fields) {
    json list = json::array();
    if (!md.contains("graph") || !md["graph"].contains("nodes")) return list;
    for (auto& n : md["graph"]["nodes"]) {
      const json& a = n.value("attrs", json::object());
      if (!a.contains(attr)) continue;
      json d;
      d["name"] = n.value("name", "");
      d["type"] = n.value("type", "");
      if (n.contains("original_names")) d["original_names"] = n["original_names"];
      for (auto& [key, from] : fields) d[key] = a.value(from, "");
      list.push_back(d);
    }
    return list;
  };
  md["precision_decisions"] = decisions("_precision_reason", {{"dtype_in", "_dtype_in"}, {"dtype_out", "_dtype_out"},
                                                              {"impl_mode", "_impl_mode"}, {"reason", "_precision_reason"}});
  md["quantization_decisions"] = decisions("_quant_decision", {{"decision", "_quant_decision"}});
  return md;
}

void writeOmJson(const std::string& omPath, const std::string& jsonPath) {
  json j = omToJson(omPath);
  std::string text = j.dump(2) + "\n";
  std::string err = writeFileAtomically(jsonPath, text.data(), text.size());
  if (!err.empty()) invalidParam("json", jsonPath, "cannot write the file (" + err + ").", "Pass a writable path.");
}

std::string omInfoText(const std::string& omPath) {
  json md = omToJson(omPath);
  try {
    return omInfoFromJson(md);
  } catch (const json::exception& e) {
    throw AtcError("E10041", "Failed to load the model [" + omPath + "]: its model definition is invalid (" + e.what() + ")",
                   "Pass an .om built by this version of atc to --om.");
  }
}

static std::string omInfoFromJson(const json& md) {
  auto sizeOf = [&](uint32_t type) {
    for (auto& p : md["partitions"])
      if (p.value("type", 99u) == type) return p.value("size", (uint64_t)0);
    return (uint64_t)0;
  };
  std::ostringstream os;
  os << "============ Display Model Info start ============\n";
  os << "Original Atc command line: " << md.value("atc_cmdline", "") << "\n";
  os << "system   info: atc_version[" << md.value("atc_version", "") << "], soc_version["
     << md.value("soc_version", "") << "], framework_type[" << md.value("framework_type", 0) << "].\n";
  os << "resource info: memory_size[" << md.value("memory_size", (int64_t)0) << " B], weight_size["
     << md.value("weight_size", (int64_t)0) << " B], stream_num[1], event_num[0].\n";
  os << "om       info: modeldef_size[" << sizeOf(om::kModelDef) << " B], weight_data_size[" << sizeOf(om::kWeightsData)
     << " B], tbe_kernels_size[" << sizeOf(om::kKernels) << " B], cust_aicpu_kernel_store_size[0 B], task_info_size["
     << sizeOf(om::kTaskInfo) << " B].\n";
  if (md.contains("dynamic")) {
    const json& d = md["dynamic"];
    std::string gears, shapes;
    for (auto& g : d.value("gears", json::array()))
      gears += (gears.empty() ? "" : ";") + joinInts(g.get<std::vector<int64_t>>());
    for (auto& in : d.value("input_shape", json::array()))
      shapes += (shapes.empty() ? "" : ";") + in.value("name", "") + ":" +
                joinInts(in.value("shape", json::array()).get<std::vector<int64_t>>());
    if (d.value("kind", "") == "range") {  // "x:[1~16,3,16,16]": the shapes a range build accepts
      std::string ranges;
      for (auto& r : d.value("ranges", json::array())) {
        auto lo = r.value("min", std::vector<int64_t>()), hi = r.value("max", std::vector<int64_t>());
        std::string dims;
        for (size_t k = 0; k < lo.size() && k < hi.size(); ++k)
          dims += (k ? "," : "") + std::to_string(lo[k]) + (lo[k] == hi[k] ? "" : "~" + std::to_string(hi[k]));
        ranges += (ranges.empty() ? "" : ";") + r.value("name", "") + ":[" + dims + "]";
      }
      os << "dynamic  info: input_shape_range[" << ranges << "], shapes[" << d.value("gears", json::array()).size()
         << "], input_shape[" << shapes << "].\n";
    } else {
      os << "dynamic  info: " << d.value("option", "") << "[" << gears << "], input_shape[" << shapes << "].\n";
    }
  }
  os << "============ Display Model Info end   ============\n";
  return os.str();
}

std::string precisionSummaryTable(const Graph& g) {
  std::ostringstream os;
  os << "precision decisions:\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-32s %-20s %-9s %-9s %-16s %s\n", "node", "type", "in", "out", "impl_mode",
                "reason");
  os << line;
  for (auto& n : g.nodes()) {
    if (!n->hasAttr("_precision_reason")) continue;
    std::snprintf(line, sizeof line, "  %-32s %-20s %-9s %-9s %-16s %s\n", n->name.c_str(), n->type.c_str(),
                  n->attrString("_dtype_in", "-").c_str(), n->attrString("_dtype_out", "-").c_str(),
                  n->attrString("_impl_mode", "-").c_str(), n->attrString("_precision_reason", "").c_str());
    os << line;
  }
  std::string s = os.str();
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace atc
