#include "runtime/step_descs.h"

#include <string>

#include "support/checked_math.h"

namespace atc {
namespace rt {

StepInfo describeNames(const nlohmann::json& d) {
  StepInfo info;
  info.node = d.value("node", std::string());
  info.type = d.value("type", std::string());
  info.kernel = d.value("kernel", std::string());
  if (d.contains("fused_from")) info.fusedFrom = d.at("fused_from").get<std::vector<std::string>>();
  for (const char* role : {"in", "out"}) {
    if (!d.contains(role)) break;
    for (auto& t : d.at(role)) {
      StepTensor st;
      if (!t.is_null()) {
        st.desc.name = t.at("name").get<std::string>();
        st.desc.dtype = t.at("dtype").get<std::string>();
        st.desc.dtypeCode = t.at("dtype_code").get<int32_t>();
        st.desc.shapeFromData = t.value("shape_from_data", false);
      }
      (role[0] == 'i' ? info.inputs : info.outputs).push_back(st);
    }
  }
  return info;
}

std::vector<int64_t> packShapes(const nlohmann::json& s) {
  std::vector<int64_t> packed;
  for (const char* key : {"in_shapes", "out_shapes"})
    for (auto& shape : s.at(key)) {
      if (shape.is_null()) {
        packed.push_back(-1);
        continue;
      }
      packed.push_back((int64_t)shape.size());
      for (auto& d : shape) packed.push_back(d.get<int64_t>());
    }
  return packed;
}

void unpackShapes(const std::vector<int64_t>& packed, StepInfo& info) {
  size_t at = 0;
  for (auto* list : {&info.inputs, &info.outputs})
    for (StepTensor& t : *list) {
      const int64_t rank = packed.at(at++);
      if (rank < 0) continue;
      t.desc.shape.assign(packed.begin() + (std::ptrdiff_t)at, packed.begin() + (std::ptrdiff_t)(at + (size_t)rank));
      at += (size_t)rank;
    }
}

void attachTensorData(StepInfo& info, const std::vector<int64_t>& argIds, const std::vector<PlanBuffer>& bufs,
                      const uint8_t* arena, const uint8_t* weights) {
  size_t a = 0;
  for (auto* list : {&info.inputs, &info.outputs})
    for (StepTensor& t : *list) {
      const size_t arg = a++;
      if (t.desc.name.empty() && t.desc.dtype.empty()) continue;  // absent
      int64_t bytes = -1;
      const size_t es = dtypeSizeByName(t.desc.dtype);
      if (t.desc.shapeFromData || !es || !shapeSize(t.desc.shape, es, nullptr, &bytes) || arg >= argIds.size() ||
          argIds[arg] < 0)
        continue;
      const PlanBuffer& b = bufs[(size_t)argIds[arg]];
      if (b.run || (uint64_t)bytes > b.size) continue;
      t.desc.bytes = (uint64_t)bytes;
      t.data = (b.weights ? weights : arena) + b.offset;
    }
}

}  // namespace rt
}  // namespace atc
