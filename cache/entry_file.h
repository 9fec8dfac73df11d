// Checksummed cache entry files, published atomically (write a private temporary, fsync,
// rename), so that a reader never sees a partial entry.
//
// Layout: "ATCCE001" | u64 payload size (LE) | 32-byte SHA-256 of the payload | payload.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "support/file_io.h"

namespace atc::cache {

enum class ReadResult { Ok, Missing, Corrupt };

// Reads and verifies an entry into one buffer (the payload is moved down over the header, no
// second copy). Corrupt: not a regular file (a FIFO is never opened for blocking reads), bad
// magic, size or checksum (truncated files too).
ReadResult readEntry(const std::string& path, std::vector<uint8_t>& payload);

// Writes an entry atomically. Returns "" on success, else the reason (the temporary is removed).
std::string writeEntry(const std::string& path, const std::vector<uint8_t>& payload);
// The same for a payload given in parts (a key line and an .om image): written in place, with
// no concatenated copy.
struct EntryPart {
  const void* data;
  size_t size;
};
std::string writeEntry(const std::string& path, const std::vector<EntryPart>& payload);

// Warnings of the cache ("[WARNING] ..." on stderr, each distinct text once per process).
void warnOnce(const std::string& text);
// Info lines go through this sink when set (atc's --log=info); default: dropped.
void setInfoSink(void (*sink)(const std::string&));
void info(const std::string& text);

// mkdir -p (support/file_io.h); returns "" or the reason.
using atc::makeDirs;

}  // namespace atc::cache
