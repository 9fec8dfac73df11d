// A model file read into read-only private pages: the runtime checks the bytes it will use
// (checksum, signature) and then uses them in place (the weights are not copied again), and
// a later change to the file on disk cannot change a loaded model.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace atc {
namespace rt {

class FileImage {
 public:
  // Regular files only, at most maxBytes (a FIFO or /dev/zero is refused, never read
  // forever). Throws RuntimeError naming the file.
  FileImage(const std::string& path, size_t maxBytes);
  ~FileImage();
  FileImage(const FileImage&) = delete;
  FileImage& operator=(const FileImage&) = delete;
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0, mapped_ = 0;
};

}  // namespace rt
}  // namespace atc
