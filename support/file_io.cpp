#include "support/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>
#include <mutex>

namespace atc {

namespace {

// The temporary being written by a removeOnSignal write (one at a time: the driver's outputs).
char g_tmpPath[4096];
volatile sig_atomic_t g_tmpActive = 0;

void onFatalSignal(int sig) {
  if (g_tmpActive) ::unlink(g_tmpPath);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

std::mutex g_readMu;
std::map<std::string, int> g_readCounts;
std::map<std::string, std::string> g_readContents;  // files up to kRememberBytes
constexpr size_t kRememberBytes = 16u << 20;

std::string writeAll(int fd, const uint8_t* p, size_t left) {
  while (left > 0) {
    ssize_t w = ::write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return std::string("write failed: ") + std::strerror(errno);
    p += w;
    left -= (size_t)w;
  }
  return "";
}

}  // namespace

int removeStaleTemporaries(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  int removed = 0;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n.compare(0, prefix.size(), prefix) != 0) continue;
    std::string rest = n.substr(prefix.size());
    size_t dot = rest.find('.');
    std::string pidText = rest.substr(0, dot);
    if (pidText.empty() || pidText.find_first_not_of("0123456789") != std::string::npos || pidText.size() > 9) continue;
    pid_t pid = (pid_t)std::stol(pidText);
    if (pid <= 0 || (::kill(pid, 0) != 0 && errno == ESRCH)) {
      if (::unlink((dir + "/" + n).c_str()) == 0) ++removed;
    }
  }
  ::closedir(d);
  return removed;
}

void installSignalCleanup() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, onFatalSignal);
}

std::string writeFileAtomically(const std::string& path, const void* data, size_t size, AtomicWrite how) {
  return writeFileAtomically(path, std::vector<FilePart>{{data, size}}, how);
}

std::string writeFileAtomically(const std::string& path, const std::vector<FilePart>& parts, AtomicWrite how) {
  static std::atomic<unsigned> counter{0};
  std::string tmp = path + ".tmp." + std::to_string((long)::getpid()) + "." + std::to_string(counter++);
  bool track = how.removeOnSignal && tmp.size() < sizeof g_tmpPath;
  if (track) {
    std::memcpy(g_tmpPath, tmp.c_str(), tmp.size() + 1);
    g_tmpActive = 1;
  }
  struct ClearTmp {
    bool on;
    ~ClearTmp() {
      if (on) g_tmpActive = 0;
    }
  } clearTmp{track};
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot create [" + tmp + "]: " + std::strerror(errno);
  std::string err;
  for (const auto& p : parts)
    if (err.empty()) err = writeAll(fd, static_cast<const uint8_t*>(p.data), p.size);
  if (err.empty() && how.fsync && ::fsync(fd) != 0) err = std::string("fsync failed: ") + std::strerror(errno);
  if (::close(fd) != 0 && err.empty()) err = std::string("close failed: ") + std::strerror(errno);
  if (err.empty() && how.keepExisting) {
    if (::link(tmp.c_str(), path.c_str()) != 0 && errno != EEXIST) err = std::string("link failed: ") + std::strerror(errno);
    ::unlink(tmp.c_str());
    return err;
  }
  if (err.empty() && ::rename(tmp.c_str(), path.c_str()) != 0) err = std::string("rename failed: ") + std::strerror(errno);
  if (!err.empty()) ::unlink(tmp.c_str());
  return err;
}

std::string readFileBounded(const std::string& path, size_t maxBytes, std::string* out) {
  {
    std::lock_guard<std::mutex> g(g_readMu);
    ++g_readCounts[path];
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "the file does not exist";
  if (!S_ISREG(st.st_mode)) return "it is not a regular file";
  if ((uint64_t)st.st_size > maxBytes) return "it is larger than " + std::to_string(maxBytes) + " bytes";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::string("it cannot be read (") + std::strerror(errno) + ")";
  out->clear();
  char buf[65536];
  std::string err;
  for (;;) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      err = std::string("it cannot be read (") + std::strerror(errno) + ")";
      break;
    }
    if (r == 0) break;
    if (out->size() + (size_t)r > maxBytes) {
      err = "it is larger than " + std::to_string(maxBytes) + " bytes";
      break;
    }
    out->append(buf, (size_t)r);
  }
  ::close(fd);
  return err;
}

std::string readOptionFile(const std::string& path, size_t maxBytes, std::string* out) {
  std::string err = readFileBounded(path, maxBytes, out);
  if (err.empty() && out->size() <= kRememberBytes) {
    std::lock_guard<std::mutex> g(g_readMu);
    g_readContents[path] = *out;
  }
  return err;
}

bool contentsAlreadyRead(const std::string& path, std::string* out) {
  std::lock_guard<std::mutex> g(g_readMu);
  auto it = g_readContents.find(path);
  if (it == g_readContents.end()) return false;
  *out = it->second;
  return true;
}

int fileReadCount(const std::string& path) {
  std::lock_guard<std::mutex> g(g_readMu);
  auto it = g_readCounts.find(path);
  return it == g_readCounts.end() ? 0 : it->second;
}

std::string makeDirs(const std::string& path) {
  if (path.empty()) return "empty path";
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    size_t next = path.find('/', pos + 1);
    cur = path.substr(0, next);
    pos = next;
    if (cur.empty() || cur == "/") continue;
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      return "cannot create " + cur + ": " + std::strerror(errno);
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return path + " is not a folder";
  return "";
}


}  // namespace atc
