#pragma once
// Small text helpers shared across stages (answer parsing, judges, metrics). Pure functions.

#include <cctype>
#include <string>
#include <string_view>

namespace parley {

// An ASCII lower-case copy (bytes outside A–Z are kept as they are).
inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace parley
