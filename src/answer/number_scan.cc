#include "answer/number_scan.h"

#include <charconv>
#include <cmath>
#include <string>

#include "answer/scan.h"

namespace parley::answer_scan {
namespace {

constexpr std::string_view kUnicodeMinus = "\xE2\x88\x92";  // U+2212, common in LaTeX-ish output

struct ScaleWord {
  std::string_view word;
  double scale;
};
constexpr ScaleWord kScaleWords[] = {{"thousand", 1e3}, {"million", 1e6}, {"billion", 1e9}, {"trillion", 1e12}};

struct Plain {
  double value = 0.0;
  std::size_t end = 0;
  bool integer = true;  // no decimal point or exponent, so it may start a fraction "3/4"
};

// Unsigned "1,234.5e3" at `i`: digits with optional thousands groups, decimals and exponent.
std::optional<Plain> read_plain(std::string_view s, std::size_t i) {
  std::string digits;
  std::size_t lead = 0;
  while (is_digit(at(s, i))) {
    digits += s[i++];
    ++lead;
  }
  // ",ddd" continues the number only after 1-3 leading digits and when exactly three digits
  // follow, so "1,000,000" is one number and "1,2,3" is three.
  if (lead >= 1 && lead <= 3) {
    while (at(s, i) == ',' && is_digit(at(s, i + 1)) && is_digit(at(s, i + 2)) && is_digit(at(s, i + 3)) &&
           !is_digit(at(s, i + 4))) {
      digits.append(s.substr(i + 1, 3));
      i += 4;
    }
  }
  Plain plain;
  if (at(s, i) == '.' && is_digit(at(s, i + 1))) {
    plain.integer = false;
    digits += s[i++];
    while (is_digit(at(s, i))) digits += s[i++];
  }
  if (digits.empty()) return std::nullopt;
  if (at(s, i) == 'e' || at(s, i) == 'E') {
    std::size_t j = i + 1;
    if (at(s, j) == '+' || at(s, j) == '-') ++j;
    if (is_digit(at(s, j))) {
      std::size_t k = j;
      while (is_digit(at(s, k))) ++k;
      if (!is_alpha(at(s, k))) {  // "3eggs" stays 3
        digits += 'e';
        digits.append(s.substr(i + 1, k - i - 1));
        plain.integer = false;
        i = k;
      }
    }
  }
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), plain.value);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  plain.end = i;
  return plain;
}

std::size_t skip_spaces(std::string_view s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return i;
}

// "{-3}" at `i`: a signed plain number in braces; returns the value and the end.
std::optional<Plain> read_braced(std::string_view s, std::size_t i) {
  i = skip_spaces(s, i);
  if (at(s, i) != '{') return std::nullopt;
  i = skip_spaces(s, i + 1);
  bool negative = false;
  if (at(s, i) == '-' || at(s, i) == '+') negative = s[i++] == '-';
  auto plain = read_plain(s, skip_spaces(s, i));
  if (!plain) return std::nullopt;
  i = skip_spaces(s, plain->end);
  if (at(s, i) != '}') return std::nullopt;
  plain->end = i + 1;
  if (negative) plain->value = -plain->value;
  return plain;
}

// "\frac{a}{b}" (also \dfrac, \tfrac) with `i` on the backslash.
std::optional<Plain> read_latex_fraction(std::string_view s, std::size_t i) {
  std::size_t j = i + 1;
  if (matches_at(s, j, "frac")) {
    j += 4;
  } else if (matches_at(s, j, "dfrac") || matches_at(s, j, "tfrac")) {
    j += 5;
  } else {
    return std::nullopt;
  }
  auto numerator = read_braced(s, j);
  if (!numerator) return std::nullopt;
  auto denominator = read_braced(s, numerator->end);
  if (!denominator || denominator->value == 0.0) return std::nullopt;
  return Plain{numerator->value / denominator->value, denominator->end, false};
}

bool may_start_number(std::string_view s, std::size_t i) {
  const char c = s[i];
  const bool candidate = is_digit(c) || c == '-' || c == '+' || c == '.' || c == '$' || c == '\\' ||
                         matches_at(s, i, kUnicodeMinus);
  if (!candidate) return false;
  if (i == 0) return true;
  const char prev = s[i - 1];
  return !is_alnum(prev) && prev != '_' && prev != '.';
}

}  // namespace

std::optional<NumberToken> read_number(std::string_view text, std::size_t pos) {
  std::size_t i = pos;
  bool negative = false;
  if (at(text, i) == '-' || at(text, i) == '+') {
    negative = text[i++] == '-';
  } else if (matches_at(text, i, kUnicodeMinus)) {
    negative = true;
    i += kUnicodeMinus.size();
  }
  if (at(text, i) == '$') {
    ++i;
  } else if (at(text, i) == '\\' && at(text, i + 1) == '$') {
    i += 2;
  }
  NumberToken token;
  token.begin = pos;
  std::optional<Plain> plain;
  if (at(text, i) == '\\') {
    plain = read_latex_fraction(text, i);
    token.fraction = plain.has_value();
  } else {
    plain = read_plain(text, i);
    if (plain && plain->integer && at(text, plain->end) == '/' && is_digit(at(text, plain->end + 1))) {
      auto denominator = read_plain(text, plain->end + 1);
      if (denominator && denominator->integer && denominator->value != 0.0) {
        plain->value /= denominator->value;
        plain->end = denominator->end;
        token.fraction = true;
      }
    }
  }
  if (!plain) return std::nullopt;
  if (!token.fraction && at(text, plain->end) == ' ') {
    for (const auto& [word, scale] : kScaleWords) {
      if (word_at(text, plain->end + 1, word)) {
        plain->value *= scale;
        plain->end += 1 + word.size();
        break;
      }
    }
  }
  std::size_t end = plain->end;
  if (at(text, end) == '%') {
    end += 1;
    token.percent = true;
  } else if ((at(text, end) == '\\' || at(text, end) == ' ') && at(text, end + 1) == '%') {
    end += 2;  // LaTeX "\%" and "45 %"
    token.percent = true;
  }
  token.value = negative ? -plain->value : plain->value;
  token.end = end;
  if (!std::isfinite(token.value)) return std::nullopt;
  return token;
}

std::optional<NumberToken> next_number(std::string_view text, std::size_t from) {
  for (std::size_t i = from; i < text.size(); ++i) {
    if (!may_start_number(text, i)) continue;
    if (auto token = read_number(text, i)) return token;
  }
  return std::nullopt;
}

}  // namespace parley::answer_scan
