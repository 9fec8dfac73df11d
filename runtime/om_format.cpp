#include "runtime/om_format.h"
#include "support/file_io.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace atc {
namespace om {
namespace {

// Header field offsets (bytes).
enum : size_t {
  kOffMagic = 0, kOffHeaderSize = 4, kOffVersion = 8, kOffFlags = 12, kOffChecksum = 16,
  kOffTotal = 24, kOffModelType = 32, kOffOpCount = 36, kOffName = 40, kOffSoc = 72,
  kOffAtcVersion = 104, kOffMemSize = 120, kOffWeightSize = 128, kOffTableOffset = 136,
};
constexpr size_t kEntrySize = 20;  // u32 type, u64 offset, u64 size (packed)

template <class T> void put(uint8_t* b, size_t off, T v) { std::memcpy(b + off, &v, sizeof(T)); }
template <class T> T get(const uint8_t* b, size_t off) {
  T v;
  std::memcpy(&v, b + off, sizeof(T));
  return v;
}
void putStr(uint8_t* b, size_t off, const std::string& s, size_t cap) {
  std::memcpy(b + off, s.data(), std::min(s.size(), cap - 1));
}
std::string getStr(const uint8_t* b, size_t off, size_t cap) {
  size_t n = 0;
  while (n < cap && b[off + n]) ++n;
  return std::string((const char*)b + off, n);
}
size_t align64(size_t x) { return (x + 63) & ~size_t(63); }

}  // namespace

const char* partitionName(uint32_t type) {
  switch (type) {
    case kModelDef: return "MODEL_DEF";
    case kWeightsData: return "WEIGHTS_DATA";
    case kTaskInfo: return "TASK_INFO";
    case kKernels: return "KERNELS";
    case kSignature: return "SIGNATURE";
    default: return "UNKNOWN";
  }
}

uint64_t fnv1a64(const uint8_t* p, size_t n, uint64_t h) {
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t omChecksum64(const uint8_t* p, size_t n) {
  // Four independent FNV-style lanes over little-endian 64-bit words (32 bytes per step), so
  // the multiply chains overlap: a 47 MB model checks in a few ms instead of ~60 ms for
  // byte-wise FNV-1a. The lanes and the tail are folded with FNV-1a at the end.
  const uint64_t kPrime = 0x100000001b3ull;
  uint64_t lane[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0x9ce484222325cbf2ull,
                      0x2325cbf29ce48422ull};
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 4; ++k) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * k, 8);
      lane[k] = (lane[k] ^ w) * kPrime;
    }
  }
  uint64_t h = fnv1a64(p + i, n - i);
  for (int k = 0; k < 4; ++k) h = fnv1a64(reinterpret_cast<const uint8_t*>(&lane[k]), 8, h);
  return fnv1a64(reinterpret_cast<const uint8_t*>(&n), sizeof(n), h);
}

uint64_t omFileChecksum(const uint8_t* file, size_t size) {
  uint8_t head[kHeaderSize];
  std::memcpy(head, file, kHeaderSize);
  std::memset(head + kOffChecksum, 0, 8);
  return fnv1a64(head, kHeaderSize, omChecksum64(file + kHeaderSize, size - kHeaderSize));
}

std::vector<uint8_t> writeOm(Header h, const std::vector<std::pair<uint32_t, std::vector<uint8_t>>>& parts) {
  std::vector<PartSource> src;
  for (auto& p : parts) {
    const std::vector<uint8_t>* bytes = &p.second;
    src.push_back({p.first, bytes->size(), [bytes](uint8_t* d) {
                     if (!bytes->empty()) std::memcpy(d, bytes->data(), bytes->size());
                   }});
  }
  return writeOm(std::move(h), src);
}

PartSource reservedSignature(Header& h) {
  h.flags |= 1;  // kFlagSigned (runtime/om_signature.h)
  return {kSignature, 128, [](uint8_t* d) { std::memcpy(d, "ATCSIG01", 8); }};
}

