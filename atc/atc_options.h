// The atc command line as typed values, one part per phase (import, passes, backend,
// output). Filled once by parseCommandLine (atc/options.h), which also reads and validates
// every option file; the phases never see the command line or re-read a file.
#pragma once
#include <string>

#include "atc/dynamic_options.h"
#include "backend/backend_options.h"
#include "frontends/import_options.h"
#include "passes/pass_options.h"
#include "support/log.h"

namespace atc {

struct OutputOptions {
  std::string output;                 // path prefix; ".om" appended
  int exportCompileStat = 1;          // --export_compile_stat: 0 none, 1 at normal exit, 2 after graph compile
  std::string graphCompilerCacheDir;  // --graph_compiler_cache_dir: whole-model cache
  bool displayModelInfo = false;      // --display_model_info=1: the --mode=6 summary after a build
  std::string signKeyPath, signKeyPem;  // --sign_key: Ed25519 private key (PEM) that signs the .om
};

struct AtcOptions {
  int mode = 0;
  std::string om, json;               // --mode=1
  LogLevel log = LogLevel::Null;
  std::string socVersion;
  std::string cmdline;                // the whole command line, stored in the model
  ImportOptions import;
  DynamicGears dynamic;               // --dynamic_batch_size / --dynamic_image_size / --dynamic_dims
  PassOptions passes;
  BackendOptions backend;
  OutputOptions output;
};

}  // namespace atc
