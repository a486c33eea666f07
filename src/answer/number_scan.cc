#include "answer/number_scan.h"

#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>
#include <algorithm>

#include "answer/scan.h"

namespace parley::answer_scan {
namespace {

constexpr std::string_view kUnicodeMinus = "\xE2\x88\x92";  // U+2212, common in LaTeX-ish output

struct ScaleWord {
  std::string_view word;
  double scale;
};
constexpr ScaleWord kScaleWords[] = {{"thousand", 1e3}, {"million", 1e6}, {"billion", 1e9}, {"trillion", 1e12}};
// Magnitude suffixes glued to the number ("1.5k", "$2.4M", "3bn"); a letter right after makes it
// a unit instead ("5km", "2MB").
constexpr ScaleWord kScaleSuffixes[] = {{"bn", 1e9}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"B", 1e9}};
// Thousands separators: ',' and the ones LaTeX and typography use ("1{,}250", "12\\,500", thin
// and narrow no-break spaces).
constexpr std::string_view kGroupSeparators[] = {",", "{,}", "\\,", "\xE2\x80\x89", "\xE2\x80\xAF"};
// Multiplication signs of scientific notation: "3.2 \\times 10^{5}", "1.5*10^6", and the
// multiplication sign and middle dot of Unicode text.
constexpr std::string_view kTimes[] = {"\\times", "\\cdot", "\xC3\x97", "\xC2\xB7", "*", "x"};
// Superscript digits 0-9 and the superscript minus and plus, as UTF-8.
constexpr std::string_view kSuperscriptDigits[] = {"\xE2\x81\xB0", "\xC2\xB9",     "\xC2\xB2",     "\xC2\xB3",
                                                   "\xE2\x81\xB4", "\xE2\x81\xB5", "\xE2\x81\xB6", "\xE2\x81\xB7",
                                                   "\xE2\x81\xB8", "\xE2\x81\xB9"};
constexpr std::string_view kSuperscriptMinus = "\xE2\x81\xBB";
constexpr std::string_view kSuperscriptPlus = "\xE2\x81\xBA";
// Unicode vulgar fractions, alone ("¾" is 0.75) or after an integer ("2½" is 2.5).
struct VulgarFraction {
  std::string_view utf8;
  double value;
};
constexpr VulgarFraction kVulgarFractions[] = {
    {"\xC2\xBC", 1.0 / 4},     {"\xC2\xBD", 1.0 / 2},     {"\xC2\xBE", 3.0 / 4},
    {"\xE2\x85\x90", 1.0 / 7}, {"\xE2\x85\x91", 1.0 / 9}, {"\xE2\x85\x92", 1.0 / 10},
    {"\xE2\x85\x93", 1.0 / 3}, {"\xE2\x85\x94", 2.0 / 3}, {"\xE2\x85\x95", 1.0 / 5},
    {"\xE2\x85\x96", 2.0 / 5}, {"\xE2\x85\x97", 3.0 / 5}, {"\xE2\x85\x98", 4.0 / 5},
    {"\xE2\x85\x99", 1.0 / 6}, {"\xE2\x85\x9A", 5.0 / 6}, {"\xE2\x85\x9B", 1.0 / 8},
    {"\xE2\x85\x9C", 3.0 / 8}, {"\xE2\x85\x9D", 5.0 / 8}, {"\xE2\x85\x9E", 7.0 / 8}};
constexpr int kMaxExponent = 400;  // beyond any finite double either way

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
  // A separator and "ddd" continue the number only after 1-3 leading digits and when exactly
  // three digits follow, so "1,000,000" is one number and "1,2,3" is three.
  if (lead >= 1 && lead <= 3) {
    for (bool more = true; more;) {
      more = false;
      for (std::string_view separator : kGroupSeparators) {
        const std::size_t g = i + separator.size();
        if (matches_at(s, i, separator) && is_digit(at(s, g)) && is_digit(at(s, g + 1)) && is_digit(at(s, g + 2)) &&
            !is_digit(at(s, g + 3))) {
          digits.append(s.substr(g, 3));
          i = g + 3;
          more = true;
          break;
        }
      }
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

std::optional<VulgarFraction> vulgar_fraction_at(std::string_view s, std::size_t i) {
  for (const VulgarFraction& fraction : kVulgarFractions) {
    if (matches_at(s, i, fraction.utf8)) return fraction;
  }
  return std::nullopt;
}

// "2½", "2 ½" (one space) or "½" at `i`: a whole number and a vulgar fraction.
std::optional<Plain> read_mixed_vulgar(std::string_view s, std::size_t i, const std::optional<Plain>& whole) {
  if (!whole) {
    const auto fraction = vulgar_fraction_at(s, i);
    if (!fraction) return std::nullopt;
    return Plain{fraction->value, i + fraction->utf8.size(), false};
  }
  if (!whole->integer) return std::nullopt;
  const std::size_t at_fraction = at(s, whole->end) == ' ' ? whole->end + 1 : whole->end;
  const auto fraction = vulgar_fraction_at(s, at_fraction);
  if (!fraction) return std::nullopt;
  return Plain{whole->value + fraction->value, at_fraction + fraction->utf8.size(), false};
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

// A signed integer exponent at `i`: "^{-3}", "^-3", "^3", or superscript digits (with an optional
// superscript minus) right after the base. Returns the exponent and where it ends.
std::optional<std::pair<int, std::size_t>> read_exponent(std::string_view s, std::size_t i) {
  int sign = 1;
  int value = 0;
  std::size_t j = i;
  std::size_t digits = 0;
  auto accumulate = [&](int digit) {
    value = std::min(kMaxExponent, value * 10 + digit);
    ++digits;
  };
  if (at(s, i) == '^') {
    const bool braced = at(s, i + 1) == '{';
    j = skip_spaces(s, i + 1 + (braced ? 1 : 0));
    if (at(s, j) == '-' || at(s, j) == '+') sign = s[j++] == '-' ? -1 : 1;
    while (is_digit(at(s, j))) accumulate(s[j++] - '0');
    if (braced) {
      j = skip_spaces(s, j);
      if (at(s, j) != '}') return std::nullopt;
      ++j;
    }
  } else {
    if (matches_at(s, j, kSuperscriptMinus)) {
      sign = -1;
      j += kSuperscriptMinus.size();
    } else if (matches_at(s, j, kSuperscriptPlus)) {
      j += kSuperscriptPlus.size();
    }
    for (bool more = true; more;) {
      more = false;
      for (int d = 0; d < 10; ++d) {
        if (matches_at(s, j, kSuperscriptDigits[d])) {
          accumulate(d);
          j += kSuperscriptDigits[d].size();
          more = true;
          break;
        }
      }
    }
  }
  if (digits == 0 || is_digit(at(s, j)) || at(s, j) == '.') return std::nullopt;  // "2^{0.5}": not an integer power
  return std::make_pair(sign * value, j);
}

// After a plain number ending at `i`: "^{10}" (a power of it) or "\\times 10^{5}" (scientific
// notation). Updates the value and end; false when neither follows.
bool read_power_or_scientific(std::string_view s, Plain& plain) {
  if (auto exponent = read_exponent(s, plain.end)) {
    plain.value = std::pow(plain.value, exponent->first);
    plain.end = exponent->second;
    plain.integer = false;
    return true;
  }
  const std::size_t sign_at = skip_spaces(s, plain.end);
  for (std::string_view times : kTimes) {
    if (!matches_at(s, sign_at, times)) continue;
    const std::size_t ten = skip_spaces(s, sign_at + times.size());
    if (at(s, ten) != '1' || at(s, ten + 1) != '0') return false;
    const auto exponent = read_exponent(s, ten + 2);
    if (!exponent) return false;
    // Dividing by an exact power of ten rounds once: 1.2 / 1000 is the double nearest 0.0012.
    const int e = exponent->first;
    plain.value = e < 0 ? plain.value / std::pow(10.0, -e) : plain.value * std::pow(10.0, e);
    plain.end = exponent->second;
    plain.integer = false;
    return true;
  }
  return false;
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

bool may_start_vulgar(std::string_view s, std::size_t i) {
  return vulgar_fraction_at(s, i).has_value() && (i == 0 || !is_alnum(s[i - 1]));
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
    if (auto mixed = read_mixed_vulgar(text, i, plain)) {
      plain = mixed;
      token.fraction = true;
    } else if (plain && plain->integer && at(text, plain->end) == '/' && is_digit(at(text, plain->end + 1))) {
      auto denominator = read_plain(text, plain->end + 1);
      if (denominator && denominator->integer && denominator->value != 0.0) {
        plain->value /= denominator->value;
        plain->end = denominator->end;
        token.fraction = true;
      }
    }
  }
  if (!plain) return std::nullopt;
  if (!token.fraction && !read_power_or_scientific(text, *plain)) {
    for (const auto& [suffix, scale] : kScaleSuffixes) {
      if (text.substr(std::min(plain->end, text.size())).starts_with(suffix) &&
          !is_alnum(at(text, plain->end + suffix.size()))) {
        plain->value *= scale;
        plain->end += suffix.size();
        break;
      }
    }
    if (at(text, plain->end) == ' ') {
      for (const auto& [word, scale] : kScaleWords) {
        if (word_at(text, plain->end + 1, word)) {
          plain->value *= scale;
          plain->end += 1 + word.size();
          break;
        }
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
  // The first bytes of what may_start_number and may_start_vulgar accept: prose is passed over
  // a byte at a time without trying either.
  static const std::array<bool, 256> kFirstBytes = [] {
    std::array<bool, 256> first{};
    for (char c : std::string_view("0123456789-+.$\\")) first[static_cast<unsigned char>(c)] = true;
    first[static_cast<unsigned char>(kUnicodeMinus[0])] = true;
    for (const VulgarFraction& fraction : kVulgarFractions) first[static_cast<unsigned char>(fraction.utf8[0])] = true;
    return first;
  }();
  for (std::size_t i = from; i < text.size(); ++i) {
    if (!kFirstBytes[static_cast<unsigned char>(text[i])]) continue;
    if (!may_start_number(text, i) && !may_start_vulgar(text, i)) continue;
    if (auto token = read_number(text, i)) return token;
  }
  return std::nullopt;
}

}  // namespace parley::answer_scan
