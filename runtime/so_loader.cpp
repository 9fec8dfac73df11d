#include "runtime/so_loader.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

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

SharedObject::SharedObject(const uint8_t* data, size_t size) {
  std::string path;
  int fd = memfd_create("atc_kernels", MFD_CLOEXEC);
  std::string tmpFile;
  if (fd >= 0) {
    path = "/proc/self/fd/" + std::to_string(fd);
  } else {  // no memfd (old kernels, sandboxes): a private temporary file
    const char* base = getenv("TMPDIR");
    tmpFile = std::string(base && *base ? base : "/tmp") + "/atc-kernels-XXXXXX";
    fd = mkstemp(&tmpFile[0]);
    if (fd < 0) throw RuntimeError("cannot create a file to load the model's kernels from");
    path = tmpFile;
  }
  bool ok = writeAll(fd, data, size);
  if (ok) handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  const char* err = ok ? (handle_ ? nullptr : dlerror()) : "write failed";
  std::string errText = err ? err : "";
  ::close(fd);
  if (!tmpFile.empty()) unlink(tmpFile.c_str());
  if (!handle_) throw RuntimeError("cannot load the model's kernels: " + errText);
}

SharedObject::~SharedObject() {
  if (handle_) dlclose(handle_);
}

void* SharedObject::symbol(const std::string& name) const {
  dlerror();
  void* p = dlsym(handle_, name.c_str());
  if (!p) throw RuntimeError("the model's kernels have no symbol " + name + " (corrupted model?)");
  return p;
}

}  // namespace rt
}  // namespace atc
