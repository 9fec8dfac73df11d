#include "cache/kernel_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "cache/entry_file.h"
#include "support/file_io.h"
#include "support/strings.h"
#include "support/diagnostics.h"

namespace atc::cache {
namespace {


bool endsWith(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

std::vector<std::string> readLines(const std::string& path, bool* exists) {
  std::ifstream f(path);
  *exists = (bool)f;
  std::vector<std::string> lines;
  std::string l;
  while (std::getline(f, l)) lines.push_back(l);
  return lines;
}

// The value of key in [section], or nullptr.
bool iniGet(const std::vector<std::string>& lines, const std::string& section, const std::string& key,
            std::string* out) {
  std::string cur;
  for (auto& raw : lines) {
    std::string l = trim(raw);
    if (l.empty() || l[0] == '#' || l[0] == ';') continue;
    if (l.front() == '[' && l.back() == ']') {
      cur = trim(l.substr(1, l.size() - 2));
      continue;
    }
    size_t eq = l.find('=');
    if (eq == std::string::npos || cur != section) continue;
    if (trim(l.substr(0, eq)) == key) {
      *out = trim(l.substr(eq + 1));
      return true;
    }
  }
  return false;
}

// Sets key in [section] (appending the section when missing).
void iniSet(std::vector<std::string>& lines, const std::string& section, const std::string& key,
            const std::string& value) {
  std::string cur;
  int sectionEnd = -1;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string l = trim(lines[i]);
    if (!l.empty() && l.front() == '[' && l.back() == ']') {
      cur = trim(l.substr(1, l.size() - 2));
      if (cur == section) sectionEnd = (int)i + 1;
      continue;
    }
    if (cur != section) continue;
    if (!l.empty() && l[0] != '#') sectionEnd = (int)i + 1;
    size_t eq = l.find('=');
    if (eq != std::string::npos && trim(l.substr(0, eq)) == key) {
      lines[i] = key + "=" + value;
      return;
    }
  }
  if (sectionEnd < 0) {
    lines.push_back("[" + section + "]");
    lines.push_back(key + "=" + value);
  } else {
    lines.insert(lines.begin() + sectionEnd, key + "=" + value);
  }
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string s;
  for (auto& l : lines) s += l + "\n";
  return s;
}

// Atomic replace (tmp + rename, or link when onlyIfAbsent); "" or the reason.
std::string writeTextAtomically(const std::string& path, const std::string& text, bool onlyIfAbsent) {
  AtomicWrite how;
  how.fsync = true;
  how.keepExisting = onlyIfAbsent;
  return writeFileAtomically(path, text.data(), text.size(), how);
}

const char* kDefaultIni =
    "[op_compiler_cache]\n"
    "# Size limit of the kernel_cache folder in MB (-1: no aging).\n"
    "max_op_cache_size=500\n"
    "# Percentage of max_op_cache_size kept when aging (1..100).\n"
    "remain_cache_size_ratio=50\n";

struct FileLock {
  int fd = -1;
  explicit FileLock(const std::string& path) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) ::flock(fd, LOCK_EX);
  }
  ~FileLock() {
    if (fd >= 0) ::close(fd);  // releases the lock
  }
};

}  // namespace

std::string resolveCacheDir(const std::string& optionValue) {
  if (!optionValue.empty()) return optionValue;
  const char* env = std::getenv("ASCEND_CACHE_PATH");
  if (env && *env) return env;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/atc_data";
}

bool parseMaxCacheSize(const std::string& text, int64_t* out) {
  std::string t = trim(text);
  if (t == "-1") return *out = -1, true;
  if (t.empty() || t.size() > 12) return false;
  for (char c : t)
    if (!std::isdigit((unsigned char)c)) return false;
  int64_t v = std::stoll(t);
  if (v <= 0) return false;
  *out = v;
  return true;
}

bool parseRemainRatio(const std::string& text, int* out) {
  std::string t = trim(text);
  if (t.empty() || t.size() > 3) return false;
  for (char c : t)
    if (!std::isdigit((unsigned char)c)) return false;
  int v = std::stoi(t);
  if (v < 1 || v > 100) return false;
  *out = v;
  return true;
}

