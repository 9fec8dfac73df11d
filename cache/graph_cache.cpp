#include "cache/graph_cache.h"

#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cache/entry_file.h"
#include "cache/sha256.h"
#include "support/file_io.h"

namespace atc::cache {
namespace {

bool hashFile(const std::string& path, Sha256& h) {
  std::string known;  // an option file the command line has read: not read again
  if (contentsAlreadyRead(path, &known)) {
    h.update(known.data(), known.size());
    return true;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::vector<char> buf(1 << 20);
  while (f) {
    f.read(buf.data(), (std::streamsize)buf.size());
    h.update(buf.data(), (size_t)f.gcount());
  }
  return true;
}

bool ignoredOption(const std::string& tok) {
  static const char* kIgnored[] = {"--output=", "--log=", "--graph_compiler_cache_dir=", "--op_compiler_cache_dir=",
                                   "--op_compiler_cache_mode=", "--sign_key="};
  for (auto* p : kIgnored)
    if (tok.rfind(p, 0) == 0) return true;
  return false;
}

}  // namespace

std::string graphCacheKey(const std::string& modelPath, const std::string& cmdline, const std::string& targetDesc,
                          const std::string& versionTag) {
  Sha256 h;
  h.update("atc-graph/1\n" + versionTag + "\n" + targetDesc + "\nmodel=");
  if (!hashFile(modelPath, h)) return "";
  std::istringstream ss(cmdline);
  std::string tok;
  while (ss >> tok) {
    if (ignoredOption(tok)) continue;
    h.update("\narg=" + tok);
    size_t eq = tok.find('=');
    if (tok.rfind("--", 0) == 0 && eq != std::string::npos && tok.rfind("--model=", 0) != 0) {
      std::string v = tok.substr(eq + 1);
      struct stat st;
      if (::stat(v.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        h.update("\nfile=");
        hashFile(v, h);
      }
    }
  }
  // The pass-manager debug switches of docs/passes.md change the result too.
  for (const char* env : {"ATC_DISABLE_PASSES", "ATC_STOP_AFTER_PASSES", "ATC_VERIFY_EACH"}) {
    const char* v = std::getenv(env);
    h.update(std::string("\nenv ") + env + "=" + (v ? v : "<unset>"));
  }
  auto d = h.digest();
  return toHex(d.data(), d.size());
}

std::string graphCacheEntryPath(const std::string& dir, const std::string& key) {
  return dir + "/" + key + ".gce";
}

namespace {
const std::string kEntryTag = "atc-graph-entry/1 key=";
}

std::string storeGraphCacheEntry(const std::string& path, const std::string& key, const uint8_t* om, size_t size) {
  std::string head = kEntryTag + key + "\n";
  return writeEntry(path, std::vector<EntryPart>{{head.data(), head.size()}, {om, size}});
}

bool graphCacheOmOffset(const std::string& key, const std::vector<uint8_t>& payload, size_t* offset) {
  std::string head = kEntryTag + key + "\n";
  if (payload.size() < head.size() || std::memcmp(payload.data(), head.data(), head.size()) != 0) return false;
  *offset = head.size();
  return true;
}

}  // namespace atc::cache
