// Which default-domain ops changed in the opsets after the newest one atc implements in full
// (onnxfe::kMaxOpset): a model importing a newer opset is accepted when none of its nodes
// uses an op that changed after kMaxOpset, and refused node by node otherwise.
#pragma once
#include <cstdint>
#include <string>

namespace atc {
namespace onnxfe {

// The newest opset of the table (models importing a newer one are refused whole).
constexpr int64_t kNewestKnownOpset = 28;

// The first opset v in (after, upTo] that has a new version of `op` (0 when none: the op is
// unchanged between the two). Covers opsets 18 to kNewestKnownOpset. Versions that only add
// element types (Cast-24, QuantizeLinear-25...) do not count as changes.
int64_t opChangedIn(const std::string& op, int64_t after, int64_t upTo);

}  // namespace onnxfe
}  // namespace atc
