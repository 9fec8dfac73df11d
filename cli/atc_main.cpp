// atc: compiles an ONNX model into an offline model (.om). See atc/driver.h.
#include <iostream>

#include "atc/driver.h"

int main(int argc, char** argv) { return atc::runAtcCommandLine(argc, argv, std::cout); }
