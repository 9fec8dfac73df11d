// SHA-256 (FIPS 180-4): content keys and entry checksums of the kernel cache.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace atc::cache {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  void update(const std::string& s) { update(s.data(), s.size()); }
  std::array<uint8_t, 32> digest();  // finishes; the object must not be updated afterwards

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t bufLen_ = 0;
  uint64_t total_ = 0;
};

std::array<uint8_t, 32> sha256(const void* data, size_t size);
std::string toHex(const uint8_t* data, size_t size);
std::string sha256Hex(const void* data, size_t size);
inline std::string sha256Hex(const std::string& s) { return sha256Hex(s.data(), s.size()); }

}  // namespace atc::cache
