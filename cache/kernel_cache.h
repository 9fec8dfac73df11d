// The disk kernel cache (docs/cache.md): one checksummed entry per compiled kernel instance
// under <dir>/kernel_cache/<soc_version>/<key>.kce, shared safely by concurrent atc processes.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace atc::cache {

enum class CacheMode { Enable, Disable, Force };

// Everything the code generator needs to use the cache (filled from the command line).
struct CacheSettings {
  CacheMode mode = CacheMode::Disable;
  std::string dir;                      // resolved root; entries under <dir>/kernel_cache/<soc>/
  bool bypassAll = false;               // --op_debug_level != 0, or op_debug_config without a list
  std::vector<std::string> recompile;   // op_debug_list: node names and "OpType::X"
};

// --op_compiler_cache_dir > $ASCEND_CACHE_PATH > $HOME/atc_data.
std::string resolveCacheDir(const std::string& optionValue);

// op_cache.ini values (per field: a valid op_cache.ini value > a valid environment value >
// the default; an invalid value is warned about and skipped).
struct CacheLimits {
  int64_t maxSizeMb = 500;  // -1: no aging
  int ratio = 50;           // 1..100
};
bool parseMaxCacheSize(const std::string& text, int64_t* out);
bool parseRemainRatio(const std::string& text, int* out);
// Reads <kernelCacheDir>/op_cache.ini, creating it with the defaults when missing.
CacheLimits resolveLimits(const std::string& kernelCacheDir);

// The parsed --op_debug_config file.
struct OpDebugConfig {
  std::vector<std::string> options;  // op_debug_config items
  std::vector<std::string> list;     // op_debug_list items
  bool hasList = false;
};
// Throws AtcError E10001 when the file is missing, unreadable or malformed.
OpDebugConfig parseOpDebugConfig(const std::string& path);
// True when a node (name, type) is named by an op_debug_list.
bool debugListMatches(const std::vector<std::string>& list, const std::string& name, const std::string& type);

// One target's part of the cache, opened for one build.
class KernelCache {
 public:
  // versionTag: compiler, kernel library and LLVM versions. Opening creates the folders and
  // op_cache.ini, invalidates the target's entries on a version change, and wipes them in
  // force mode. Never throws: an unusable cache gives a warning and usable() == false.
  KernelCache(const CacheSettings& s, const std::string& socVersion, const std::string& versionTag);
  bool usable() const { return usable_; }
  const std::string& targetDir() const { return targetDir_; }
  const CacheLimits& limits() const { return limits_; }

  // A valid entry: true (and its last-use time is refreshed unless aging is off). A corrupt
  // one: warning, removed, false.
  bool load(const std::string& key, std::vector<uint8_t>& out);
  // Publishes an entry atomically; a failure (unwritable, disk full) is a warning and turns
  // storing off for this build.
  void store(const std::string& key, const std::vector<uint8_t>& bytes);
  // Ages the whole kernel_cache folder when it is over max_op_cache_size (see docs/cache.md).
  void age();

  static constexpr int64_t kAgeSeconds = 30 * 60;

 private:
  std::string entryPath(const std::string& key) const;
  void checkVersion(const std::string& versionTag);
  void wipeTarget();

  bool usable_ = false;
  bool storeOff_ = false;
  std::string root_;       // <dir>/kernel_cache
  std::string targetDir_;  // <dir>/kernel_cache/<soc>
  CacheLimits limits_;
  std::mutex mu_;
};

// Removes aged entries: over maxBytes, entries (*.kce under kernelCacheDir/*/) last used more
// than minAgeSeconds before `now` go, least recently used first, until the total is at most
// maxBytes * ratio / 100. Returns the number of entries removed.
size_t ageEntries(const std::string& kernelCacheDir, int64_t maxBytes, int ratio, int64_t minAgeSeconds,
                  int64_t now);

}  // namespace atc::cache
