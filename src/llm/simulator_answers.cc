// Plausible wrong answers per answer type (docs/simulator.md, "Wrong answers").
#include "llm/simulator_answers.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

#include "parley/answer.h"
#include "core/hash.h"
#include "parley/labels.h"

namespace parley::sim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::optional<double> parse_plain_number(std::string_view text) {
  std::string digits;
  for (char c : trim(text))
    if (c != ',') digits.push_back(c);
  if (!digits.empty() && digits.front() == '+') digits.erase(0, 1);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

bool numbers_equal(double a, double b) {
  const double scale = std::max(std::fabs(a), std::fabs(b));
  return std::fabs(a - b) <= (scale < 1e-3 ? 1e-9 : 1e-6 * scale);
}

bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Lower-case words of letters and digits, without articles, joined by single spaces.
std::string normalized(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !is_alnum(text[i])) ++i;
    std::size_t j = i;
    while (j < text.size() && is_alnum(text[j])) ++j;
    if (j > i) {
      std::string word;
      for (std::size_t k = i; k < j; ++k) word.push_back(lower(text[k]));
      if (word != "a" && word != "an" && word != "the") {
        if (!out.empty()) out.push_back(' ');
        out += word;
      }
    }
    i = j;
  }
  return out;
}

std::size_t choice_count(const Task& task) {
  std::size_t gold_index = 0;
  const std::string_view gold = trim(task.answer);
  for (std::size_t i = 0; i < 702; ++i) {  // up to "ZZ"
    if (option_letter(i) == gold) {
      gold_index = i;
      break;
    }
  }
  // A choice task without option texts is read as four options, A–D.
  return std::max<std::size_t>(task.options.empty() ? 4 : task.options.size(), gold_index + 1);
}

void add_unique(std::vector<std::string>& out, std::string candidate, const Task& task) {
  if (candidate.empty() || matches_gold(task, candidate)) return;
  if (std::find(out.begin(), out.end(), candidate) != out.end()) return;
  out.push_back(std::move(candidate));
}

// Slips a solver makes on numeric problems: one step off, a little off, doubled, halved, rounded.
std::vector<std::string> number_distractors(const Task& task, double gold) {
  std::vector<std::string> out;
  const bool integral = std::fabs(gold - std::round(gold)) < 1e-9;
  double step = 1.0;
  if (!integral) {
    const std::string text = canonical_number_text(gold);
    const auto dot = text.find('.');
    step = std::pow(10.0, -static_cast<double>(dot == std::string::npos ? 0 : text.size() - dot - 1));
  }
  const double small = std::max(2.0 * step, std::round(0.1 * std::fabs(gold) / step) * step);
  add_unique(out, canonical_number_text(gold + step), task);
  add_unique(out, canonical_number_text(gold - step), task);
  add_unique(out, canonical_number_text(gold + small), task);
  add_unique(out, canonical_number_text(gold - small), task);
  add_unique(out, canonical_number_text(gold * 2.0), task);
  if (gold != 0.0) add_unique(out, canonical_number_text(gold / 2.0), task);
  add_unique(out, canonical_number_text(integral ? std::round(gold / 10.0) * 10.0 : std::round(gold)), task);
  return out;
}

bool is_stopword(std::string_view w) {
  static constexpr std::string_view kStop[] = {"what",  "which", "when",  "where", "there", "their",
                                               "about", "would", "could", "should", "following",
                                               "these", "those", "this",  "that",  "with",  "from",
                                               "have",  "does",  "into",  "than",  "then",  "they"};
  for (auto s : kStop)
    if (s == w) return true;
  return false;
}

// Alternative phrases for free-text tasks: content words of the question, then stock replies.
std::vector<std::string> text_distractors(const Task& task) {
  std::vector<std::string> out;
  const std::string gold_words = " " + normalized(task.answer) + " ";
  const std::string_view q = task.question;
  std::size_t i = 0;
  while (i < q.size() && out.size() < 6) {
    while (i < q.size() && !is_alnum(q[i])) ++i;
    std::size_t j = i;
    bool letters_only = true;
    while (j < q.size() && is_alnum(q[j])) {
      letters_only = letters_only && !(q[j] >= '0' && q[j] <= '9');
      ++j;
    }
    const std::string word = normalized(q.substr(i, j - i));
    if (letters_only && word.size() >= 4 && !is_stopword(word) &&
        gold_words.find(" " + word + " ") == std::string::npos) {
      add_unique(out, std::string(q.substr(i, j - i)), task);
    }
    i = j;
  }
  add_unique(out, "none of the above", task);
  add_unique(out, "it cannot be determined", task);
  return out;
}

