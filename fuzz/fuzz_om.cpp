// libFuzzer target: the .om loader's checks (runtime Model::check: header, partition table,
// signature partition, execution plan JSON, buffer bounds, tensor descriptions, CPU features,
// kernel library ELF bounds) without mapping any code. The harness rewrites the length and
// checksum fields of inputs of 256 bytes or more, so mutations reach past the checksum as a
// crafted file would (an attacker can recompute a checksum). A signed input is also checked
// against a fixed public key.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz/fuzz_expected.h"
#include "runtime/atc_runtime.h"
#include "runtime/om_format.h"
#include "runtime/om_signature.h"

namespace {
const char kPub[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n"
    "-----END PUBLIC KEY-----\n";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> b(data, data + size);
  if (b.size() >= atc::om::kHeaderSize) {
    uint64_t len = b.size();
    std::memcpy(&b[24], &len, 8);  // header total length
    atc::om::setChecksum(b);
  }
  try {
    atc::rt::Model::check(b.data(), b.size(), {}, "fuzz.om");
  } catch (const atc::rt::RuntimeError&) {
  } catch (const std::exception& e) {
    atc::fuzz::unexpectedException(e);
  }
  try {
    atc::om::OmView v = atc::om::parseOm(b.data(), b.size(), "fuzz.om");
    if (!atc::om::omSigner(v).empty()) atc::om::verifyOmSignature(v, kPub, "fuzz key");
  } catch (const atc::om::OmError&) {
  } catch (const std::exception& e) {
    atc::fuzz::unexpectedException(e);
  }
  return 0;
}
