// atc-opt: runs named passes on an IR text file and prints the IR (atc/atc_opt.h).
#include <iostream>

#include "atc/atc_opt.h"

int main(int argc, char** argv) { return atc::runAtcOptCommandLine(argc, argv, std::cout, std::cerr); }
