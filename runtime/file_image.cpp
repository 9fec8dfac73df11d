#include "runtime/file_image.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/atc_runtime.h"

namespace atc {
namespace rt {

FileImage::FileImage(const std::string& path, size_t maxBytes) {
  auto fail = [&](const std::string& why) { return RuntimeError("cannot load model: cannot read " + path + ": " + why); };
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw fail(errno == ENOENT ? "the file does not exist" : std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw fail("it is not a regular file");
  }
  if ((uint64_t)st.st_size > maxBytes) {
    ::close(fd);
    throw fail("it is larger than " + std::to_string(maxBytes) + " bytes");
  }
  size_ = (size_t)st.st_size;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  mapped_ = std::max<size_t>((size_ + page - 1) / page * page, page);
  void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    ::close(fd);
    throw RuntimeError("cannot load model " + path + ": out of memory for " + std::to_string(size_) + " bytes");
  }
  data_ = (uint8_t*)p;
  size_t got = 0;
  while (got < size_) {
    ssize_t n = ::read(fd, data_ + got, size_ - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  ::close(fd);
  if (got != size_ || mprotect(data_, mapped_, PROT_READ) != 0) {
    munmap(data_, mapped_);
    data_ = nullptr;
    throw fail(got != size_ ? "the file changed size while it was read" : "mprotect failed");
  }
}

FileImage::~FileImage() {
  if (data_) munmap(data_, mapped_);
}

}  // namespace rt
}  // namespace atc
