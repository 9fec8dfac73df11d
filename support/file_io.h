// Files: atomic writes (temporary + rename, so no reader ever sees a partial file) and
// bounded reads of regular files (option files, profiles), counted per path so that tests
// can check that each option file is read once per compile.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace atc {

struct AtomicWrite {
  bool fsync = false;         // flush to disk before the rename (cache entries)
  bool keepExisting = false;  // publish only if `path` does not exist yet (link, not rename)
  bool removeOnSignal = false;  // SIGINT/SIGTERM/SIGHUP remove the temporary (installSignalCleanup)
};

// Writes `size` bytes to `path` through "<path>.tmp.<pid>.<n>". Returns "" or the reason
// (the temporary is removed on failure).
std::string writeFileAtomically(const std::string& path, const void* data, size_t size, AtomicWrite how = {});
// The same for a file given as consecutive parts (written in order, never concatenated in memory).
struct FilePart {
  const void* data;
  size_t size;
};
std::string writeFileAtomically(const std::string& path, const std::vector<FilePart>& parts, AtomicWrite how = {});
// Removes "<path>.tmp.<pid>[.<n>]" files left by writers that were killed (kill -9): those
// whose process no longer exists. Returns how many were removed.
int removeStaleTemporaries(const std::string& path);
// Installs handlers that remove the temporary of a removeOnSignal write, then re-raise.
void installSignalCleanup();

// mkdir -p: creates each missing folder of `path`. Returns "" or the reason (a part that cannot
// be created, or a path that exists and is not a folder).
std::string makeDirs(const std::string& path);

// The largest .om or .npy the runtime reads (64 GiB).
constexpr size_t kMaxRuntimeFileBytes = size_t(1) << 36;

// Reads a regular file of at most maxBytes into *out. Returns "" or the reason ("the file
// does not exist", "it is not a regular file", "it is larger than N bytes"...).
std::string readFileBounded(const std::string& path, size_t maxBytes, std::string* out);
// readFileBounded for an option file of the command line: the bytes are also remembered
// (files up to 16 MiB), so that a later phase (the whole-model cache key) uses them without
// reading the file again. The runtime's reads (.om, .npy) are not remembered.
std::string readOptionFile(const std::string& path, size_t maxBytes, std::string* out);
// How many times `path` has been read by readFileBounded / readOptionFile in this process (tests).
int fileReadCount(const std::string& path);
// The bytes the last readOptionFile of `path` returned, if remembered.
bool contentsAlreadyRead(const std::string& path, std::string* out);

}  // namespace atc
