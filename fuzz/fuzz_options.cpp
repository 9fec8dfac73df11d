// libFuzzer target: the option-file parsers. The first byte picks the parser, the rest is
// the file's text (or the option's value). Expected refusals: AtcError; see fuzz_expected.h.
//   0 --fusion_switch_file   1 --modify_mixlist   2 --keep_dtype   3 --customize_dtypes
//   4 --output_type          5 --input_fp16_nodes 6 --op_precision_mode (ini)
//   7 --input_shape + a dynamic gear option: "SHAPE\nVALUE"; the second byte picks the
//     option (batch, image size, dims) and the input format (default, NCHW, NHWC, ND); every
//     gear's static shape is expanded
#include <cstddef>
#include <cstdint>
#include <string>

#include "atc/dynamic_options.h"
#include "atc/fusion_switch.h"
#include "atc/options.h"
#include "atc/implmode_options.h"
#include "atc/precision_options.h"
#include "fuzz/fuzz_expected.h"
#include "support/diagnostics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text((const char*)data + 1, size - 1);
  try {
    switch (data[0] % 8) {
      case 0: atc::parseFusionSwitchText(text, "fuzz.cfg"); break;
      case 1: atc::parseMixlistText(text, "fuzz.json"); break;
      case 2: atc::parseKeepDtypeText(text, "fuzz.cfg"); break;
      case 3: atc::parseCustomizeDtypesText(text, "fuzz.cfg"); break;
      case 4: atc::parseOutputType(text); break;
      case 5: atc::parseInputFp16Nodes(text); break;
      case 6: {
        atc::ImplModeOptions o;
        atc::parseOpPrecisionIni(text, "fuzz.ini", o);
        break;
      }
      case 7: {
        if (text.empty()) break;
        size_t nl = text.find('\n', 1);
        std::string shape = text.substr(1, nl == std::string::npos ? std::string::npos : nl - 1);
        std::string value = nl == std::string::npos ? std::string() : text.substr(nl + 1);
        const char* options[] = {"dynamic_batch_size", "dynamic_image_size", "dynamic_dims"};
        const char* formats[] = {"", "NCHW", "NHWC", "ND"};
        unsigned pick = (unsigned char)text[0];
        atc::ImportOptions im;
        im.inputFormat = formats[(pick / 3) % 4];
        if (pick >= 128) {  // shape ranges: --input_shape (or ATC's bracketed --input_shape_range)
          atc::ShapeRanges r;
          atc::parseInputShape(shape, im, "", &r, pick & 1 ? "input_shape_range" : "input_shape");
          if (r.dims.empty()) break;
          atc::DynamicGears d = atc::rangeGears(r, "input_shape", shape);
          for (size_t i = 0; i < d.gears.size(); ++i) atc::gearImportOptions(im, d, i);
          break;
        }
        atc::parseInputShape(shape, im, options[pick % 3]);
        atc::DynamicGears d = atc::parseDynamicGears(value, pick % 3 == 0, value, pick % 3 == 1, value, pick % 3 == 2, im);
        for (size_t i = 0; i < d.gears.size(); ++i) atc::gearImportOptions(im, d, i);
        break;
      }
    }
  } catch (const atc::AtcError&) {
  } catch (const std::exception& e) {
    atc::fuzz::unexpectedException(e);
  }
  return 0;
}
