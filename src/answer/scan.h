#pragma once
// Byte-level text helpers shared by the answer parsers: ASCII character classes (safe for any
// byte, unlike <cctype> on negative chars), case-insensitive matching, trimming and line
// walking. Internal to src/answer; everything works on string_views into the caller's text.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace parley::answer_scan {

// The classes are looked up in tables by byte: the scanners ask at almost every byte, and a
// lookup costs less than a chain of comparisons.
namespace byte_class {
inline constexpr unsigned char kDigit = 1, kLower = 2, kUpper = 4, kSpace = 8;
inline constexpr auto kTable = [] {
  struct Tables {
    unsigned char classes[256] = {};
    char lower[256] = {};
  } t;
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    t.lower[b] = c;
    if (c >= '0' && c <= '9') t.classes[b] = kDigit;
    if (c >= 'a' && c <= 'z') t.classes[b] = kLower;
    if (c >= 'A' && c <= 'Z') {
      t.classes[b] = kUpper;
      t.lower[b] = static_cast<char>(c - 'A' + 'a');
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') t.classes[b] = kSpace;
  }
  return t;
}();
inline unsigned char of(char c) { return kTable.classes[static_cast<unsigned char>(c)]; }
}  // namespace byte_class

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_alpha(char c) { return byte_class::of(c) & (byte_class::kLower | byte_class::kUpper); }
inline bool is_alnum(char c) { return byte_class::of(c) & (byte_class::kDigit | byte_class::kLower | byte_class::kUpper); }
inline bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool is_space(char c) { return byte_class::of(c) & byte_class::kSpace; }
inline char to_lower(char c) { return byte_class::kTable.lower[static_cast<unsigned char>(c)]; }
inline char to_upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

// Position of the first byte at or after `from` that is one of `bytes` (a few), or npos. With
// SSE2 (part of every x86-64) 16 bytes are compared at a time, so scans for rare bytes (sentence
// ends, signs, a word's first letter) do not stop at every byte.
template <std::size_t N>
std::size_t find_byte_of(std::string_view s, std::size_t from, const char (&bytes)[N]) {
  const char* data = s.data();
  std::size_t i = from;
#if defined(__SSE2__)
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    __m128i found = _mm_setzero_si128();
    for (char b : bytes) found = _mm_or_si128(found, _mm_cmpeq_epi8(block, _mm_set1_epi8(b)));
    if (const int mask = _mm_movemask_epi8(found); mask != 0)
      return i + static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < s.size(); ++i) {
    for (char b : bytes)
      if (data[i] == b) return i;
  }
  return std::string_view::npos;
}

// Byte at `i`, or '\0' past the end; lets scanners peek ahead without bounds checks.
inline char at(std::string_view s, std::size_t i) { return i < s.size() ? s[i] : '\0'; }

// True when `s` has `word` (lower-case ASCII) at `pos`, ignoring case. Inline: every scanner
// calls these at almost every byte.
inline bool matches_at(std::string_view s, std::size_t pos, std::string_view word) {
  if (pos > s.size() || s.size() - pos < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (to_lower(s[pos + i]) != word[i]) return false;
  }
  return true;
}

// Like matches_at, and the match is a whole word (no letter on either side).
inline bool word_at(std::string_view s, std::size_t pos, std::string_view word) {
  if (pos > 0 && pos <= s.size() && is_alpha(s[pos - 1])) return false;
  if (!matches_at(s, pos, word)) return false;
  return !is_alpha(at(s, pos + word.size()));
}

// Position of the first case-insensitive occurrence of `word` (lower-case) at or after `from`.
std::size_t find_ci(std::string_view s, std::string_view word, std::size_t from = 0);

std::string_view trim(std::string_view s);

// Trims whitespace and Markdown decoration (*, _, `, #, >) from both ends.
std::string_view trim_markup(std::string_view s);

// Walks lines front to back: `for (LineCursor c(text); c.next();) use(c.line());`
class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : text_(text) {}
  bool next();
  std::string_view line() const { return line_; }

 private:
  std::string_view text_;
  std::string_view line_;
  std::size_t start_ = 0;
  std::size_t next_ = 0;
  bool done_ = false;
};

// [begin, end) byte offsets into a text.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool contains(std::size_t pos) const { return pos >= begin && pos < end; }
};

// The part of a reply that answers. A reasoning model's "<think>...</think>" block is its
// scratchpad: the reply is the text after the last "</think>" (also when the opening tag is
// missing, as some chat templates emit), and nothing at all when a "<think>" is never closed
// (the reply was cut off while thinking). A reply without the tags is all visible.
std::string_view visible_reply(std::string_view text);

// Sentences of `text`, in order: a sentence ends at a line break, or after '.', '!' or '?'
// followed by white space or the end ("3.5" and "e.g.x" do not end one). Spans are trimmed of
// surrounding white space; empty ones are left out.
std::vector<Span> sentence_spans(std::string_view text);

// Copy of `text` with the bytes of `spans` turned into spaces (line breaks kept), so that
// offsets stay valid while the blanked words are no longer read.
void blank_spans(std::string& text, const std::vector<Span>& spans);

}  // namespace parley::answer_scan
