#include "cache/entry_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>

#include "cache/sha256.h"
#include "support/file_io.h"

namespace atc::cache {
namespace {
constexpr char kMagic[8] = {'A', 'T', 'C', 'C', 'E', '0', '0', '1'};
constexpr size_t kHeader = 8 + 8 + 32;
std::atomic<void (*)(const std::string&)> g_info{nullptr};

bool readAll(int fd, size_t size, std::vector<uint8_t>& out) {
  out.resize(size);
  size_t got = 0;
  while (got < out.size()) {
    ssize_t r = ::read(fd, out.data() + got, out.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  out.resize(got);
  return true;
}
}  // namespace

ReadResult readEntry(const std::string& path, std::vector<uint8_t>& payload) {
  payload.clear();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return ReadResult::Missing;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && readAll(fd, (size_t)st.st_size, payload);
  ::close(fd);
  if (!ok || payload.size() < kHeader || std::memcmp(payload.data(), kMagic, 8) != 0) return ReadResult::Corrupt;
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= (uint64_t)payload[8 + i] << (8 * i);
  if (n != payload.size() - kHeader) return ReadResult::Corrupt;
  auto h = sha256(payload.data() + kHeader, (size_t)n);
  if (std::memcmp(h.data(), payload.data() + 16, 32) != 0) return ReadResult::Corrupt;
  payload.erase(payload.begin(), payload.begin() + kHeader);
  return ReadResult::Ok;
}

std::string writeEntry(const std::string& path, const std::vector<uint8_t>& payload) {
  return writeEntry(path, std::vector<EntryPart>{{payload.data(), payload.size()}});
}

std::string writeEntry(const std::string& path, const std::vector<EntryPart>& payload) {
  uint8_t head[kHeader];
  std::memcpy(head, kMagic, 8);
  uint64_t n = 0;
  Sha256 sh;
  for (const auto& p : payload) {
    n += p.size;
    sh.update(p.data, p.size);
  }
  for (int i = 0; i < 8; ++i) head[8 + i] = (uint8_t)(n >> (8 * i));
  auto h = sh.digest();
  std::memcpy(head + 16, h.data(), 32);
  std::vector<FilePart> parts{{head, kHeader}};
  for (const auto& p : payload) parts.push_back({p.data, p.size});
  AtomicWrite how;
  how.fsync = true;
  return writeFileAtomically(path, parts, how);
}

void warnOnce(const std::string& text) {
  static std::mutex mu;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> g(mu);
  if (!seen.insert(text).second) return;
  std::string line = "[WARNING] " + text + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void setInfoSink(void (*sink)(const std::string&)) { g_info = sink; }
void info(const std::string& text) {
  if (auto s = g_info.load()) s(text);
}

}  // namespace atc::cache
