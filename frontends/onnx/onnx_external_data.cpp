#include "frontends/onnx/onnx_external_data.h"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "support/diagnostics.h"

namespace atc {
namespace onnxfe {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& modelPath, const std::string& tensor,
                       const std::string& why) {
  throw AtcError("E10041",
                 "Failed to load the model from [" + modelPath + "]: external data of tensor [" +
                     tensor + "] " + why,
                 "Keep external data files inside the model's folder, referenced by relative "
                 "paths, and check that they are complete.");
}

// True if `p` equals `base` or lies under it (both canonical).
bool isInside(const fs::path& base, const fs::path& p) {
  auto b = base.begin(), pe = p.begin();
  for (; b != base.end(); ++b, ++pe) {
    if (pe == p.end() || *b != *pe) return false;
  }
  return true;
}

}  // namespace

std::vector<uint8_t> readExternalData(const std::string& modelDir, const ExternalDataRef& ref,
                                      const std::string& tensorName,
                                      const std::string& modelPath) {
  if (ref.location.empty()) fail(modelPath, tensorName, "has no location");
  fs::path loc(ref.location);
  if (loc.is_absolute() || loc.has_root_name() || loc.has_root_directory())
    fail(modelPath, tensorName,
         "uses the absolute path [" + ref.location + "]; only paths relative to the model's "
         "folder are allowed");
  for (const auto& part : loc)
    if (part == "..")
      fail(modelPath, tensorName,
           "uses the path [" + ref.location + "] which leaves the model's folder");
  std::error_code ec;
  fs::path base = fs::canonical(modelDir.empty() ? fs::path(".") : fs::path(modelDir), ec);
  if (ec) fail(modelPath, tensorName, "cannot resolve the model's folder: " + ec.message());
  fs::path full = fs::canonical(base / loc, ec);
  if (ec) fail(modelPath, tensorName, "file [" + ref.location + "] cannot be opened: " + ec.message());
  if (!isInside(base, full))
    fail(modelPath, tensorName,
         "file [" + ref.location + "] resolves to [" + full.string() +
             "] outside the model's folder (symbolic link?)");
  if (!fs::is_regular_file(full, ec))
    fail(modelPath, tensorName, "file [" + ref.location + "] is not a regular file");
  uintmax_t size = fs::file_size(full, ec);
  if (ec) fail(modelPath, tensorName, "file [" + ref.location + "] cannot be read: " + ec.message());
  if (ref.offset < 0 || (uintmax_t)ref.offset > size)
    fail(modelPath, tensorName,
         "offset " + std::to_string(ref.offset) + " is beyond the end of [" + ref.location +
             "] (" + std::to_string(size) + " bytes)");
  uintmax_t len = ref.length < 0 ? size - (uintmax_t)ref.offset : (uintmax_t)ref.length;
  if ((uintmax_t)ref.offset + len > size)
    fail(modelPath, tensorName,
         "range [" + std::to_string(ref.offset) + ", +" + std::to_string(len) +
             ") is beyond the end of [" + ref.location + "] (" + std::to_string(size) +
             " bytes): the file is truncated");
  std::vector<uint8_t> out((size_t)len);
  FILE* f = std::fopen(full.c_str(), "rb");
  if (!f) fail(modelPath, tensorName, "file [" + ref.location + "] cannot be opened");
  bool ok = fseeko(f, (off_t)ref.offset, SEEK_SET) == 0 &&
            (len == 0 || std::fread(out.data(), 1, (size_t)len, f) == (size_t)len);
  std::fclose(f);
  if (!ok) fail(modelPath, tensorName, "could not read " + std::to_string(len) + " bytes from [" + ref.location + "]");
  return out;
}

}  // namespace onnxfe
}  // namespace atc