CacheLimits resolveLimits(const std::string& kernelCacheDir) {
  std::string ini = kernelCacheDir + "/op_cache.ini";
  bool exists = false;
  std::vector<std::string> lines = readLines(ini, &exists);
  if (!exists) {
    std::string err = writeTextAtomically(ini, kDefaultIni, true);
    if (!err.empty()) warnOnce("cannot create " + ini + " (" + err + "); using the default cache limits");
    lines = readLines(ini, &exists);
  }
  CacheLimits lim;
  std::string v;
  bool sizeSet = false, ratioSet = false;
  if (iniGet(lines, "op_compiler_cache", "max_op_cache_size", &v)) {
    if (parseMaxCacheSize(v, &lim.maxSizeMb)) sizeSet = true;
    else warnOnce("invalid max_op_cache_size [" + v + "] in " + ini + " (an integer > 0 in MB, or -1); ignored");
  }
  if (iniGet(lines, "op_compiler_cache", "remain_cache_size_ratio", &v)) {
    if (parseRemainRatio(v, &lim.ratio)) ratioSet = true;
    else warnOnce("invalid remain_cache_size_ratio [" + v + "] in " + ini + " (an integer 1..100); ignored");
  }
  const char* e = std::getenv("ASCEND_MAX_OP_CACHE_SIZE");
  if (!sizeSet && e && *e) {
    if (!parseMaxCacheSize(e, &lim.maxSizeMb)) {
      warnOnce(std::string("invalid ASCEND_MAX_OP_CACHE_SIZE [") + e + "]; using the default 500 MB");
      lim.maxSizeMb = 500;
    }
  }
  e = std::getenv("ASCEND_REMAIN_CACHE_SIZE_RATIO");
  if (!ratioSet && e && *e) {
    if (!parseRemainRatio(e, &lim.ratio)) {
      warnOnce(std::string("invalid ASCEND_REMAIN_CACHE_SIZE_RATIO [") + e + "]; using the default 50");
      lim.ratio = 50;
    }
  }
  return lim;
}

OpDebugConfig parseOpDebugConfig(const std::string& path) {
  auto bad = [&](const std::string& reason) -> AtcError {
    return invalidParamError("op_debug_config", path, reason,
                             "Give a .cfg file with a line op_debug_config = oom,ccec_g,... and optionally "
                             "op_debug_list = OpName,OpType::Type.");
  };
  std::string text;
  std::string err = readOptionFile(path, 1u << 20, &text);
  if (!err.empty()) throw bad(err + ".");
  std::istringstream f(text);
  static const std::vector<std::string> known = {"oom", "dump_cce", "dump_loc", "ccec_O0", "ccec_g", "check_flag",
                                                 "dump_bin", "sanitizer"};
  OpDebugConfig c;
  bool hasConfig = false;
  std::string line;
  int n = 0;
  while (std::getline(f, line)) {
    ++n;
    std::string l = trim(line);
    if (l.empty() || l[0] == '#') continue;
    size_t eq = l.find('=');
    if (eq == std::string::npos) throw bad("line " + std::to_string(n) + " is not key = value.");
    std::string key = trim(l.substr(0, eq)), val = trim(l.substr(eq + 1));
    std::vector<std::string> items;
    std::stringstream ss(val);
    std::string it;
    while (std::getline(ss, it, ',')) {
      it = trim(it);
      if (!it.empty()) items.push_back(it);
    }
    if (key == "op_debug_config") {
      for (auto& i : items)
        if (std::find(known.begin(), known.end(), i) == known.end()) throw bad("unknown op_debug_config item [" + i + "].");
      c.options = items;
      hasConfig = true;
    } else if (key == "op_debug_list") {
      c.list = items;
      c.hasList = true;
    } else {
      throw bad("unknown key [" + key + "] on line " + std::to_string(n) + ".");
    }
  }
  if (!hasConfig) throw bad("the file has no op_debug_config line.");
  return c;
}

bool debugListMatches(const std::vector<std::string>& list, const std::string& name, const std::string& type) {
  for (auto& item : list) {
    if (item.size() > 8) {
      std::string pre = item.substr(0, 8);
      std::transform(pre.begin(), pre.end(), pre.begin(), [](unsigned char ch) { return std::tolower(ch); });
      if (pre == "optype::") {
        if (item.substr(8) == type) return true;
        continue;
      }
    }
    if (item == name) return true;
  }
  return false;
}

KernelCache::KernelCache(const CacheSettings& s, const std::string& socVersion, const std::string& versionTag) {
  if (s.mode == CacheMode::Disable) return;
  root_ = s.dir + "/kernel_cache";
  targetDir_ = root_ + "/" + socVersion;
  std::string err = makeDirs(targetDir_);
  if (err.empty()) {
    // Really writable? (root passes access(); a read-only file system does not.)
    std::string probe = targetDir_ + "/.probe." + std::to_string((long)::getpid());
    int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) err = targetDir_ + " is not writable: " + std::strerror(errno);
    else ::close(fd), ::unlink(probe.c_str());
  }
  if (!err.empty()) {
    warnOnce("the kernel cache is not usable (" + err + "); building without the cache");
    return;
  }
  limits_ = resolveLimits(root_);
  {
    FileLock lock(root_ + "/.lock");
    checkVersion(versionTag + "|" + socVersion);
    if (s.mode == CacheMode::Force) wipeTarget();
  }
  usable_ = true;
}

