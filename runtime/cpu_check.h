// Checks that the host CPU has the instruction-set features a model was compiled for, so a
// model built for x86-64-v4 fails with a clear message on an AVX2-only CPU instead of SIGILL.
#pragma once
#include <string>
#include <vector>

namespace atc {
namespace rt {

// LLVM feature names ("avx512f", "fma"...) this runtime can check; others are ignored.
bool cpuFeatureCheckable(const std::string& feature);
// The features of `required` the host lacks (empty = all present).
std::vector<std::string> missingCpuFeatures(const std::vector<std::string>& required);

}  // namespace rt
}  // namespace atc
