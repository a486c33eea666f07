#include "answer/scan.h"

namespace parley::answer_scan {

bool matches_at(std::string_view s, std::size_t pos, std::string_view word) {
  if (pos > s.size() || s.size() - pos < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (to_lower(s[pos + i]) != word[i]) return false;
  }
  return true;
}

bool word_at(std::string_view s, std::size_t pos, std::string_view word) {
  if (!matches_at(s, pos, word)) return false;
  if (pos > 0 && is_alpha(s[pos - 1])) return false;
  return !is_alpha(at(s, pos + word.size()));
}

std::size_t find_ci(std::string_view s, std::string_view word, std::size_t from) {
  if (word.empty()) return from <= s.size() ? from : std::string_view::npos;
  for (std::size_t i = from; i + word.size() <= s.size(); ++i) {
    if (to_lower(s[i]) == word[0] && matches_at(s, i, word)) return i;
  }
  return std::string_view::npos;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

namespace {
bool is_markup(char c) { return is_space(c) || c == '*' || c == '_' || c == '`' || c == '#' || c == '>'; }
}  // namespace

std::string_view trim_markup(std::string_view s) {
  while (!s.empty() && is_markup(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_markup(s.back())) s.remove_suffix(1);
  return s;
}

bool LineCursor::next() {
  if (done_) return false;
  start_ = next_;
  std::size_t end = start_;
  while (end < text_.size() && text_[end] != '\n') ++end;
  line_ = text_.substr(start_, end - start_);
  if (end >= text_.size()) {
    done_ = true;
  } else {
    next_ = end + 1;
  }
  return true;
}

bool is_confidence_line(std::string_view line) { return find_ci(line, "confiden") != std::string_view::npos; }

std::string_view before_confidence(std::string_view s) {
  const std::size_t pos = find_ci(s, "confiden");
  if (pos == std::string_view::npos) return s;
  s = s.substr(0, pos);
  while (!s.empty() && (is_space(s.back()) || std::string_view("([,;-|*_").find(s.back()) != std::string_view::npos)) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace parley::answer_scan
