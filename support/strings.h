// String helpers shared by every layer (option parsing, option files, messages).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace atc {

// Removes leading and trailing spaces, tabs, CR and LF.
std::string trim(const std::string& s);
// Every piece between separators, empty ones included ("a;;b;" -> a, "", b, "").
std::vector<std::string> split(const std::string& s, char sep);
// Trimmed, non-empty items of a list separated by any of `seps` (" a, b;c" -> a, b, c).
std::vector<std::string> splitList(const std::string& s, const char* seps = ",;");
// "a, b, c".
std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");
// "1,3,224,224" (dims, gear values).
std::string joinInts(const std::vector<int64_t>& v, const std::string& sep = ",");
std::string toLower(std::string s);
bool startsWith(const std::string& s, const std::string& prefix);
bool endsWith(const std::string& s, const std::string& suffix);
// A decimal integer with an optional sign and at most 18 digits, surrounding blanks allowed.
bool parseInt64(const std::string& s, int64_t* out);

}  // namespace atc
