// libFuzzer target: the .npy reader omrun uses for --input (runtime/npy.cpp parseNpy).
// Expected refusals: atc::rt::RuntimeError; see fuzz_expected.h.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_expected.h"
#include "runtime/atc_runtime.h"
#include "runtime/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    atc::rt::NpyArray a = atc::rt::parseNpy(data, size, "fuzz.npy");
    (void)a;
  } catch (const atc::rt::RuntimeError&) {
  } catch (const std::exception& e) {
    atc::fuzz::unexpectedException(e);
  }
  return 0;
}
