#pragma once
// Small text helpers shared across stages (answer parsing, judges, metrics). Pure functions.

#include <cstddef>
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

// "%3A" -> ":" (URL escapes, either case of hex digit); a malformed escape stays as it is.
inline std::string percent_decoded(std::string_view text) {
  const auto hex = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (text[at] == '%' && at + 2 < text.size() && hex(text[at + 1]) >= 0 && hex(text[at + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(text[at + 1]) * 16 + hex(text[at + 2])));
      at += 2;
    } else {
      out.push_back(text[at]);
    }
  }
  return out;
}

}  // namespace parley
