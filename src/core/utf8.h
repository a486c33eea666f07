#pragma once
// UTF-8 well-formedness, as the Unicode standard defines it (shortest form, no surrogates, at
// most U+10FFFF): for repairing a server's reply (src/llm/openai_json.cc) and refusing a request
// body (src/gateway/chat_api.cc). Pure functions.

#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace parley {

// The length of the UTF-8 sequence at text[at] and whether it is valid. An invalid one's length
// is its longest valid prefix (at least 1 byte), so that each broken sequence can become one
// U+FFFD, as the Unicode standard recommends.
inline std::pair<std::size_t, bool> utf8_sequence(std::string_view text, std::size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  if (lead < 0x80) return {1, true};
  std::size_t continuation = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range allowed for the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    continuation = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    continuation = 2;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;  // U+D800..U+DFFF are surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    continuation = 3;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return {1, false};
  }
  for (std::size_t k = 1; k <= continuation; ++k) {
    if (at + k >= text.size()) return {k, false};
    const auto byte = static_cast<unsigned char>(text[at + k]);
    if (byte < (k == 1 ? low : 0x80) || byte > (k == 1 ? high : 0xBF)) return {k, false};
  }
  return {continuation + 1, true};
}

// The offset of the first byte not part of well-formed UTF-8; nullopt when the text is.
inline std::optional<std::size_t> invalid_utf8_at(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const auto [length, valid] = utf8_sequence(text, at);
    if (!valid) return at;
    at += length;
  }
  return std::nullopt;
}

}  // namespace parley
