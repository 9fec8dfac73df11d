// atc-compare: layer-by-layer accuracy compare of two dumps (docs/debugging.md).
//   atc-compare DUMP_A DUMP_B [--output=DIR] [--run=N] [--cosine_threshold=0.99] [--atol=1e-3] [--rtol=1e-3]
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include "compare/dump_compare.h"
#include "support/file_io.h"

int main(int argc, char** argv) {
  CLI::App app{"atc-compare: compare two dumps (omrun --dump folders, or folders of .npy files named by node) "
               "tensor by tensor, matched through fusion by node name"};
  std::string a, b, outDir;
  atc::compare::CompareOptions o;
  app.add_option("dump_a", a, "the dump to judge (e.g. a force_fp16 build's omrun --dump folder)")->required();
  app.add_option("dump_b", b, "the reference (e.g. a must_keep_origin_dtype build's dump, or golden .npy files)")->required();
  app.add_option("--output,-o", outDir, "folder for compare.csv and cosine.png (created if missing)");
  app.add_option("--run", o.run, "the dumped run to compare (default: the first of each side)");
  app.add_option("--cosine_threshold", o.cosineThreshold, "the first layer whose cosine is below it is marked (default 0.99)");
  app.add_option("--atol", o.atol, "absolute tolerance of the outside-tolerance fraction (default 1e-3)");
  app.add_option("--rtol", o.rtol, "relative tolerance of the outside-tolerance fraction (default 1e-3)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  try {
    atc::compare::Result r = atc::compare::compareDumps(a, b, o);
    if (r.rows.empty()) throw std::runtime_error("no tensor of " + a + " has a counterpart in " + b);
    std::printf("[atc-compare] %zu tensors compared, %zu of A's without a counterpart in B\n", r.rows.size(),
                r.unmatchedA.size());
    std::printf("%6s %-10s %12s %12s %12s  %s\n", "order", "cosine", "max_abs", "rmse", "outside", "node");
    for (const auto& row : r.rows) {
      if (row.status != "ok") {
        std::printf("%6zu %-10s %12s %12s %12s  %s (%s)\n", row.order, "-", "-", "-", "-", row.node.c_str(), row.status.c_str());
        continue;
      }
      std::printf("%6zu %-10.6f %12.4g %12.4g %11.2f%%  %s%s\n", row.order, row.cosine, row.maxAbs, row.rmse,
                  100 * row.outside, row.node.c_str(), row.firstBelow ? "   <-- first below the threshold" : "");
    }
    if (r.firstBelow >= 0) {
      const auto& row = r.rows[(size_t)r.firstBelow];
      std::string fused;
      for (size_t i = 0; i < row.fusedFrom.size(); ++i) fused += (i ? " + " : "") + row.fusedFrom[i];
      std::printf("[atc-compare] first layer below cosine %g: %s (%s%s)\n", o.cosineThreshold, row.node.c_str(),
                  row.type.c_str(), fused.empty() ? "" : (", kernel of " + fused).c_str());
    }
    else
      std::printf("[atc-compare] every layer at or above cosine %g\n", o.cosineThreshold);
    if (!outDir.empty()) {
      std::string derr = atc::makeDirs(outDir);
      if (!derr.empty()) throw std::runtime_error("cannot create " + outDir + ": " + derr);
      std::string csv = atc::compare::resultCsv(r);
      std::vector<uint8_t> png = atc::compare::cosinePlotPng(r, o.cosineThreshold);
      std::string e1 = atc::writeFileAtomically(outDir + "/compare.csv", csv.data(), csv.size());
      std::string e2 = atc::writeFileAtomically(outDir + "/cosine.png", png.data(), png.size());
      if (!e1.empty() || !e2.empty()) throw std::runtime_error("cannot write into " + outDir + ": " + e1 + e2);
      std::printf("[atc-compare] wrote %s/compare.csv and %s/cosine.png\n", outDir.c_str(), outDir.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[atc-compare] error: %s\n", e.what());
    return 1;
  }
}
