// Numeric forecasts (protocols paper §2.3): the number after an "Impact:" label, else the first
// signed percentage in the text.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#include "core/text.h"
#include "parley/answer.h"

namespace parley {
namespace {

std::optional<double> parse_signed_number(std::string_view text) {
  std::string buffer(text.substr(0, 64));
  char* end = nullptr;
  const double value = std::strtod(buffer.c_str(), &end);
  if (end == buffer.c_str() || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace

std::optional<double> parse_forecast(std::string_view text) {
  const std::string lowered = ascii_lower(text);
  if (auto at = lowered.find("impact:"); at != std::string::npos) {
    std::size_t i = at + 7;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (auto value = parse_signed_number(text.substr(i))) return value;
  }
  // First signed percentage: an explicit + or - sign, digits, optional decimals, then '%'.
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '+' && text[i] != '-') continue;
    if (i > 0 && std::isalnum(static_cast<unsigned char>(text[i - 1]))) continue;  // "2-3%" is a range
    std::size_t j = i + 1;
    while (j < text.size() && text[j] == ' ') ++j;
    const std::size_t digits = j;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
    if (j == digits || !std::isdigit(static_cast<unsigned char>(text[digits]))) continue;
    std::size_t k = j;
    while (k < text.size() && text[k] == ' ') ++k;
    if (k < text.size() && text[k] == '%') {
      auto magnitude = parse_signed_number(text.substr(digits, j - digits));
      if (magnitude) return text[i] == '-' ? -*magnitude : *magnitude;
    }
  }
  return std::nullopt;
}

}  // namespace parley
