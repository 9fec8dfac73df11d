// Whole-model build cache (--graph_compiler_cache_dir, docs/cache.md): a build whose model
// bytes, options, target and compiler versions match an earlier one reuses its .om.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace atc::cache {

// The key: SHA-256 of the model file's bytes, the command line without the options that do not
// change the result (--output, --log, cache placement), the contents of every file named by an
// option, the resolved target and versionTag. Throws nothing; an unreadable model gives "".
std::string graphCacheKey(const std::string& modelPath, const std::string& cmdline, const std::string& targetDesc,
                          const std::string& versionTag);
// <dir>/<key>.gce
std::string graphCacheEntryPath(const std::string& dir, const std::string& key);
// An entry's payload records its key before the .om, so that an entry copied or renamed
// under another key is never served for it: graphCacheOm checks the key (false: a mismatch,
// treat as corrupt).
// Stores an entry for `key` (writeEntry with the key line and the .om as parts: no copy of
// the .om is made). Returns "" or the reason.
std::string storeGraphCacheEntry(const std::string& path, const std::string& key, const uint8_t* om, size_t size);
// The .om inside a payload read by readEntry: its offset, or false when the payload records
// another key.
bool graphCacheOmOffset(const std::string& key, const std::vector<uint8_t>& payload, size_t* offset);

}  // namespace atc::cache
