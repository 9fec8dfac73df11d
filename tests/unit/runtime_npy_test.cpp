// .npy reader/writer: round trips for every numpy dtype, 0-d and zero-size arrays, errors.
#include <unistd.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "runtime/atc_runtime.h"
#include "runtime/npy.h"

using namespace atc::rt;

TEST(RuntimeNpy, RoundTrips) {
  std::string path = testing::TempDir() + std::to_string(::getpid()) + "_npy_rt.npy";
  for (const char* dt : {"float32", "float16", "float64", "int64", "int32", "int16", "int8", "uint8", "uint16",
                         "uint32", "uint64", "bool"}) {
    for (std::vector<int64_t> shape : {std::vector<int64_t>{}, {0}, {3}, {2, 0, 4}, {2, 3}}) {
      int64_t n = 1;
      for (auto d : shape) n *= d;
      std::vector<uint8_t> data((size_t)n * dtypeSizeByName(dt));
      for (size_t i = 0; i < data.size(); ++i) data[i] = (uint8_t)(i * 13 + 1);
      writeNpy(path, dt, shape, data.data(), data.size());
      // v1.0 header padded to a multiple of 64 bytes
      std::ifstream f(path, std::ios::binary);
      std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      uint16_t hl = (uint8_t)s[8] | ((uint8_t)s[9] << 8);
      EXPECT_EQ((10 + hl) % 64, 0);
      NpyArray a = readNpy(path);
      EXPECT_EQ(a.dtype, dt);
      EXPECT_EQ(a.shape, shape);
      EXPECT_EQ(a.data, data);
    }
  }
  std::remove(path.c_str());
}

TEST(RuntimeNpy, Errors) {
  std::string path = testing::TempDir() + std::to_string(::getpid()) + "_npy_bad.npy";
  std::ofstream(path) << "not numpy";
  EXPECT_THROW(readNpy(path), RuntimeError);
  EXPECT_THROW(readNpy(path + ".missing"), RuntimeError);
  float x[4] = {1, 2, 3, 4};
  writeNpy(path, "float32", {4}, x, sizeof x);
  std::ifstream f(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::ofstream(path, std::ios::binary) << s.substr(0, s.size() - 3);  // truncated data
  EXPECT_THROW(readNpy(path), RuntimeError);
  std::remove(path.c_str());
}

// Found by fuzz_npy: a header ending right after a key's colon threw std::out_of_range from
// std::string::substr (omrun: an internal error) instead of a RuntimeError naming the file.
TEST(RuntimeNpy, HeaderEndingAfterAColonIsAnError) {
  for (std::string h : {"{'descr': '<f4', 'fortran_order': False, 'shape':", "{'descr':   ",
                        "{'descr': '<f4', 'fortran_order':"}) {
    std::string s = std::string("\x93NUMPY\x01\x00", 8);
    s += (char)h.size();
    s += '\0';
    s += h;
    try {
      parseNpy(reinterpret_cast<const uint8_t*>(s.data()), s.size(), "x.npy");
      ADD_FAILURE() << "accepted: " << h;
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find("x.npy: bad .npy"), std::string::npos) << e.what();
    }
  }
}
