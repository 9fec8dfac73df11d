#include "atc/dynamic_options.h"

#include <algorithm>
#include <set>

#include "support/diagnostics.h"
#include "support/strings.h"

namespace atc {
namespace {

// The positions of -1 in each --input_shape entry, in the order the inputs were given.
struct MinusOnes {
  std::vector<std::pair<std::string, std::vector<size_t>>> perInput;
  size_t total = 0;
};
MinusOnes minusOnes(const ImportOptions& im) {
  MinusOnes m;
  for (auto& name : im.inputShapeOrder) {
    const auto& shape = im.inputShapes.at(name);
    std::vector<size_t> at;
    for (size_t k = 0; k < shape.size(); ++k)
      if (shape[k] == -1) at.push_back(k);
    m.total += at.size();
    if (!at.empty()) m.perInput.push_back({name, at});
  }
  return m;
}

// "a,b;c,d" -> groups of positive integers (one group for a batch list "1,2,4").
std::vector<std::vector<int64_t>> parseGroups(const std::string& param, const std::string& text, bool oneGroupPerValue,
                                              const std::string& solution) {
  std::string t = trim(text);
  if (t.empty()) invalidParamCode("E10004", param, text, "the value is empty.", solution);
  std::vector<std::string> groups = oneGroupPerValue ? split(t, ',') : split(t, ';');
  if (groups.size() > 1 && trim(groups.back()).empty()) groups.pop_back();  // trailing separator
  std::vector<std::vector<int64_t>> out;
  for (auto& g : groups) {
    std::vector<int64_t> vals;
    std::string gt = trim(g);
    if (gt.empty()) invalidParam(param, text, "a profile between separators is empty.", solution);
    for (auto& item : split(gt, ',')) {
      int64_t v = 0;
      std::string it = trim(item);
      if (!parseInt64(it, &v) || v <= 0)
        invalidParam(param, text, "[" + it + "] is not a positive integer.", solution);
      vals.push_back(v);
    }
    if (std::find(out.begin(), out.end(), vals) != out.end())
      invalidParam(param, text, "profile [" + joinInts(vals) + "] is given twice.", solution);
    out.push_back(vals);
  }
  return out;
}

void checkGearCount(const std::string& param, const std::string& text, size_t n) {
  if (n < kMinGears)
    throw AtcError("E10035",
                   "Parameter [--" + param + "] has " + std::to_string(n) + " profile(s) in [" + text +
                       "], fewer than the minimum of " + std::to_string(kMinGears) + ".",
                   "Give at least " + std::to_string(kMinGears) +
                       " profiles, or build a static model with --input_shape alone.");
  if (n > kMaxGears)
    throw AtcError("E10036",
                   "Parameter [--" + param + "] has " + std::to_string(n) + " profiles, more than the maximum of " +
                       std::to_string(kMaxGears) + ".",
                   "Give at most " + std::to_string(kMaxGears) + " profiles.");
}

}  // namespace

DynamicGears parseDynamicGears(const std::string& batchText, bool batchGiven, const std::string& imageText,
                               bool imageGiven, const std::string& dimsText_, bool dimsGiven,
                               const ImportOptions& im) {
  DynamicGears d;
  int given = (int)batchGiven + (int)imageGiven + (int)dimsGiven;
  if (given == 0) return d;
  if (given > 1)
    throw AtcError("E10009",
                   "Parameters [--dynamic_batch_size], [--dynamic_image_size] and [--dynamic_dims] are mutually "
                   "exclusive; more than one was given.",
                   "Keep only one dynamic shape option.");
  d.option = batchGiven ? "dynamic_batch_size" : imageGiven ? "dynamic_image_size" : "dynamic_dims";
  d.kind = batchGiven ? "batch" : imageGiven ? "image_size" : "dims";
  const std::string& text = batchGiven ? batchText : imageGiven ? imageText : dimsText_;
  if (im.inputShapes.empty())
    throw AtcError("E10004",
                   "Value for parameter [--input_shape] is empty, but [--" + d.option + "] needs it to mark the "
                       "dynamic dims with -1.",
                   "Give --input_shape with -1 at the dims that change between profiles, e.g. "
                   "--input_shape=\"input:-1,3,224,224\".");
  MinusOnes m = minusOnes(im);
  if (batchGiven) {
    const char* sol = "Write -1 at the batch (first) dim of --input_shape and nowhere else, e.g. "
                      "--input_shape=\"input:-1,3,224,224\" --dynamic_batch_size=\"1,2,4,8\".";
    d.gears = parseGroups(d.option, text, /*oneGroupPerValue=*/true, "Give the batch sizes as \"1,2,4,8\".");
    if (m.perInput.empty())
      throw AtcError("E10031", "Parameter [--input_shape] has no -1 at the batch dim, which [--dynamic_batch_size] needs.", sol);
    for (auto& [name, at] : m.perInput)
      if (at.size() != 1 || at[0] != 0)
        throw AtcError("E10031",
                       "Parameter [--input_shape]: input [" + name + "] has -1 outside the batch (first) dim; with "
                       "[--dynamic_batch_size] only the batch dim may be -1.",
                       sol);
  } else if (imageGiven) {
    bool nhwc = im.inputFormat == "NHWC" || (im.inputFormat.empty() && im.framework == 3);
    if (!im.inputFormat.empty() && im.inputFormat != "NCHW" && im.inputFormat != "NHWC")
      invalidParam("input_format", im.inputFormat, "[--dynamic_image_size] needs NCHW or NHWC inputs.",
                   "Use --input_format=NCHW or NHWC, or --dynamic_dims with --input_format=ND.");
    const size_t h = nhwc ? 1 : 2, w = nhwc ? 2 : 3;
    std::string sol = std::string("Write -1 at exactly the H and W dims of --input_shape (") + (nhwc ? "NHWC" : "NCHW") +
                      "), e.g. --input_shape=\"input:" + (nhwc ? "1,-1,-1,3" : "1,3,-1,-1") +
                      "\" --dynamic_image_size=\"224,224;448,448\".";
    d.gears = parseGroups(d.option, text, false, "Give the image sizes as \"h1,w1;h2,w2\".");
    for (auto& g : d.gears)
      if (g.size() != 2) invalidParam(d.option, text, "profile [" + joinInts(g) + "] is not one height and one width.",
                                      "Give the image sizes as \"h1,w1;h2,w2\".");
    if (m.perInput.empty())
      throw AtcError("E10019", "Parameter [--input_shape] has no -1 at the H and W dims, which [--dynamic_image_size] needs.",
                     sol);
    for (auto& [name, at] : m.perInput)
      if (im.inputShapes.at(name).size() != 4 || at != std::vector<size_t>{h, w})
        throw AtcError("E10019",
                       "Parameter [--input_shape]: input [" + name + "] has -1 at dims other than exactly H and W; with "
                       "[--dynamic_image_size] only the H and W dims of 4-d inputs may be -1.",
                       sol);
  } else {
    const char* sol = "Give one value per -1 of --input_shape in each profile, e.g. --input_shape=\"ids:1,-1\" "
                      "--dynamic_dims=\"16;32;64\".";
    if (im.inputFormat != "ND")
      invalidParam("input_format", im.inputFormat.empty() ? "(default)" : im.inputFormat,
                   "[--dynamic_dims] needs --input_format=ND.", "Add --input_format=ND.");
    d.gears = parseGroups(d.option, text, false, sol);
    if (m.total == 0) invalidParam("input_shape", "", "[--dynamic_dims] needs at least one -1 dim in --input_shape.", sol);
    for (auto& g : d.gears)
      if (g.size() != m.total)
        invalidParam(d.option, text,
                     "profile [" + joinInts(g) + "] has " + std::to_string(g.size()) + " value(s), but --input_shape has " +
                         std::to_string(m.total) + " -1 dim(s).",
                     sol);
  }
  checkGearCount(d.option, text, d.gears.size());
  return d;
}

DynamicGears rangeGears(const ShapeRanges& r, const std::string& option, const std::string& text) {
  DynamicGears d;
  d.option = option;
  d.kind = "range";
  // The dims' symbols: a ranged dim joins the first symbol of the same range that no dim of its
  // input has yet (ids:1,1~512;mask:1,1~512 is one sequence length), else starts one (H and W of
  // one input vary independently).
  struct Symbol {
    int64_t lo, hi;
    std::set<std::string> inputs;
  };
  std::vector<Symbol> syms;
  std::vector<size_t> symOf;
  for (auto& dim : r.dims) {
    size_t k = 0;
    while (k < syms.size() && (syms[k].lo != dim.lo || syms[k].hi != dim.hi || syms[k].inputs.count(dim.input))) ++k;
    if (k == syms.size()) syms.push_back({dim.lo, dim.hi, {}});
    syms[k].inputs.insert(dim.input);
    symOf.push_back(k);
  }
  size_t total = 1;
  for (auto& sym : syms) {
    size_t n = (size_t)(sym.hi - sym.lo + 1);
    if (n > kMaxRangeShapes || total * n > kMaxRangeShapes)
      invalidParamCode("E10002", option, text,
                       "its ranges give more than " + std::to_string(kMaxRangeShapes) +
                           " shapes; a range build holds one plan per shape.",
                       "Narrow the ranges, or list the shapes the model serves with --dynamic_dims.");
    total *= n;
  }
  std::vector<int64_t> v;  // the symbols' values
  for (auto& sym : syms) v.push_back(sym.lo);
  for (size_t i = 0; i < total; ++i) {
    std::vector<int64_t> g;
    for (size_t k : symOf) g.push_back(v[k]);
    d.gears.push_back(g);
    for (size_t k = syms.size(); k-- > 0;) {  // the next combination, the last symbol fastest
      if (++v[k] <= syms[k].hi) break;
      v[k] = syms[k].lo;
    }
  }
  return d;
}

ImportOptions gearImportOptions(const ImportOptions& im, const DynamicGears& d, size_t i) {
  ImportOptions r = im;
  const std::vector<int64_t>& g = d.gears.at(i);
  size_t next = 0;
  for (auto& name : r.inputShapeOrder)
    for (auto& dim : r.inputShapes[name]) {
      if (dim != -1) continue;
      if (d.kind == "batch") dim = g[0];
      else if (d.kind == "image_size") dim = g[next++ % 2];
      else dim = g.at(next++);
    }
  return r;
}

std::string gearLabel(const DynamicGears& d, size_t i) { return d.kind + " " + joinInts(d.gears.at(i)); }

}  // namespace atc
