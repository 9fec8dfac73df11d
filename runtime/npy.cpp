#include "runtime/npy.h"
#include "support/checked_math.h"
#include "support/file_io.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>

#include "kernels/lib/cast_lp.h"
#include "runtime/atc_runtime.h"
#include "support/half.h"

namespace atc {
namespace rt {
namespace {

const std::pair<const char*, const char*> kDescr[] = {
    {"float32", "<f4"}, {"float16", "<f2"}, {"float64", "<f8"}, {"int64", "<i8"}, {"int32", "<i4"},
    {"int16", "<i2"},   {"int8", "|i1"},    {"uint8", "|u1"},   {"uint16", "<u2"}, {"uint32", "<u4"},
    {"uint64", "<u8"},  {"bool", "|b1"}};

std::string dtypeFromDescr(std::string d) {
  if (d.size() == 3 && d[0] == '=') d[0] = '<';
  if (d.size() == 3 && (d[1] == 'i' || d[1] == 'u' || d[1] == 'b') && d[2] == '1') d[0] = '|';
  for (auto& p : kDescr)
    if (d == p.second) return p.first;
  return "";
}

}  // namespace

std::string npyStorageDtype(const std::string& dtype) {
  if (dtype == "bfloat16") return "uint16";
  if (dtype == "int4" || dtype == "int2") return "int8";
  if (dtype == "uint4" || dtype == "uint2" || dtype.compare(0, 6, "float8") == 0 || dtype == "float4_e2m1fn")
    return "uint8";
  return dtype;
}

std::string npyDescr(const std::string& dtype) {
  const std::string st = npyStorageDtype(dtype);
  for (auto& p : kDescr)
    if (st == p.first) return p.second;
  return "";
}

double npyStorageValue(const std::string& dtype, const uint8_t* p) {
  if (dtype == "bfloat16") {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return bf16ToFloat(h);
  }
  if (dtype == "int4" || dtype == "int2") return (int8_t)*p;
  if (dtype == "uint4" || dtype == "uint2") return *p;
  static const std::pair<const char*, int64_t> kFloats[] = {
      {"float8_e4m3fn", ATCK_F8E4M3FN}, {"float8_e4m3fnuz", ATCK_F8E4M3FNUZ}, {"float8_e5m2", ATCK_F8E5M2},
      {"float8_e5m2fnuz", ATCK_F8E5M2FNUZ}, {"float8_e8m0fnu", ATCK_F8E8M0}, {"float4_e2m1fn", ATCK_F4E2M1}};
  for (auto& f : kFloats)
    if (dtype == f.first) return atck_lp_decode(f.second, *p);
  return NAN;
}

std::string checkNpyStorageValues(const std::string& dtype, const uint8_t* data, size_t bytes) {
  int lo = 0, hi = 255;
  if (dtype == "int4") lo = -8, hi = 7;
  else if (dtype == "uint4") hi = 15;
  else if (dtype == "int2") lo = -2, hi = 1;
  else if (dtype == "uint2") hi = 3;
  else if (dtype == "float4_e2m1fn") hi = 15;
  else return "";
  for (size_t i = 0; i < bytes; ++i) {
    const int v = lo < 0 ? (int)(int8_t)data[i] : (int)data[i];
    if (v < lo || v > hi)
      return "element " + std::to_string(i) + " is " + std::to_string(v) + ", outside " + dtype + "'s [" +
             std::to_string(lo) + ", " + std::to_string(hi) + "]";
  }
  return "";
}

NpyArray readNpy(const std::string& path) {
  std::string s;  // regular files only, bounded: a FIFO or /dev/zero is refused, not read forever
  std::string err = readFileBounded(path, kMaxRuntimeFileBytes, &s);
  if (!err.empty()) throw RuntimeError(path + ": cannot open the file: " + err);
  return parseNpy(reinterpret_cast<const uint8_t*>(s.data()), s.size(), path);
}

NpyArray parseNpy(const uint8_t* data, size_t size, const std::string& what) {
  auto fail = [&](const std::string& m) { return RuntimeError(what + ": " + m); };
  const std::string_view s(reinterpret_cast<const char*>(data), size);
  if (s.size() < 10 || s.compare(0, 6, "\x93NUMPY") != 0) throw fail("not a .npy file");
  int major = (uint8_t)s[6];
  size_t hlen, hoff;
  if (major == 1) {
    hlen = (uint8_t)s[8] | ((size_t)(uint8_t)s[9] << 8);
    hoff = 10;
  } else if (major == 2 || major == 3) {
    if (s.size() < 12) throw fail("truncated .npy header");
    uint32_t n;
    std::memcpy(&n, &s[8], 4);
    hlen = n;
    hoff = 12;
  } else {
    throw fail("unsupported .npy version " + std::to_string(major));
  }
  if (s.size() < hoff + hlen) throw fail("truncated .npy header");
  const std::string h(s.substr(hoff, hlen));
  auto field = [&](const std::string& key) -> std::string {
    size_t k = h.find("'" + key + "'");
    if (k == std::string::npos) throw fail("bad .npy header (no " + key + ")");
    size_t c = h.find(':', k);
    if (c == std::string::npos) throw fail("bad .npy header");
    size_t b = h.find_first_not_of(' ', c + 1);
    return b == std::string::npos ? std::string() : h.substr(b);  // "'shape':" ends the header
  };
  NpyArray a;
  std::string d = field("descr");
  if (d.empty() || d[0] != '\'') throw fail("bad .npy descr");
  const size_t dq = d.find('\'', 1);
  if (dq == std::string::npos) throw fail("bad .npy descr (unclosed quote)");
  std::string descr = d.substr(1, dq - 1);
  a.dtype = dtypeFromDescr(descr);
  if (a.dtype.empty()) throw fail("unsupported .npy dtype '" + descr + "' (big-endian, structured or unknown)");
  if (field("fortran_order").compare(0, 4, "True") == 0) throw fail("Fortran-order arrays are not supported");
  std::string sh = field("shape");
  if (sh.empty() || sh[0] != '(') throw fail("bad .npy shape");
  size_t close = sh.find(')');
  if (close == std::string::npos) throw fail("bad .npy shape (unclosed parenthesis)");
  std::stringstream dims(sh.substr(1, close - 1));
  std::string tok;
  int64_t numel = 1;
  while (std::getline(dims, tok, ',')) {
    size_t p = tok.find_first_not_of(" ");
    if (p == std::string::npos) continue;
    size_t e = tok.find_last_not_of(" L");
    std::string num = tok.substr(p, e + 1 - p);
    if (num.empty() || num.size() > 18 || num.find_first_not_of("0123456789") != std::string::npos)
      throw fail("bad .npy shape dimension '" + tok + "'");
    int64_t v = std::stoll(num);
    a.shape.push_back(v);
    if (!checkedMul(numel, v, &numel)) throw fail("bad .npy shape (element count overflows)");
  }
  int64_t bytes64 = 0;
  if (!checkedMul(numel, (int64_t)dtypeSizeByName(a.dtype), &bytes64) || bytes64 > kMaxTensorBytes)
    throw fail("bad .npy shape (too many bytes)");
  const size_t bytes = (size_t)bytes64;
  if (s.size() - hoff - hlen < bytes) throw fail("truncated .npy data");
  a.data.assign(s.begin() + hoff + hlen, s.begin() + hoff + hlen + bytes);
  return a;
}

void writeNpy(const std::string& path, const std::string& dtype, const std::vector<int64_t>& shape,
              const void* data, size_t bytes) {
  std::string descr = npyDescr(dtype);
  if (descr.empty()) throw RuntimeError(path + ": numpy has no dtype " + dtype);
  std::string sh = "(";
  for (size_t i = 0; i < shape.size(); ++i) sh += std::to_string(shape[i]) + (shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "");
  sh += ")";
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + sh + ", }";
  size_t total = 10 + h.size() + 1;
  h += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::ofstream f(path, std::ios::binary);
  if (!f) throw RuntimeError("cannot write " + path);
  f.write("\x93NUMPY\x01\x00", 8);
  uint16_t hl = (uint16_t)h.size();
  char hb[2] = {(char)(hl & 0xff), (char)(hl >> 8)};
  f.write(hb, 2);
  f << h;
  if (bytes) f.write((const char*)data, (std::streamsize)bytes);
  if (!f) throw RuntimeError("cannot write " + path);
}

}  // namespace rt
}  // namespace atc
