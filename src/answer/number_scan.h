#pragma once
// Number tokens in model text: "1,234.5", "1{,}250", "-3", "$12", "3/4", "\frac{3}{4}", "45%",
// "2e-3", "3.2 \times 10^{5}", "2^{10}", "1.5 million", "1.5k", "$2.4M".
// Used by parse_number, parse_confidence and parse_beliefs; internal to src/answer.
// Scanning is linear in the text and never reads past its end.

#include <cstddef>
#include <optional>
#include <string_view>

namespace parley::answer_scan {

struct NumberToken {
  double value = 0.0;     // as written: "45%" is 45, "3/4" is 0.75
  std::size_t begin = 0;  // first byte of the token (sign, '$', '\' or digit)
  std::size_t end = 0;    // one past the last byte, including a trailing '%'
  bool percent = false;
  bool fraction = false;  // written as a/b or \frac{a}{b}
};

// Reads a number that starts exactly at `pos`; nullopt when none does or it is not finite.
std::optional<NumberToken> read_number(std::string_view text, std::size_t pos);

// The first number starting at or after `from`. Digits glued to a preceding letter ("H2O",
// "x2") are not numbers, and '-' is a sign only where it cannot be a hyphen ("10-15" is two
// positive numbers). Iterate with `for (auto t = next_number(s, 0); t; t = next_number(s, t->end))`.
std::optional<NumberToken> next_number(std::string_view text, std::size_t from);

}  // namespace parley::answer_scan