std::vector<uint8_t> writeOm(Header h, const std::vector<PartSource>& parts) {
  std::vector<uint8_t> b;
  writeOm(std::move(h), parts, [&b](size_t n) {
    b.assign(n, 0);
    return b.data();
  });
  return b;
}

size_t writeOm(Header h, const std::vector<PartSource>& parts, const std::function<uint8_t*(size_t)>& alloc) {
  size_t tableEnd = kHeaderSize + 4 + kEntrySize * parts.size();
  std::vector<Partition> table;
  size_t off = align64(tableEnd);
  for (auto& p : parts) {
    table.push_back({p.type, off, (size_t)p.size});
    off = align64(off + p.size);
  }
  size_t total = parts.empty() ? tableEnd : table.back().offset + table.back().size;
  uint8_t* b = alloc(total);
  put<uint32_t>(b, kHeaderSize, (uint32_t)parts.size());
  for (size_t i = 0; i < table.size(); ++i) {
    size_t e = kHeaderSize + 4 + i * kEntrySize;
    put<uint32_t>(b, e, table[i].type);
    put<uint64_t>(b, e + 4, table[i].offset);
    put<uint64_t>(b, e + 12, table[i].size);
    if (parts[i].size && parts[i].fill) parts[i].fill(b + table[i].offset);
  }
  put<uint32_t>(b, kOffMagic, kMagic);
  put<uint32_t>(b, kOffHeaderSize, kHeaderSize);
  put<uint32_t>(b, kOffVersion, h.version);
  put<uint32_t>(b, kOffFlags, h.flags);
  put<uint64_t>(b, kOffTotal, total);
  put<uint32_t>(b, kOffModelType, h.modelType);
  put<uint32_t>(b, kOffOpCount, h.opCount);
  putStr(b, kOffName, h.name, 32);
  putStr(b, kOffSoc, h.socVersion, 32);
  putStr(b, kOffAtcVersion, h.atcVersion, 16);
  put<uint64_t>(b, kOffMemSize, h.memorySize);
  put<uint64_t>(b, kOffWeightSize, h.weightSize);
  put<uint64_t>(b, kOffTableOffset, kHeaderSize);
  setChecksum(b, total);
  return total;
}

void setChecksum(std::vector<uint8_t>& b) { setChecksum(b.data(), b.size()); }

void setChecksum(uint8_t* b, size_t size) {
  if (size < kHeaderSize) throw OmError("setChecksum: not an .om");
  put<uint64_t>(b, kOffChecksum, 0);
  put<uint64_t>(b, kOffChecksum, omFileChecksum(b, size));
}


