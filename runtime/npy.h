// Minimal .npy reader/writer (format 1.0 written; 1.0-3.0 read), little-endian, C order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace atc {
namespace rt {

struct NpyArray {
  std::string dtype;           // our dtype names: float32, float16, int64, ..., bool
  std::vector<int64_t> shape;  // empty = 0-d
  std::vector<uint8_t> data;
};

// Throws RuntimeError with a message naming the file on any problem.
NpyArray readNpy(const std::string& path);
// Same from the file's bytes in memory (`what` names them in messages); readNpy uses it.
NpyArray parseNpy(const uint8_t* data, size_t size, const std::string& what);
void writeNpy(const std::string& path, const std::string& dtype, const std::vector<int64_t>& shape,
              const void* data, size_t bytes);
// numpy descr ("<f4") for our dtype name; empty if numpy has no such type.
std::string npyDescr(const std::string& dtype);

}  // namespace rt
}  // namespace atc
