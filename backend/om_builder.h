// The backend: lowers an optimised graph (backend/lowering.h), plans its memory
// (backend/buffer_plan.h), compiles its kernels (kernels/codegen, through the kernel cache)
// and serialises the .om (see docs/om-format.md).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/backend_options.h"
#include "backend/weight_store.h"
#include "kernels/codegen/codegen.h"
#include "ir/graph.h"
#include "ir/op_registry.h"
#include "passes/compile_report.h"
#include "target/target_profile.h"

namespace atc {

// An .om of one graph, or of the gears of a dynamic model (docs/dynamic-shapes.md): one plan
// per graph over one arena (the largest gear's) and one weights blob, and one kernel library
// whose instances the gears share when their kernels and params agree.
class OmBuilder {
 public:
  OmBuilder(const BackendOptions& opts, const TargetProfile& target);
  ~OmBuilder();
  // A dynamic model: the option, the gear kind ("batch", "image_size", "dims", or "range": one
  // gear per shape of --input_shape's ranges, whose shape-dependent kernels are generic) and the
  // --input_shape with its -1 dims (recorded in TASK_INFO and MODEL_DEF); ranges: for a range
  // build, [{name, min, max}] per input (recorded as `ranges`).
  void setDynamic(const std::string& option, const std::string& kind,
                  const std::vector<std::pair<std::string, std::vector<int64_t>>>& inputShape,
                  const nlohmann::json& ranges = nullptr);
  // Lowers, plans and describes g (verified, sorted, static shapes); gearDims: the values of
  // this gear (empty for a static model). Afterwards the builder needs nothing of g: with
  // opts.releaseConstants g's values drop their weights, which the builder now holds.
  void addGraph(Graph& g, const std::vector<int64_t>& gearDims = {});
  // Compiles the kernels (through the kernel cache) and writes the .om into alloc(size).
  size_t finish(KernelCacheReport* cacheReport, const std::function<uint8_t*(size_t)>& alloc);

 private:
  BackendOptions opts_;
  TargetProfile target_;
  WeightStore weights_;
  PackCache packs_;  // a dynamic model's packed weights, shared by its graphs
  std::vector<KernelInstance> instances_;
  std::map<std::pair<std::string, std::vector<int64_t>>, std::string> instanceSym_;
  std::vector<nlohmann::json> plans_;
  nlohmann::json modelDef_, dynamic_;
  int64_t arenaSize_ = 0;
  bool range_ = false;
  std::string name_;
  uint32_t opCount_ = 0;
};

// g must be verified, topologically sorted, with static shapes everywhere. Kernel cache hits
// per node go to *cacheReport when given.
std::vector<uint8_t> buildOm(Graph& g, const BackendOptions& opts, const TargetProfile& target,
                             KernelCacheReport* cacheReport = nullptr);
// The same into memory from alloc(size), which returns size zeroed bytes (the driver's
// calloc'd image: with opts.releaseConstants the weights then exist once, not twice).
// Returns the size.
size_t buildOm(Graph& g, const BackendOptions& opts, const TargetProfile& target, KernelCacheReport* cacheReport,
               const std::function<uint8_t*(size_t)>& alloc);

}  // namespace atc