OmView parseOm(const uint8_t* d, size_t size, const std::string& what) {
  auto fail = [&](const std::string& m) -> OmError { return OmError(what + " is not a valid .om file: " + m); };
  if (size < kHeaderSize) throw fail("it is " + std::to_string(size) + " bytes, shorter than the 256-byte header (truncated?)");
  OmView v;
  v.data = d;
  v.size = size;
  Header& h = v.header;
  h.magic = get<uint32_t>(d, kOffMagic);
  if (h.magic != kMagic) throw fail("bad magic (expected \"IMOD\")");
  h.headerSize = get<uint32_t>(d, kOffHeaderSize);
  if (h.headerSize != kHeaderSize) throw fail("unexpected header size " + std::to_string(h.headerSize));
  h.version = get<uint32_t>(d, kOffVersion);
  if (h.version != kFormatVersion)
    throw fail("format version " + std::to_string(h.version) + " is not supported (this runtime reads version " +
               std::to_string(kFormatVersion) + "); rebuild the model with a matching atc");
  h.flags = get<uint32_t>(d, kOffFlags);
  h.checksum = get<uint64_t>(d, kOffChecksum);
  h.totalLength = get<uint64_t>(d, kOffTotal);
  if (h.totalLength != size)
    throw fail("the header says " + std::to_string(h.totalLength) + " bytes but the file has " + std::to_string(size) +
               (size < h.totalLength ? " (truncated)" : " (trailing data)"));
  if (omFileChecksum(d, size) != h.checksum) throw fail("checksum mismatch (the file is corrupted)");
  h.modelType = get<uint32_t>(d, kOffModelType);
  h.opCount = get<uint32_t>(d, kOffOpCount);
  h.name = getStr(d, kOffName, 32);
  h.socVersion = getStr(d, kOffSoc, 32);
  h.atcVersion = getStr(d, kOffAtcVersion, 16);
  h.memorySize = get<uint64_t>(d, kOffMemSize);
  h.weightSize = get<uint64_t>(d, kOffWeightSize);
  uint64_t tableOff = get<uint64_t>(d, kOffTableOffset);
  if (tableOff < kHeaderSize || tableOff > size || size - tableOff < 4) throw fail("bad partition table offset");
  uint32_t num = get<uint32_t>(d, tableOff);
  if (num > 64 || (size - tableOff - 4) / kEntrySize < num) throw fail("bad partition count " + std::to_string(num));
  for (uint32_t i = 0; i < num; ++i) {
    size_t e = tableOff + 4 + i * kEntrySize;
    Partition p{get<uint32_t>(d, e), get<uint64_t>(d, e + 4), get<uint64_t>(d, e + 12)};
    if (p.offset > size || p.size > size - p.offset)
      throw fail(std::string("partition ") + partitionName(p.type) + " lies outside the file");
    v.partitions.push_back(p);
  }
  return v;
}

bool OmView::has(uint32_t type) const {
  for (auto& p : partitions)
    if (p.type == type) return true;
  return false;
}

const uint8_t* OmView::part(uint32_t type, uint64_t* sizeOut) const {
  for (auto& p : partitions)
    if (p.type == type) {
      *sizeOut = p.size;
      return data + p.offset;
    }
  throw OmError(std::string("the model has no ") + partitionName(type) + " partition");
}

std::string OmView::partString(uint32_t type) const {
  uint64_t n = 0;
  const uint8_t* p = part(type, &n);
  if (!(header.flags & kFlagZstdJson) || (type != kModelDef && type != kTaskInfo))
    return std::string((const char*)p, (size_t)n);
  std::string what = std::string("the ") + partitionName(type) + " partition";
  unsigned long long full = ZSTD_getFrameContentSize(p, (size_t)n);
  if (full == ZSTD_CONTENTSIZE_ERROR || full == ZSTD_CONTENTSIZE_UNKNOWN) throw OmError(what + " is not a valid zstd frame");
  // The claimed size is allocated before anything is unpacked: bound it by the frame's own size
  // (JSON of real models packs 20-500x) so that a small crafted frame cannot claim gigabytes.
  const uint64_t cap = std::min<uint64_t>(kMaxJsonPartBytes, std::max<uint64_t>(64ull << 20, (uint64_t)n * 1024));
  if (full > cap) throw OmError(what + " claims " + std::to_string(full) + " bytes unpacked from " + std::to_string(n) + " (too large)");
  std::string out((size_t)full, '\0');
  size_t got = ZSTD_decompress(out.data(), out.size(), p, (size_t)n);
  if (ZSTD_isError(got) || got != full) throw OmError(what + " does not unpack (corrupt zstd frame)");
  return out;
}

std::vector<uint8_t> packJson(const std::string& text) {
  std::vector<uint8_t> out(ZSTD_compressBound(text.size()));
  size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
  if (ZSTD_isError(n)) throw OmError(std::string("zstd: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

std::vector<uint8_t> readFileBytes(const std::string& path) {
  std::string s;  // regular files only, bounded: a FIFO or /dev/zero is refused, not read forever
  std::string err = readFileBounded(path, kMaxRuntimeFileBytes, &s);
  if (!err.empty()) throw OmError("cannot read " + path + ": " + err);
  return std::vector<uint8_t>(s.begin(), s.end());
}

}  // namespace om
}  // namespace atc
