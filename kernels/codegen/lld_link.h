// Links ELF objects into one shared object with lld used as a library.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace atc {

// Objects are linked in the given order; the result is deterministic for the same input.
// Undefined symbols (memcpy, expf...) are left for the loading process to resolve.
// Throws AtcError E20001 on failure.
// aliases: (exported symbol, defined symbol) pairs, added with --defsym (entries in the
// kernel cache are named by their key; the model's symbols are aliases of them).
std::vector<uint8_t> linkSharedObject(const std::vector<std::vector<uint8_t>>& objects,
                                      const std::vector<std::pair<std::string, std::string>>& aliases = {});

}  // namespace atc
