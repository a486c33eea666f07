// DatasetBuilder and the text helpers shared by the format readers.

#include <cctype>
#include <charconv>
#include <cmath>

#include "data/readers.h"

namespace parley::data {

void DatasetBuilder::add(Task task, int line) {
  const auto [first, inserted] = line_of_id_.emplace(task.id, line);
  if (!inserted) {
    issue(line, "duplicate id '" + task.id + "' (first used on line " + std::to_string(first->second) + ")");
    return;
  }
  dataset_.tasks.push_back(std::move(task));
}

void DatasetBuilder::issue(int line, std::string message) {
  dataset_.issues.push_back(DatasetIssue{line, std::move(message)});
}

std::vector<NumberedLine> non_blank_lines(std::string_view text) {
  constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
  if (text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());
  std::vector<NumberedLine> lines;
  int number = 0;
  while (!text.empty()) {
    ++number;
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (!trim(line).empty()) lines.push_back({number, line});
  }
  return lines;
}

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::optional<double> parse_plain_number(std::string_view text) {
  text = trim(text);
  std::string digits;  // the number without '+' and thousands commas, for from_chars
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    if (text[i] == '-') digits.push_back('-');
    ++i;
  }
  const auto is_digit = [&](std::size_t at) {
    return at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0;
  };
  bool any_digit = false;
  for (; i < text.size(); ++i) {
    if (is_digit(i)) {
      digits.push_back(text[i]);
      any_digit = true;
    } else if (text[i] == ',' && any_digit && is_digit(i + 1)) {
      continue;
    } else {
      break;
    }
  }
  if (i < text.size() && text[i] == '.') {
    digits.push_back('.');
    for (++i; is_digit(i); ++i) {
      digits.push_back(text[i]);
      any_digit = true;
    }
  }
  if (!any_digit) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    digits.push_back('e');
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) digits.push_back(text[i++]);
    if (!is_digit(i)) return std::nullopt;
    for (; is_digit(i); ++i) digits.push_back(text[i]);
  }
  if (i != text.size()) return std::nullopt;

  double value = 0.0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace parley::data
