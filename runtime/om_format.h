// The .om container: 256-byte header, partition table, partitions (docs/om-format.md).
// Shared by the writer (backend/om_builder.cpp) and the reader (runtime, atc --mode=1/6).
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace atc {
namespace om {

constexpr uint32_t kMagic = 0x444F4D49;  // "IMOD" read as a little-endian u32
constexpr uint32_t kHeaderSize = 256;
// 4: MODEL_DEF and TASK_INFO may be zstd frames (flag kFlagZstdJson); 3: the header is
// inside the checksum (2: body only).
constexpr uint32_t kFormatVersion = 4;
constexpr uint32_t kFlagZstdJson = 2;             // header flags bit: the JSON partitions are zstd frames
// A JSON partition may not unpack to more than this, nor to more than 1024x its packed size
// (at least 64 MiB allowed).
constexpr uint64_t kMaxJsonPartBytes = 1ull << 32;

enum PartitionType : uint32_t {
  kModelDef = 0,     // JSON: graph, attributes, build info
  kWeightsData = 1,  // raw constant bytes (64-byte aligned offsets)
  kTaskInfo = 2,     // JSON: execution plan
  kKernels = 3,      // ELF shared object with the kernel entries
  kSignature = 4,    // Ed25519 signature of the rest (runtime/om_signature.h), last when present
};
const char* partitionName(uint32_t type);

struct Header {
  uint32_t magic = kMagic;
  uint32_t headerSize = kHeaderSize;
  uint32_t version = kFormatVersion;
  uint32_t flags = 0;
  uint64_t checksum = 0;     // omFileChecksum: the body and the header (this field as 0)
  uint64_t totalLength = 0;  // file size in bytes
  uint32_t modelType = 0;    // 0 = CPU offline model
  uint32_t opCount = 0;      // graph nodes
  std::string name;          // model name (<= 31 bytes stored)
  std::string socVersion;    // target profile name (<= 31 bytes stored)
  std::string atcVersion;    // (<= 15 bytes stored)
  uint64_t memorySize = 0;   // arena bytes needed by the plan
  uint64_t weightSize = 0;   // WEIGHTS_DATA bytes
};

struct Partition {
  uint32_t type = 0;
  uint64_t offset = 0;  // from the start of the file
  uint64_t size = 0;
};

class OmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A parsed view of an .om held in memory (data must outlive it).
struct OmView {
  Header header;
  std::vector<Partition> partitions;
  const uint8_t* data = nullptr;
  size_t size = 0;
  bool has(uint32_t type) const;
  // Bytes of a partition; throws OmError when missing.
  const uint8_t* part(uint32_t type, uint64_t* sizeOut) const;
  // A partition as text; MODEL_DEF and TASK_INFO unpacked when the file stores them as zstd
  // frames (throws OmError on a bad frame or one claiming more than kMaxJsonPartBytes).
  std::string partString(uint32_t type) const;
};

uint64_t fnv1a64(const uint8_t* p, size_t n, uint64_t h = 0xcbf29ce484222325ull);
// The .om checksum of a byte range: see docs/om-format.md.
uint64_t omChecksum64(const uint8_t* p, size_t n);
// The file's checksum (format version 3): omChecksum64 of everything after the header, then
// the 256 header bytes with the checksum field as zeros folded in with FNV-1a. Every header
// field (sizes, names, table offset) is covered.
uint64_t omFileChecksum(const uint8_t* file, size_t size);

// Serialises header + partitions (in the given order, each at a 64-byte aligned offset).
// Fills checksum and totalLength.
std::vector<uint8_t> writeOm(Header h, const std::vector<std::pair<uint32_t, std::vector<uint8_t>>>& parts);

// A partition written by a callback straight into the file image (atc's weights: no second
// copy of them is ever held). fill gets `size` zeroed bytes.
struct PartSource {
  uint32_t type = 0;
  uint64_t size = 0;
  std::function<void(uint8_t*)> fill;
};
std::vector<uint8_t> writeOm(Header h, const std::vector<PartSource>& parts);
// The same into memory from `alloc(size)`, which must return `size` zeroed bytes (calloc'd
// pages stay untouched until a partition is written into them). Returns the size.
size_t writeOm(Header h, const std::vector<PartSource>& parts, const std::function<uint8_t*(size_t)>& alloc);

// A SIGNATURE partition of zeros with the signed flag set: writeOm's output then takes
// signOmInPlace (runtime/om_signature.h) without being copied.
PartSource reservedSignature(Header& h);

// JSON text as a zstd frame (writers set kFlagZstdJson): graphs of 20k nodes store their
// metadata in a few hundred KB instead of megabytes.
std::vector<uint8_t> packJson(const std::string& text);

// Recomputes the header checksum of a whole file in place (after a partition changed).
void setChecksum(std::vector<uint8_t>& file);
void setChecksum(uint8_t* file, size_t size);

// Checks magic, header size, version, length, checksum and the partition table.
// `what` names the file in messages. Throws OmError with a clear message.
OmView parseOm(const uint8_t* data, size_t size, const std::string& what = "model");

// Reads a whole file; throws OmError if it cannot be read.
std::vector<uint8_t> readFileBytes(const std::string& path);

}  // namespace om
}  // namespace atc
