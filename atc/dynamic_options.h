// ATC's dynamic gears (--dynamic_batch_size, --dynamic_image_size, --dynamic_dims): parsed
// and checked against --input_shape with ATC's rules and codes, then expanded into one fully
// static --input_shape per gear (docs/dynamic-shapes.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "frontends/import_options.h"

namespace atc {

struct DynamicGears {
  std::string option;  // "dynamic_batch_size", "dynamic_image_size", "dynamic_dims"; "" = static
  std::string kind;    // "batch", "image_size", "dims", "range" (what the .om and omrun call it)
  // One entry per gear: the values that replace the -1 dims of --input_shape, in the order
  // the inputs were given there (batch: one value; image size: h, w; dims: one per -1).
  std::vector<std::vector<int64_t>> gears;
  bool any() const { return !option.empty(); }
};

constexpr size_t kMinGears = 2, kMaxGears = 100;
// A range build (--input_shape="x:1,1~512") has one plan per shape of its ranges: at most this many.
constexpr size_t kMaxRangeShapes = 1024;

// The "lo~hi" dims of --input_shape / --input_shape_range, in the order written (each is -1
// in ImportOptions::inputShapes).
struct ShapeRanges {
  struct Dim {
    std::string input;
    size_t dim;
    int64_t lo, hi;
  };
  std::vector<Dim> dims;
};

// A range build's gears, kind "range": every combination of the ranged dims' values (the first
// varying slowest), where dims of different inputs with the same range vary together (one
// sequence length for input_ids and attention_mask). More than kMaxRangeShapes shapes: E10002.
DynamicGears rangeGears(const ShapeRanges& r, const std::string& option, const std::string& text);

// Reads the dynamic option that was given (at most one: E10009), checks it against the
// -1 dims of im.inputShapes (E10004, E10031, E10019, E10035, E10036, E10001). given(name)
// says whether --name was on the command line; value(name) its text.
DynamicGears parseDynamicGears(const std::string& batchText, bool batchGiven, const std::string& imageText,
                               bool imageGiven, const std::string& dimsText, bool dimsGiven,
                               const ImportOptions& im);

// im with every -1 of --input_shape replaced by gear i's values.
ImportOptions gearImportOptions(const ImportOptions& im, const DynamicGears& d, size_t i);

// "batch 4", "image_size 224,224", "dims 1,64": a gear as messages name it.
std::string gearLabel(const DynamicGears& d, size_t i);

}  // namespace atc
