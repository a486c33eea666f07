// Word tokenizer for the iMAD features (App. A.2, Table 5: QuestionToken, AnswerToken, and the
// word counts behind readability, lexical cues and entities). Rules in docs/features.md.

#include "features/tokens.h"

#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"
#include "parley/features.h"

namespace parley {
namespace features {
namespace {

unsigned char byte_at(std::string_view text, std::size_t i) {
  return i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
}

bool is_continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// Classifies a decoded non-ASCII code point: a few common spaces and punctuation marks, else a letter
// (accented Latin, Greek, CJK... are letters for counting purposes).
CharKind classify_code_point(char32_t cp) {
  if (cp == 0x00A0 || (cp >= 0x2000 && cp <= 0x200B) || cp == 0x202F || cp == 0x3000 || cp == 0xFEFF) {
    return CharKind::kSpace;
  }
  if (cp == 0x2019) return CharKind::kApostrophe;              // ’ (also a closing quote)
  if (cp == 0x2010 || cp == 0x2011) return CharKind::kHyphen;  // ‐ ‑
  if ((cp >= 0x2012 && cp <= 0x205E) || cp == 0x00AB || cp == 0x00BB || cp == 0x00B7 || cp == 0x00BF ||
      cp == 0x00A1 || cp == 0x00B0 || cp == 0x00A7 || cp == 0x00B6 || cp == 0x00D7 || cp == 0x00F7 ||
      (cp >= 0x3001 && cp <= 0x3011) || (cp >= 0xFF01 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20)) {
    return CharKind::kPunct;  // dashes, quotes, bullets, ellipsis, guillemets, ¿ ¡ ° § ¶ × ÷, CJK marks
  }
  if ((cp >= 0x2190 && cp <= 0x2BFF) || (cp >= 0x1F000 && cp <= 0x1FAFF)) return CharKind::kPunct;  // symbols
  return CharKind::kLetter;
}

}  // namespace

Char char_at(std::string_view text, std::size_t i) {
  const unsigned char b = byte_at(text, i);
  if (b < 0x80) {
    if (b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v' || b < 0x20 || b == 0x7F) {
      return {CharKind::kSpace, 1};
    }
    if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')) return {CharKind::kLetter, 1};
    if (b >= '0' && b <= '9') return {CharKind::kDigit, 1};
    if (b == '\'') return {CharKind::kApostrophe, 1};
    if (b == '-') return {CharKind::kHyphen, 1};
    return {CharKind::kPunct, 1};
  }
  std::size_t length = 0;
  char32_t cp = 0;
  if (b >= 0xC2 && b <= 0xDF) {
    length = 2;
    cp = b & 0x1F;
  } else if (b >= 0xE0 && b <= 0xEF) {
    length = 3;
    cp = b & 0x0F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    length = 4;
    cp = b & 0x07;
  } else {
    return {CharKind::kSpace, 1};  // stray continuation or invalid lead byte
  }
  for (std::size_t k = 1; k < length; ++k) {
    const unsigned char c = byte_at(text, i + k);
    if (!is_continuation(c)) return {CharKind::kSpace, 1};  // truncated sequence
    cp = (cp << 6) | (c & 0x3F);
  }
  if ((length == 3 && cp < 0x800) || (length == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    return {CharKind::kSpace, 1};  // overlong form or surrogate
  }
  return {classify_code_point(cp), length};
}

std::vector<TokenSpan> token_spans(std::string_view text) {
  std::vector<TokenSpan> out;
  const auto alnum = [](CharKind k) { return k == CharKind::kLetter || k == CharKind::kDigit; };
  std::size_t i = 0;
  while (i < text.size()) {
    const Char c = char_at(text, i);
    if (c.kind == CharKind::kSpace) {
      i += c.length;
      continue;
    }
    if (!alnum(c.kind)) {  // punctuation, or an apostrophe/hyphen outside a word: one token each
      out.push_back({i, i + c.length});
      i += c.length;
      continue;
    }
    const std::size_t begin = i;
    CharKind last = c.kind;
    i += c.length;
    while (i < text.size()) {
      const Char next = char_at(text, i);
      if (alnum(next.kind)) {
        last = next.kind;
        i += next.length;
        continue;
      }
      // Joiners: ' and - between two word characters; . and , between two digits.
      const bool joiner = next.kind == CharKind::kApostrophe || next.kind == CharKind::kHyphen;
      const bool digit_joiner = last == CharKind::kDigit && (text[i] == '.' || text[i] == ',');
      if ((joiner || digit_joiner) && i + next.length < text.size()) {
        const Char after = char_at(text, i + next.length);
        if ((joiner && alnum(after.kind)) || (digit_joiner && after.kind == CharKind::kDigit)) {
          last = after.kind;
          i += next.length + after.length;
          continue;
        }
      }
      break;
    }
    out.push_back({begin, i});
  }
  return out;
}

bool is_word(std::string_view token) {
  for (std::size_t i = 0; i < token.size();) {
    const Char c = char_at(token, i);
    if (c.kind == CharKind::kLetter || c.kind == CharKind::kDigit) return true;
    i += c.length;
  }
  return false;
}

std::string fold_token(std::string_view token) {
  std::string out = ascii_lower(token);
  for (std::size_t pos = out.find("\xE2\x80\x99"); pos != std::string::npos;
       pos = out.find("\xE2\x80\x99", pos)) {
    out.replace(pos, 3, "'");
  }
  return out;
}

}  // namespace features

std::vector<std::string> word_tokens(std::string_view text) {
  std::vector<std::string> out;
  for (const features::TokenSpan& span : features::token_spans(text)) {
    out.emplace_back(text.substr(span.begin, span.end - span.begin));
  }
  return out;
}

}  // namespace parley
