#include "support/strings.h"

#include <cctype>
#include <cstring>

namespace atc {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> r;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      r.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  r.push_back(cur);
  return r;
}

std::vector<std::string> splitList(const std::string& s, const char* seps) {
  std::vector<std::string> r;
  std::string cur;
  auto flush = [&] {
    std::string t = trim(cur);
    if (!t.empty()) r.push_back(t);
    cur.clear();
  };
  for (char c : s) {
    if (std::strchr(seps, c)) flush();
    else cur += c;
  }
  flush();
  return r;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string r;
  for (size_t i = 0; i < items.size(); ++i) r += (i ? sep : "") + items[i];
  return r;
}

std::string joinInts(const std::vector<int64_t>& v, const std::string& sep) {
  std::string r;
  for (size_t i = 0; i < v.size(); ++i) r += (i ? sep : "") + std::to_string(v[i]);
  return r;
}

std::string toLower(std::string s) {
  for (auto& c : s) c = (char)std::tolower((unsigned char)c);
  return s;
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool parseInt64(const std::string& s, int64_t* out) {
  std::string t = trim(s);
  if (t.empty()) return false;
  size_t i = (t[0] == '-' || t[0] == '+') ? 1 : 0;
  if (i == t.size()) return false;
  for (size_t j = i; j < t.size(); ++j)
    if (!std::isdigit((unsigned char)t[j])) return false;
  if (t.size() - i > 18) return false;
  *out = std::stoll(t);
  return true;
}

}  // namespace atc
