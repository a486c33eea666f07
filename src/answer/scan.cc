#include "answer/scan.h"

#include <algorithm>
#include <array>

namespace parley::answer_scan {

std::size_t find_ci(std::string_view s, std::string_view word, std::size_t from) {
  if (word.empty()) return from <= s.size() ? from : std::string_view::npos;
  const char first = word[0];
  if (from > s.size() || s.size() - from < word.size()) return std::string_view::npos;
  const std::size_t last = s.size() - word.size();
  if (is_alpha(first)) {
    const char cases[] = {first, static_cast<char>(first - 'a' + 'A')};
    for (std::size_t i = find_byte_of(s, from, cases); i != std::string_view::npos && i <= last;
         i = find_byte_of(s, i + 1, cases)) {
      if (matches_at(s, i, word)) return i;
    }
    return std::string_view::npos;
  }
  for (std::size_t i = from; i <= last; ++i) {
    if (to_lower(s[i]) == first && matches_at(s, i, word)) return i;
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
  std::size_t end = std::min(text_.find('\n', start_), text_.size());
  line_ = text_.substr(start_, end - start_);
  if (end >= text_.size()) {
    done_ = true;
  } else {
    next_ = end + 1;
  }
  return true;
}

std::string_view visible_reply(std::string_view text) {
  constexpr std::string_view kOpen = "<think>";
  constexpr std::string_view kClose = "</think>";
  if (text.find('<') == std::string_view::npos) return text;  // no tag at all: the usual reply
  if (const std::size_t close = text.rfind(kClose); close != std::string_view::npos) {
    text.remove_prefix(close + kClose.size());
  }
  // An opening tag left in what remains was never closed: all of it is unfinished thinking.
  if (text.find(kOpen) != std::string_view::npos) return text.substr(0, 0);
  return text;
}

std::vector<Span> sentence_spans(std::string_view text) {
  std::vector<Span> out;
  out.reserve(text.size() / 32 + 2);  // sentences run longer than 32 bytes: one allocation, not five
  const char* bytes = text.data();  // locals, so the scan keeps them in registers
  const std::size_t size = text.size();
  auto add = [&](std::size_t begin, std::size_t end) {
    while (begin < end && is_space(bytes[begin])) ++begin;
    while (end > begin && is_space(bytes[end - 1])) --end;
    if (begin < end) out.push_back({begin, end});
  };
  static constexpr char kEnds[] = {'\n', '.', '!', '?'};
  std::size_t start = 0;
  for (std::size_t i = find_byte_of(text, 0, kEnds); i != std::string_view::npos; i = find_byte_of(text, i + 1, kEnds)) {
    const char c = bytes[i];
    if (c == '\n') {
      add(start, i);
      start = i + 1;
    } else if (i + 1 == size || is_space(bytes[i + 1])) {  // '.', '!' or '?' before a space or the end
      add(start, i + 1);
      start = i + 1;
    }
  }
  add(start, size);
  return out;
}

void blank_spans(std::string& text, const std::vector<Span>& spans) {
  for (const Span& span : spans) {
    for (std::size_t i = span.begin; i < span.end && i < text.size(); ++i) {
      if (text[i] != '\n') text[i] = ' ';
    }
  }
}

}  // namespace parley::answer_scan
