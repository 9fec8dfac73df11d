// atc: compiles an ONNX model into an offline model (.om). See atc/driver.h.
#include <malloc.h>

#include <iostream>

#include "atc/driver.h"

int main(int argc, char** argv) {
  // Weights are freed one tensor at a time as they move through the passes and into the .om
  // image (docs/security.md "Memory and size"). glibc's dynamic mmap threshold would serve
  // tensors of up to 32 MB from the heap after the first one is freed, where freed memory
  // stays mapped: a fixed 1 MB threshold gives every large tensor its own mapping, returned
  // to the system when it is freed.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  return atc::runAtcCommandLine(argc, argv, std::cout);
}
