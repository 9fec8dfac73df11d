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

}  // namespace atc::cache