// The other labels of the set; on an ordered scale nearest the gold first (the lower first of
// two at the same distance).
std::vector<std::string> label_distractors(const Task& task) {
  const LabelSet& labels = *task.labels;
  const auto gold = labels.find(task.answer);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (!gold || i != *gold) order.push_back(i);
  }
  if (labels.ordered() && gold) {
    const auto distance = [g = *gold](std::size_t i) { return i > g ? i - g : g - i; };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return distance(a) < distance(b); });
  }
  std::vector<std::string> out;
  out.reserve(order.size());
  for (std::size_t i : order) out.push_back(labels.labels()[i]);
  return out;
}

}  // namespace

std::string canonical_number_text(double value) {
  if (std::fabs(value - std::round(value)) < 1e-9 && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(std::llround(value)));
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6f", value);
  std::string out = buffer;
  while (!out.empty() && out.back() == '0') out.pop_back();
  if (!out.empty() && out.back() == '.') out.pop_back();
  if (out == "-0") out = "0";
  return out;
}

bool matches_gold(const Task& task, std::string_view answer) {
  switch (task.answer_type) {
    case AnswerType::kChoice: {
      const std::string_view a = trim(answer);
      const std::string_view g = trim(task.answer);
      if (a.size() != g.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (lower(a[i]) != lower(g[i])) return false;
      return !a.empty();
    }
    case AnswerType::kNumber:
    case AnswerType::kForecast: {
      const auto a = parse_plain_number(answer);
      const auto g = parse_plain_number(task.answer);
      if (a && g) return numbers_equal(*a, *g);
      break;  // a non-numeric gold is compared as text
    }
    case AnswerType::kLabel:
      return answers_match(task, answer);  // through the label set's synonyms, else by label key
    case AnswerType::kText:
      break;
  }
  const std::string a = normalized(answer);
  return !a.empty() && a == normalized(task.answer);
}

AnswerSpace answer_space(const Task& task, std::uint64_t task_hash) {
  AnswerSpace space;
  space.gold = std::string(trim(task.answer));
  if (task.answer_type == AnswerType::kChoice) {
    const std::size_t n = choice_count(task);
    for (std::size_t i = 0; i < n; ++i) add_unique(space.wrong, option_letter(i), task);
  } else if (const auto gold = task.answer_type == AnswerType::kNumber || task.answer_type == AnswerType::kForecast
                                   ? parse_plain_number(task.answer)
                                   : std::nullopt) {
    space.gold = canonical_number_text(*gold);
    space.wrong = number_distractors(task, *gold);
  } else if (task.answer_type == AnswerType::kLabel && task.labels) {
    space.wrong = label_distractors(task);
    if (task.labels->ordered() && space.wrong.size() > 1) {
      // An ordered scale drifts to a neighbour of the gold: the attractor is one of the two nearest.
      std::swap(space.wrong[0], space.wrong[task_hash % 2]);
      return space;
    }
  } else {
    space.wrong = text_distractors(task);
  }
  if (!space.wrong.empty()) {
    const auto attractor = static_cast<std::ptrdiff_t>(task_hash % space.wrong.size());
    std::rotate(space.wrong.begin(), space.wrong.begin() + attractor, space.wrong.end());
  }
  return space;
}

std::optional<std::string> latent_answer(const Task& task) {
  if (!trim(task.answer).empty()) return std::nullopt;
  HashBuilder key;
  key.add(task.question);
  for (const auto& option : task.options) key.add(option);
  const std::uint64_t hash = key.value();
  switch (task.answer_type) {
    case AnswerType::kChoice:  // one of the task's options; A–D when it lists none (as choice_count reads it)
      return option_letter(hash % (task.options.empty() ? 4 : task.options.size()));
    case AnswerType::kNumber:
    case AnswerType::kForecast: return canonical_number_text(static_cast<double>(hash % 100));
    case AnswerType::kLabel:
      if (task.labels && task.labels->size() > 0) return task.labels->labels()[hash % task.labels->size()];
      return std::string("yes");
    case AnswerType::kText: break;
  }
  // The question's longest word of letters: something the agents can state and be matched on.
  std::string longest;
  std::string word;
  for (const char c : task.question + " ") {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      word += c;
      continue;
    }
    if (word.size() > longest.size()) longest = word;
    word.clear();
  }
  return longest.empty() ? std::string("yes") : longest;
}

}  // namespace parley::sim