void KernelCache::checkVersion(const std::string& tag) {
  std::string ini = root_ + "/op_cache.ini";
  bool exists = false;
  std::vector<std::string> lines = readLines(ini, &exists);
  std::string soc = targetDir_.substr(root_.size() + 1), cur;
  if (iniGet(lines, "cache_version", soc, &cur) && cur == tag) return;
  // New or changed versions: the target's entries were made by another compiler.
  wipeTarget();
  if (!exists) lines = readLines(ini, &exists);
  iniSet(lines, "cache_version", soc, tag);
  std::string err = writeTextAtomically(ini, joinLines(lines), false);
  if (!err.empty()) warnOnce("cannot record the cache version in " + ini + " (" + err + ")");
}

void KernelCache::wipeTarget() {
  DIR* d = ::opendir(targetDir_.c_str());
  if (!d) return;
  int64_t now = (int64_t)::time(nullptr);
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name, path = targetDir_ + "/" + name;
    if (endsWith(name, ".kce")) {
      ::unlink(path.c_str());
    } else if (name.find(".kce.tmp.") != std::string::npos) {
      struct stat st;  // another build's in-flight write: leave it unless stale
      if (::stat(path.c_str(), &st) == 0 && now - (int64_t)st.st_mtime > 3600) ::unlink(path.c_str());
    }
  }
  ::closedir(d);
}

std::string KernelCache::entryPath(const std::string& key) const { return targetDir_ + "/" + key + ".kce"; }

bool KernelCache::load(const std::string& key, std::vector<uint8_t>& out) {
  if (!usable_) return false;
  std::string p = entryPath(key);
  switch (readEntry(p, out)) {
    case ReadResult::Ok:
      if (limits_.maxSizeMb != -1) ::utimensat(AT_FDCWD, p.c_str(), nullptr, 0);  // last use
      return true;
    case ReadResult::Missing:
      return false;
    case ReadResult::Corrupt:
      warnOnce("kernel cache entry " + p + " fails its checksum; it is recompiled and replaced");
      ::unlink(p.c_str());
      return false;
  }
  return false;
}

void KernelCache::store(const std::string& key, const std::vector<uint8_t>& bytes) {
  std::lock_guard<std::mutex> g(mu_);
  if (!usable_ || storeOff_) return;
  std::string err = writeEntry(entryPath(key), bytes);
  if (!err.empty()) {
    warnOnce("cannot store into the kernel cache (" + err + "); continuing without storing");
    storeOff_ = true;
  }
}

void KernelCache::age() {
  if (!usable_ || limits_.maxSizeMb < 0) return;
  size_t n = ageEntries(root_, limits_.maxSizeMb * 1024 * 1024, limits_.ratio, kAgeSeconds, (int64_t)::time(nullptr));
  if (n) info("kernel cache: aged out " + std::to_string(n) + " entries");
}

size_t ageEntries(const std::string& kernelCacheDir, int64_t maxBytes, int ratio, int64_t minAgeSeconds,
                  int64_t now) {
  struct E {
    int64_t mtime, size;
    std::string path;
  };
  std::vector<E> es;
  int64_t total = 0;
  DIR* top = ::opendir(kernelCacheDir.c_str());
  if (!top) return 0;
  while (dirent* t = ::readdir(top)) {
    std::string sub = t->d_name;
    if (sub == "." || sub == "..") continue;
    std::string dir = kernelCacheDir + "/" + sub;
    DIR* d = ::opendir(dir.c_str());
    if (!d) continue;
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (!endsWith(name, ".kce")) continue;
      struct stat st;
      std::string p = dir + "/" + name;
      if (::stat(p.c_str(), &st) != 0) continue;
      es.push_back({(int64_t)st.st_mtime, (int64_t)st.st_size, p});
      total += st.st_size;
    }
    ::closedir(d);
  }
  ::closedir(top);
  if (total <= maxBytes) return 0;
  int64_t goal = maxBytes / 100 * ratio + maxBytes % 100 * ratio / 100;
  std::sort(es.begin(), es.end(), [](const E& a, const E& b) {
    return a.mtime != b.mtime ? a.mtime < b.mtime : a.path < b.path;
  });
  size_t removed = 0;
  for (auto& e : es) {
    if (total <= goal) break;
    if (now - e.mtime <= minAgeSeconds) break;  // sorted: the rest are newer
    if (::unlink(e.path.c_str()) == 0 || errno == ENOENT) {
      total -= e.size;
      ++removed;
    }
  }
  return removed;
}

}  // namespace atc::cache
