// libFuzzer target: the option-file parsers. The first byte picks the parser, the rest is
// the file's text (or the option's value). Expected refusals: AtcError; see fuzz_expected.h.
//   0 --fusion_switch_file   1 --modify_mixlist   2 --keep_dtype   3 --customize_dtypes
//   4 --output_type          5 --input_fp16_nodes 6 --op_precision_mode (ini)
#include <cstddef>
#include <cstdint>
#include <string>

#include "atc/fusion_switch.h"
#include "atc/implmode_options.h"
#include "atc/precision_options.h"
#include "fuzz/fuzz_expected.h"
#include "support/diagnostics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text((const char*)data + 1, size - 1);
  try {
    switch (data[0] % 7) {
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
    }
  } catch (const atc::AtcError&) {
  } catch (const std::exception& e) {
    atc::fuzz::unexpectedException(e);
  }
  return 0;
}
