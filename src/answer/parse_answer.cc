// parse_answer (dispatch on the task's answer type) and answers_match.

#include <algorithm>
#include <cmath>
#include <string_view>

#include "answer/label_answer.h"
#include "answer/option_matcher.h"
#include "answer/scan.h"
#include "answer/text_answer.h"
#include "parley/answer.h"
#include "parley/labels.h"

namespace parley {
Answer parse_answer(std::string_view text, const Task& task) {
  Answer answer;
  switch (task.answer_type) {
    case AnswerType::kChoice:
      answer.value = parse_choice(text, task.options);
      break;
    case AnswerType::kNumber:
      if (auto number = parse_number(text)) answer.value = canonical_number(*number);
      break;
    case AnswerType::kText:
      answer.value = answer_scan::parse_text_answer(text);
      break;
    case AnswerType::kForecast:
      if (auto forecast = parse_forecast(text)) answer.value = canonical_number(*forecast);
      break;
    case AnswerType::kLabel:
      break;  // below, once the beliefs are read
  }
  answer.confidence = parse_confidence(text);
  answer.beliefs = parse_beliefs(text);
  if (task.answer_type == AnswerType::kChoice && !answer.beliefs.empty()) {
    const answer_scan::OptionMatcher matcher(task.options);
    for (auto& belief : answer.beliefs) {
      if (auto index = matcher.read_label(belief.label)) belief.label = option_letter(*index);
    }
  }
  if (task.answer_type == AnswerType::kLabel) {
    if (task.labels) {
      for (auto& belief : answer.beliefs) {
        if (auto label = task.labels->canonical(belief.label)) belief.label = std::move(*label);
      }
    }
    answer.value = answer_scan::parse_label_answer(text, task.labels.get(), answer.beliefs);
  }
  return answer;
}

bool answers_match(const Task& task, std::string_view answer) {
  switch (task.answer_type) {
    case AnswerType::kChoice: {
      const std::string_view mine = answer_scan::trim(answer);
      const std::string_view gold = answer_scan::trim(task.answer);
      if (mine.empty() || mine.size() != gold.size()) return false;
      for (std::size_t i = 0; i < mine.size(); ++i) {
        if (answer_scan::to_upper(mine[i]) != answer_scan::to_upper(gold[i])) return false;
      }
      return true;
    }
    case AnswerType::kNumber:
    case AnswerType::kForecast: {
      const auto mine = parse_number(answer);
      const auto gold = parse_number(task.answer);
      if (!mine || !gold) return false;
      const double tolerance =
          task.tolerance.value_or(std::max(1e-9, 1e-6 * std::max(std::fabs(*mine), std::fabs(*gold))));
      return std::fabs(*mine - *gold) <= tolerance;
    }
    case AnswerType::kText: {
      const std::string normalized = normalize_text(answer);
      return !normalized.empty() && normalized == normalize_text(task.answer);
    }
    case AnswerType::kLabel: {
      if (task.labels) {
        const auto mine = task.labels->find(answer);
        return mine && mine == task.labels->find(task.answer);
      }
      const std::string key = label_key(answer);
      return !key.empty() && key == label_key(task.answer);
    }
  }
  return false;
}

}  // namespace parley
