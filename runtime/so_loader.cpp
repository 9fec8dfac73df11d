#include "runtime/so_loader.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "runtime/atc_runtime.h"

namespace atc {
namespace rt {
namespace {

bool writeAll(int fd, const uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w <= 0) return false;
    p += w;
    n -= (size_t)w;
  }
  return true;
}

}  // namespace

// The ELF header and every program header's file range must lie inside the image: a
// truncated or crafted kernel library is refused here instead of faulting (SIGBUS) in dlopen.
void checkSharedObject(const uint8_t* data, size_t size) {
  auto fail = [](const std::string& why) { return RuntimeError("the model's kernel library is invalid: " + why); };
  if (size < sizeof(Elf64_Ehdr)) throw fail("shorter than an ELF header");
  Elf64_Ehdr eh;
  std::memcpy(&eh, data, sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) throw fail("not a 64-bit ELF");
  if (eh.e_type != ET_DYN) throw fail("not a shared object");
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > size ||
      (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > size - eh.e_phoff)
    throw fail("program headers outside the file");
  if (eh.e_shnum && (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
                     (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > size - eh.e_shoff))
    throw fail("section headers outside the file");
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, data + eh.e_phoff + (size_t)i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && (ph.p_offset > size || ph.p_filesz > size - ph.p_offset))
      throw fail("a loadable segment lies outside the file (truncated?)");
  }
}

// dlopen finds an object that is already loaded by its path name before it looks at the file:
// a second model loaded from /proc/self/fd/N while the first, loaded from the same path, is
// still there would silently get the first one's kernels. So the file stays open as long as
// its object is loaded (no other library can get that number, nor a temporary file that
// name), and a path some other object already has is never used.
SharedObject::SharedObject(const uint8_t* data, size_t size) {
  checkSharedObject(data, size);
  std::string path;
  int fd = memfd_create("atc_kernels", MFD_CLOEXEC);
  if (fd >= 0) {
    path = "/proc/self/fd/" + std::to_string(fd);
  } else {  // no memfd (old kernels, sandboxes): a private temporary file
    const char* base = getenv("TMPDIR");
    tmpFile_ = std::string(base && *base ? base : "/tmp") + "/atc-kernels-XXXXXX";
    fd = mkstemp(&tmpFile_[0]);
    if (fd < 0) throw RuntimeError("cannot create a file to load the model's kernels from");
    path = tmpFile_;
  }
  fd_ = fd;
  auto fail = [this](const std::string& why) {
    release();
    throw RuntimeError("cannot load the model's kernels: " + why);
  };
  if (!writeAll(fd, data, size)) fail("write failed");
  if (void* other = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
    dlclose(other);
    fail("another library is loaded from " + path);
  }
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* err = dlerror();
    fail(err ? err : "dlopen failed");
  }
}

void SharedObject::release() {
  if (handle_) dlclose(handle_);
  handle_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!tmpFile_.empty()) unlink(tmpFile_.c_str());
  tmpFile_.clear();
}

SharedObject::~SharedObject() { release(); }

void* SharedObject::symbol(const std::string& name) const {
  dlerror();
  void* p = dlsym(handle_, name.c_str());
  if (!p) throw RuntimeError("the model's kernels have no symbol " + name + " (corrupted model?)");
  return p;
}

}  // namespace rt
}  // namespace atc
