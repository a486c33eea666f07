#pragma once
// Small text helpers shared across stages (answer parsing, judges, metrics). Pure functions.

#include <string>
#include <string_view>

namespace parley {

// `c` lower-cased if it is A–Z, else as it is (never the locale's idea of a letter).
inline char ascii_lower_char(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// An ASCII lower-case copy (bytes outside A–Z are kept as they are).
inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = ascii_lower_char(c);
  return out;
}

}  // namespace parley
