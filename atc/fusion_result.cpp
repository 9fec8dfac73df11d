#include "atc/fusion_result.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "atc/console.h"
#include "support/file_io.h"

namespace atc {

std::string fusionResultJson(const std::vector<PassRecord>& records, int session, int graph) {
  // Sorted by pass name (nlohmann's default map order), as ATC writes it.
  nlohmann::json gfs = nlohmann::json::object(), ubs = nlohmann::json::object();
  for (auto& r : records) {
    if (r.skipped || r.runs == 0) continue;
    // TF scope fusion passes report as graph fusions, as in ATC.
    bool isGraph = r.group == "graph_fusion" || r.group == "scope_fusion", isUb = r.group == "ub_fusion";
    if (!isGraph && !isUb) continue;
    nlohmann::json e = nlohmann::json::object();
    e["effect_times"] = std::to_string(r.stats.effectTimes);
    e["match_times"] = std::to_string(r.stats.matchTimes);
    if (isUb) e["repository_hit_times"] = std::to_string(r.repositoryHits);
    (isGraph ? gfs : ubs)[r.name] = e;
  }
  nlohmann::json body = nlohmann::json::object();
  body["graph_fusion"] = gfs;
  body["ub_fusion"] = ubs;
  nlohmann::json root = nlohmann::json::object();
  root["session_and_graph_id_" + std::to_string(session) + "_" + std::to_string(graph)] = body;
  return root.dump(4) + "\n";
}

void countRepositoryHits(const Graph& g, const KernelCacheReport& report,
                         std::vector<PassRecord>& records) {
  for (auto& r : records) r.repositoryHits = 0;
  for (auto& up : g.nodes()) {
    auto a = up->attrs.find("_ub_pass");
    if (a == up->attrs.end()) continue;
    const std::string* pass = std::get_if<std::string>(&a->second);
    auto h = report.nodeHit.find(up->name);
    if (!pass || h == report.nodeHit.end() || !h->second) continue;
    for (auto& r : records)
      if (r.name == *pass && r.group == "ub_fusion") r.repositoryHits++;
  }
}

std::string fusionResultPath() {
  const char* w = std::getenv("ASCEND_WORK_PATH");
  if (!w || !*w) return "fusion_result.json";
  std::string dir = std::string(w) + "/FE";
  ::mkdir(w, 0755);
  ::mkdir(dir.c_str(), 0755);
  dir += "/" + std::to_string((long)::getpid());
  ::mkdir(dir.c_str(), 0755);
  return dir + "/fusion_result.json";
}

void writeFusionResult(const std::vector<PassRecord>& records) {
  std::string path = fusionResultPath();
  std::string text = fusionResultJson(records);
  // Temporary + rename: a symlink planted at the path is replaced, never written through.
  std::string err = writeFileAtomically(path, text.data(), text.size());
  if (!err.empty()) {  // the build goes on, but the user is told whatever --log says
    std::fprintf(stderr, "[WARNING] cannot write %s: %s\n", path.c_str(), err.c_str());
    return;
  }
  logInfo("wrote " + path);
}

}  // namespace atc
