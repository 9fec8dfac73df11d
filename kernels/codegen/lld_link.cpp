#include "kernels/codegen/lld_link.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

#include <lld/Common/Driver.h>
#include <llvm/Support/raw_ostream.h>

#include "support/diagnostics.h"

LLD_HAS_DRIVER(elf)

namespace atc {
namespace {

// A private temporary folder removed (with its files) when the object goes away.
class TempDir {
 public:
  TempDir() {
    const char* base = getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/atc-link-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back(0);
    if (!mkdtemp(buf.data()))
      throw AtcError("E20001", "Kernel link failed: cannot create a temporary folder under " + tmpl,
                     "Set TMPDIR to a writable folder.");
    path_ = buf.data();
  }
  ~TempDir() {
    for (auto& f : files_) unlink(f.c_str());
    rmdir(path_.c_str());
  }
  std::string file(const std::string& name) {
    files_.push_back(path_ + "/" + name);
    return files_.back();
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

void writeFile(const std::string& path, const std::vector<uint8_t>& data) {
  std::ofstream f(path, std::ios::binary);
  f.write((const char*)data.data(), (std::streamsize)data.size());
  if (!f) throw AtcError("E20001", "Kernel link failed: cannot write " + path, "Check free disk space in TMPDIR.");
}

}  // namespace

std::vector<uint8_t> linkSharedObject(const std::vector<std::vector<uint8_t>>& objects,
                                      const std::vector<std::pair<std::string, std::string>>& aliases) {
  static std::mutex lldMutex;  // lld keeps global state: one link at a time
  TempDir dir;
  std::vector<std::string> objPaths;
  for (size_t i = 0; i < objects.size(); ++i) {
    objPaths.push_back(dir.file("k" + std::to_string(i) + ".o"));
    writeFile(objPaths.back(), objects[i]);
  }
  std::string out = dir.file("kernels.so");
  std::vector<const char*> args = {"ld.lld", "-shared", "--build-id=none", "--hash-style=gnu",
                                   "-z", "noexecstack", "-z", "relro", "-z", "now",
                                   "--strip-debug", "-O1", "-o", out.c_str()};
  std::vector<std::string> defsyms;
  for (auto& a : aliases) defsyms.push_back("--defsym=" + a.first + "=" + a.second);
  for (auto& d : defsyms) args.push_back(d.c_str());
  for (auto& p : objPaths) args.push_back(p.c_str());
  std::string errText, outText;
  int rc;
  {
    std::lock_guard<std::mutex> g(lldMutex);
    llvm::raw_string_ostream os(outText), es(errText);
    lld::Result r = lld::lldMain(args, os, es, {{lld::Gnu, &lld::elf::link}});
    os.flush();
    es.flush();
    rc = r.retCode;
  }
  if (rc != 0) throw AtcError("E20001", "Kernel link failed: " + errText, "Report the model and command line.");
  std::ifstream f(out, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  if (s.empty()) throw AtcError("E20001", "Kernel link failed: empty output", "Report the model and command line.");
  return std::vector<uint8_t>(s.begin(), s.end());
}

}  // namespace atc
