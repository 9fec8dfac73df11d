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
// Element types numpy lacks travel in .npy files as the integers of their storage (ir/dtype.h,
// docs/debugging.md): bfloat16 as uint16 bit patterns, float8 / float4 as uint8 bit patterns,
// int4 / int2 as int8 values, uint4 / uint2 as uint8 values. Others: the type itself.
std::string npyStorageDtype(const std::string& dtype);
// The value of one element of such a type from its storage bytes at p (bfloat16, float8 and
// float4 bit patterns decoded; int4 / int2 / uint4 / uint2 as they are); NaN for other types.
double npyStorageValue(const std::string& dtype, const uint8_t* p);
// Empty, or why the storage bytes of a 4- or 2-bit type hold a value outside the type.
std::string checkNpyStorageValues(const std::string& dtype, const uint8_t* data, size_t bytes);

}  // namespace rt
}  // namespace atc
