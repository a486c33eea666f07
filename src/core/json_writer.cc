#include "core/json_writer.h"

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <nlohmann/json.hpp>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace parley {
namespace {

// Length of the well-formed UTF-8 sequence starting at s[i] (a byte >= 0x80), or 0 when it is
// not one (Unicode 15, Table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF) —
// the sequences nlohmann's decoder accepts.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const auto in = [](unsigned b, unsigned lo, unsigned hi) { return b >= lo && b <= hi; };
  const unsigned b0 = byte(i);
  const unsigned b1 = byte(i + 1);
  if (in(b0, 0xC2, 0xDF)) return in(b1, 0x80, 0xBF) ? 2 : 0;
  if (in(b0, 0xE0, 0xEF)) {
    const unsigned lo = b0 == 0xE0 ? 0xA0 : 0x80;
    const unsigned hi = b0 == 0xED ? 0x9F : 0xBF;
    return in(b1, lo, hi) && in(byte(i + 2), 0x80, 0xBF) ? 3 : 0;
  }
  if (in(b0, 0xF0, 0xF4)) {
    const unsigned lo = b0 == 0xF0 ? 0x90 : 0x80;
    const unsigned hi = b0 == 0xF4 ? 0x8F : 0xBF;
    return in(b1, lo, hi) && in(byte(i + 2), 0x80, 0xBF) && in(byte(i + 3), 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

// The escape nlohmann writes for an ASCII control byte, '"' or '\\'.
std::string_view escape_of(unsigned char c) {
  static const std::array<std::string, 128> kEscapes = [] {
    std::array<std::string, 128> escapes;
    for (unsigned control = 0; control < 0x20; ++control) {
      static const char* digits = "0123456789abcdef";
      escapes[control] = std::string("\\u00") + digits[control >> 4] + digits[control & 0xf];
    }
    escapes['\b'] = "\\b";
    escapes['\t'] = "\\t";
    escapes['\n'] = "\\n";
    escapes['\f'] = "\\f";
    escapes['\r'] = "\\r";
    escapes['"'] = "\\\"";
    escapes['\\'] = "\\\\";
    return escapes;
  }();
  return kEscapes[c];
}

// The position of the first byte at or after `i` that is not plain (is_plain_json_byte), or
// text.size(). Most of a reply is plain: with SSE2 (part of every x86-64) it is passed over
// 16 bytes at a time.
std::size_t next_special(std::string_view text, std::size_t i) {
  const char* data = text.data();
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  for (; i + 16 <= text.size(); i += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    // Signed compare: bytes >= 0x80 are negative, so "< 0x20" also catches them.
    const __m128i special = _mm_or_si128(_mm_cmplt_epi8(bytes, space),
                                         _mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)));
    if (const int mask = _mm_movemask_epi8(special); mask != 0) return i + static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(mask)));
  }
#endif
  while (i < text.size() && is_plain_json_byte(static_cast<unsigned char>(data[i]))) ++i;
  return i;
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  const std::size_t start = out.size();
  out += '"';
  std::size_t run = 0;  // start of the bytes not yet appended
  for (std::size_t i = next_special(text, 0); i < text.size(); i = next_special(text, i)) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = utf8_sequence(text, i);
      if (length == 0) {
        // Invalid UTF-8: nlohmann's replacement rules decide which bytes become U+FFFD.
        out.resize(start);
        out += nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return;
      }
      i += length;
    } else {
      out.append(text.data() + run, i - run);
      out += escape_of(c);
      run = ++i;
    }
  }
  out.append(text.data() + run, text.size() - run);
  out += '"';
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (first_.empty()) return;
  if (!first_.back()) out_ += ',';
  first_.back() = 0;
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  out_ += '{';
  first_.push_back(1);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  out_ += '}';
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  separate();
  out_ += '[';
  first_.push_back(1);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  out_ += ']';
  first_.pop_back();
  return *this;
}

void JsonWriter::plain_key(std::string_view name) {
  separate();
  if (name.size() <= 60) {  // one append: the quotes and the colon around the name
    char quoted[64];
    quoted[0] = '"';
    std::memcpy(quoted + 1, name.data(), name.size());
    quoted[name.size() + 1] = '"';
    quoted[name.size() + 2] = ':';
    out_.append(quoted, name.size() + 3);
  } else {
    out_ += '"';
    out_ += name;
    out_ += "\":";
  }
  after_key_ = true;
}

JsonWriter& JsonWriter::key(JsonKey name) {
  plain_key(name.name());
  return *this;
}

JsonWriter& JsonWriter::key_text(std::string_view name) {
  if (next_special(name, 0) == name.size()) {
    plain_key(name);
    return *this;
  }
  separate();
  append_json_string(out_, name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view text) {
  separate();
  append_json_string(out_, text);
  return *this;
}

JsonWriter& JsonWriter::number(std::int64_t value) {
  separate();
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  out_.append(buffer, end);
  return *this;
}

JsonWriter& JsonWriter::number(std::uint64_t value) {
  separate();
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  out_.append(buffer, end);
  return *this;
}

void append_json_double(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  // nlohmann's own shortest round-trip formatting (Grisu2, ".0" on integral values), which
  // its dump() uses for every double.
  std::array<char, 64> buffer;
  char* end = nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
}

JsonWriter& JsonWriter::number(double value) {
  separate();
  append_json_double(out_, value);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool value) {
  separate();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}

}  // namespace parley
