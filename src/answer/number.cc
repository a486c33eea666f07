// parse_number and canonical_number. A number comes from the last answer statement that holds
// one ("#### 72", "\boxed{\frac{1}{2}}", "Answer: $1,234.50"), else from the last number in
// the text outside confidence lines.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "answer/number_scan.h"
#include "answer/scan.h"
#include "answer/statements.h"
#include "parley/answer.h"

namespace parley {
namespace {

using answer_scan::next_number;

constexpr std::string_view kApprox = "\xE2\x89\x88";  // U+2248

// "3 + 4 = 7 apples" states its result after the last '=' (or '≈'); otherwise the first
// number is the answer ("72 apples (from 8 boxes)").
std::optional<double> number_in_payload(std::string_view payload) {
  payload = answer_scan::before_confidence(payload);
  std::size_t result_at = payload.rfind('=');
  if (const std::size_t approx = payload.rfind(kApprox); approx != std::string_view::npos) {
    if (result_at == std::string_view::npos || approx > result_at) result_at = approx + kApprox.size() - 1;
  }
  if (result_at != std::string_view::npos) {
    if (auto token = next_number(payload, result_at + 1)) return token->value;
  }
  if (auto token = next_number(payload, 0)) return token->value;
  return std::nullopt;
}

}  // namespace

std::optional<double> parse_number(std::string_view text) {
  const auto statements = answer_scan::find_answer_statements(text);
  for (auto it = statements.rbegin(); it != statements.rend(); ++it) {
    if (auto value = number_in_payload(it->payload)) return value;
  }
  std::optional<double> last;
  for (answer_scan::LineCursor cursor(text); cursor.next();) {
    const std::string_view line = cursor.line();
    if (answer_scan::is_confidence_line(line)) continue;
    for (auto token = next_number(line, 0); token; token = next_number(line, token->end)) last = token->value;
  }
  return last;
}

std::string canonical_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  // Six decimals; below 1, enough decimals to keep six significant digits (0.000123457).
  int decimals = 6;
  if (value != 0.0 && std::fabs(value) < 1.0) {
    const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(value))));
    decimals = std::min(6 - exponent - 1, 20);
  }
  char buffer[400];  // the longest fixed double is 309 integer digits plus sign and decimals
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
  if (ec != std::errc()) return "nan";
  std::string_view out(buffer, static_cast<std::size_t>(end - buffer));
  if (out.find('.') != std::string_view::npos) {
    while (out.back() == '0') out.remove_suffix(1);
    if (out.back() == '.') out.remove_suffix(1);
  }
  if (out == "-0") return "0";
  return std::string(out);
}

}  // namespace parley
