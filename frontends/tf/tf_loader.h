// Reads a frozen TensorFlow GraphDef: binary (.pb) or text format (.pbtxt), detected by
// content (not by the file extension). Throws AtcError E10041 on missing, unreadable,
// truncated or non-GraphDef files.
#pragma once
#include <string>

#include "frontends/tf/tf_graph.pb.h"

namespace atc {
namespace tffe {

void loadGraphDef(const std::string& path, tfproto::GraphDef* out);
// Same, from bytes in memory (tests). `what` names the source in error messages.
void parseGraphDef(const std::string& bytes, const std::string& what, tfproto::GraphDef* out);

}  // namespace tffe
}  // namespace atc
