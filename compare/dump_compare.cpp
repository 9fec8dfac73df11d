#include "compare/dump_compare.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "runtime/atc_runtime.h"
#include "runtime/npy.h"
#include "support/file_io.h"
#include "support/half.h"
#include "support/png_writer.h"

namespace atc::compare {
namespace {

struct Entry {
  std::string node, type, tensor, file, dtype;
  std::vector<std::string> fused;
  size_t outIndex = 0;  // which output of its step
  std::vector<int64_t> shape;
};

// One side: an omrun dump (entries from dump_map.json, files under <base>/<run>/) or a folder
// of golden .npy files (entries keyed by file stem).
struct Side {
  bool dump = false;
  std::string dir;                      // where the files are
  std::vector<Entry> entries;           // dump: outputs in step order
  std::map<std::string, size_t> byKey;  // dump: "node#k"; golden: stem
};

bool isDir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool isFile(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> listDir(const std::string& d) {
  std::vector<std::string> r;
  if (DIR* h = ::opendir(d.c_str())) {
    while (dirent* e = ::readdir(h))
      if (e->d_name[0] != '.') r.push_back(e->d_name);
    ::closedir(h);
  }
  std::sort(r.begin(), r.end());
  return r;
}

// The file-name form of a node name (runtime/data_dump.cpp): other characters become '_'.
std::string stem(const std::string& name) {
  std::string r;
  for (char ch : name) r += (std::isalnum((unsigned char)ch) || ch == '.' || ch == '-' || ch == '_') ? ch : '_';
  return r;
}

Side loadSide(const std::string& path, int64_t run, const char* which) {
  if (!isDir(path)) throw std::runtime_error(std::string("side ") + which + ": " + path + " is not a folder");
  std::string map;
  if (isFile(path + "/dump_map.json")) {
    map = path + "/dump_map.json";
  } else {
    std::vector<std::string> found;
    for (const auto& n : listDir(path))
      if (isFile(path + "/" + n + "/dump_map.json")) found.push_back(path + "/" + n + "/dump_map.json");
    if (found.size() > 1)
      throw std::runtime_error(std::string("side ") + which + ": " + path + " holds dumps of " + std::to_string(found.size()) +
                               " models; name one model's folder");
    if (found.size() == 1) map = found[0];
  }
  Side s;
  if (map.empty()) {  // golden .npy files
    s.dir = path;
    for (const auto& n : listDir(path)) {
      if (n.size() < 5 || n.compare(n.size() - 4, 4, ".npy") != 0) continue;
      Entry e;
      e.node = e.tensor = n.substr(0, n.size() - 4);
      e.file = n;
      s.byKey[e.node] = s.entries.size();
      s.entries.push_back(e);
    }
    if (s.entries.empty())
      throw std::runtime_error(std::string("side ") + which + ": " + path +
                               " has neither a dump_map.json (omrun --dump) nor .npy files");
    return s;
  }
  s.dump = true;
  std::string text, err = readFileBounded(map, size_t(1) << 30, &text);
  if (!err.empty()) throw std::runtime_error(std::string("side ") + which + ": cannot read " + map + ": " + err);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
    std::vector<int64_t> runs = j.at("runs").get<std::vector<int64_t>>();
    if (runs.empty()) throw std::runtime_error(std::string("side ") + which + ": " + map + " records no dumped run");
    int64_t r = run >= 0 ? run : runs.front();
    if (std::find(runs.begin(), runs.end(), r) == runs.end())
      throw std::runtime_error(std::string("side ") + which + ": run " + std::to_string(r) + " was not dumped in " + map);
    s.dir = map.substr(0, map.rfind('/')) + "/" + std::to_string(r);
    for (const auto& st : j.at("steps")) {
      if (!st.contains("outputs")) continue;
      std::vector<std::string> fused = st.at("fused_from").get<std::vector<std::string>>();
      std::string last = fused.empty() ? st.at("node").get<std::string>() : fused.back();
      size_t k = 0;
      for (const auto& o : st.at("outputs")) {
        size_t idx = k++;
        if (o.at("file").is_null()) continue;
        Entry e;
        e.node = last;
        e.type = st.value("type", std::string());
        e.tensor = o.at("tensor").get<std::string>();
        e.file = o.at("file").get<std::string>();
        e.dtype = o.at("dtype").get<std::string>();
        e.shape = o.at("shape").get<std::vector<int64_t>>();
        e.outIndex = idx;
        e.fused = fused;
        s.byKey[last + "#" + std::to_string(idx)] = s.entries.size();
        s.entries.push_back(e);
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("side ") + which + ": " + map + " is not a dump map: " + e.what());
  }
  return s;
}

// The values of a dumped tensor. declared: its dtype in the dump map (empty for golden files);
// types numpy lacks were dumped as their storage integers (runtime/npy.h) and are decoded.
std::vector<double> readValues(const std::string& path, const std::string& declared, std::string* dtype,
                               std::vector<int64_t>* shape) {
  rt::NpyArray a = rt::readNpy(path);
  *dtype = a.dtype;
  *shape = a.shape;
  if (!declared.empty() && declared != a.dtype && rt::npyStorageDtype(declared) == a.dtype) {
    const size_t es = rt::dtypeSizeByName(a.dtype), n = a.data.size() / es;
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = rt::npyStorageValue(declared, a.data.data() + i * es);
    *dtype = declared;
    return v;
  }
  size_t es = rt::dtypeSizeByName(a.dtype);
  if (!es) throw std::runtime_error("unsupported dtype " + a.dtype);
  size_t n = a.data.size() / es;
  std::vector<double> v(n);
  const uint8_t* p = a.data.data();
  for (size_t i = 0; i < n; ++i, p += es) {
    const std::string& t = a.dtype;
    double x;
    if (t == "float32") { float f; std::memcpy(&f, p, 4); x = f; }
    else if (t == "float64") std::memcpy(&x, p, 8);
    else if (t == "float16") { uint16_t h; std::memcpy(&h, p, 2); x = halfToFloat(h); }
    else if (t == "int64") { int64_t q; std::memcpy(&q, p, 8); x = (double)q; }
    else if (t == "int32") { int32_t q; std::memcpy(&q, p, 4); x = q; }
    else if (t == "int16") { int16_t q; std::memcpy(&q, p, 2); x = q; }
    else if (t == "int8") x = (int8_t)*p;
    else if (t == "uint8" || t == "bool") x = *p;
    else if (t == "uint16") { uint16_t q; std::memcpy(&q, p, 2); x = q; }
    else if (t == "uint32") { uint32_t q; std::memcpy(&q, p, 4); x = q; }
    else if (t == "uint64") { uint64_t q; std::memcpy(&q, p, 8); x = (double)q; }
    else throw std::runtime_error("unsupported dtype " + t);
    v[i] = x;
  }
  return v;
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string r = "\"";
  for (char c : s) r += c == '"' ? std::string("\"\"") : std::string(1, c);
  return r + "\"";
}

std::string num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

}  // namespace

void tensorMetrics(const std::vector<double>& a, const std::vector<double>& b, double atol, double rtol, Row* row) {
  double dot = 0, na = 0, nb = 0, se = 0, maxAbs = 0, maxRel = 0;
  int64_t outside = 0;
  bool nan = false;
  for (size_t i = 0; i < a.size(); ++i) {
    double x = a[i], y = b[i];
    if (std::isnan(x) || std::isnan(y)) {
      if (!(std::isnan(x) && std::isnan(y))) {
        nan = true;
        ++outside;
      }
      continue;
    }
    double d = std::fabs(x - y);
    if (std::isinf(x) || std::isinf(y)) d = (x == y) ? 0 : INFINITY;
    dot += x * y;
    na += x * x;
    nb += y * y;
    se += d * d;
    maxAbs = std::max(maxAbs, d);
    maxRel = std::max(maxRel, d / std::max(std::fabs(y), 1e-7));
    if (!(d <= atol + rtol * std::fabs(y))) ++outside;
  }
  if (nan) row->cosine = NAN;
  else if (na == 0 && nb == 0) row->cosine = 1;
  else if (na == 0 || nb == 0) row->cosine = 0;
  else row->cosine = dot / (std::sqrt(na) * std::sqrt(nb));
  row->maxAbs = maxAbs;
  row->maxRel = maxRel;
  row->rmse = a.empty() ? 0 : std::sqrt(se / (double)a.size());
  row->outside = a.empty() ? 0 : (double)outside / (double)a.size();
  row->elements = (int64_t)a.size();
}

Result compareDumps(const std::string& pa, const std::string& pb, const CompareOptions& o) {
  Side A = loadSide(pa, o.run, "A"), B = loadSide(pb, o.run, "B");
  Result res;
  for (size_t i = 0; i < A.entries.size(); ++i) {
    const Entry& e = A.entries[i];
    const Entry* m = nullptr;
    if (B.dump) {
      auto it = B.byKey.find(e.node + "#" + std::to_string(e.outIndex));
      if (it != B.byKey.end()) m = &B.entries[it->second];
    } else {
      for (const std::string& key : {e.node, stem(e.node), e.tensor, stem(e.tensor)}) {
        auto it = B.byKey.find(key);
        if (it != B.byKey.end()) {
          m = &B.entries[it->second];
          break;
        }
      }
    }
    if (!A.dump && !m) continue;
    if (!m) {
      res.unmatchedA.push_back(e.node);
      continue;
    }
    Row r;
    r.order = i;
    r.node = e.node;
    r.type = e.type;
    r.fusedFrom = e.fused;
    r.tensor = e.tensor;
    r.fileA = A.dir + "/" + e.file;
    r.fileB = B.dir + "/" + m->file;
    try {
      std::vector<int64_t> sa, sb;
      std::vector<double> va = readValues(r.fileA, A.dump ? e.dtype : "", &r.dtypeA, &sa);
      std::vector<double> vb = readValues(r.fileB, B.dump ? m->dtype : "", &r.dtypeB, &sb);
      r.shape = sa;
      if (va.size() != vb.size()) {
        r.status = "shape mismatch (" + std::to_string(va.size()) + " vs " + std::to_string(vb.size()) + " elements)";
      } else {
        tensorMetrics(va, vb, o.atol, o.rtol, &r);
        r.status = "ok";
      }
    } catch (const std::exception& ex) {
      r.status = std::string("unreadable: ") + ex.what();
    }
    res.rows.push_back(r);
  }
  for (size_t i = 0; i < res.rows.size(); ++i) {
    Row& r = res.rows[i];
    if (r.status == "ok" && !(r.cosine >= o.cosineThreshold)) {
      r.firstBelow = true;
      res.firstBelow = (int)i;
      break;
    }
  }
  return res;
}

std::string resultCsv(const Result& res) {
  std::string out =
      "order,node,type,fused_from,tensor,dtype_a,dtype_b,shape,elements,cosine,max_abs_error,max_relative_error,rmse,"
      "fraction_outside_tolerance,status,first_below_threshold,file_a,file_b\n";
  for (const Row& r : res.rows) {
    std::string shape;
    for (size_t i = 0; i < r.shape.size(); ++i) shape += (i ? "x" : "") + std::to_string(r.shape[i]);
    bool ok = r.status == "ok";
    std::string fused;
    for (size_t i = 0; i < r.fusedFrom.size(); ++i) fused += (i ? "+" : "") + r.fusedFrom[i];
    out += std::to_string(r.order) + "," + csvField(r.node) + "," + csvField(r.type) + "," + csvField(fused) + "," +
           csvField(r.tensor) + "," +
           r.dtypeA + "," + r.dtypeB + "," + shape + "," + std::to_string(r.elements) + "," + (ok ? num(r.cosine) : "") +
           "," + (ok ? num(r.maxAbs) : "") + "," + (ok ? num(r.maxRel) : "") + "," + (ok ? num(r.rmse) : "") + "," +
           (ok ? num(r.outside) : "") + "," + csvField(r.status) + "," + (r.firstBelow ? "yes" : "") + "," +
           csvField(r.fileA) + "," + csvField(r.fileB) + "\n";
  }
  return out;
}

std::vector<uint8_t> cosinePlotPng(const Result& res, double threshold) {
  const int W = 900, H = 320, L = 40, R = 20, T = 20, Bm = 30;
  RgbImage img(W, H);
  double lo = std::min(threshold, 1.0);
  for (const Row& r : res.rows)
    if (r.status == "ok" && std::isfinite(r.cosine)) lo = std::min(lo, r.cosine);
  lo = std::max(-1.0, lo - 0.05 * (1.0 - lo + 1e-3));
  auto yOf = [&](double c) { return T + (int)std::lround((1.0 - c) / (1.0 - lo + 1e-12) * (H - T - Bm)); };
  const size_t n = res.rows.size();
  auto xOf = [&](size_t i) { return L + (n <= 1 ? 0 : (int)((W - L - R) * i / (n - 1))); };
  img.line(L, T, L, H - Bm, 0, 0, 0);
  img.line(L, H - Bm, W - R, H - Bm, 0, 0, 0);
  img.line(L, yOf(1.0), W - R, yOf(1.0), 200, 200, 200);
  img.line(L, yOf(threshold), W - R, yOf(threshold), 220, 0, 0);
  if (res.firstBelow >= 0) {
    int x = xOf((size_t)res.firstBelow);
    img.line(x, T, x, H - Bm, 255, 140, 0);
  }
  int px = -1, py = -1;
  for (size_t i = 0; i < n; ++i) {
    const Row& r = res.rows[i];
    double c = r.status == "ok" && std::isfinite(r.cosine) ? r.cosine : lo;
    int x = xOf(i), y = yOf(c);
    if (px >= 0) img.line(px, py, x, y, 0, 70, 200);
    for (int d = -2; d <= 2; ++d) img.line(x - 2, y + d, x + 2, y + d, 0, 70, 200);
    px = x;
    py = y;
  }
  return encodePng(img);
}

}  // namespace atc::compare
