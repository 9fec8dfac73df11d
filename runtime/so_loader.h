// Loads an ELF shared object from memory (memfd_create + dlopen) and resolves symbols. The
// memory file stays open while the object is loaded (see so_loader.cpp: dlopen's path match).
#pragma once
#include <cstdint>
#include <string>

namespace atc {
namespace rt {

// Checks the ELF header and that every loadable segment lies inside [data, data+size), without
// loading anything. Throws RuntimeError.
void checkSharedObject(const uint8_t* data, size_t size);

class SharedObject {
 public:
  SharedObject(const uint8_t* data, size_t size);  // throws RuntimeError
  ~SharedObject();
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;
  void* symbol(const std::string& name) const;  // throws RuntimeError if missing

 private:
  void release();
  void* handle_ = nullptr;
  int fd_ = -1;
  std::string tmpFile_;  // the temporary file when there is no memfd (removed on release)
};

}  // namespace rt
}  // namespace atc
