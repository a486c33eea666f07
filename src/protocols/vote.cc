#include "protocols/vote.h"

#include <algorithm>
#include <map>

namespace parley {

namespace {

VoteResult median_forecast(const std::vector<Answer>& answers) {
  std::vector<double> values;
  for (const auto& a : answers)
    if (a.value)
      if (auto v = parse_number(*a.value)) values.push_back(*v);
  VoteResult result;
  result.median = true;
  result.voters = static_cast<int>(values.size());
  if (values.empty()) return result;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  result.winner = canonical_number(values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0);
  return result;
}

}  // namespace

std::string vote_key(const std::string& value, AnswerType type) {
  return type == AnswerType::kText ? normalize_text(value) : value;
}

VoteResult majority_vote(const std::vector<Answer>& answers, AnswerType type) {
  if (type == AnswerType::kForecast) return median_forecast(answers);
  struct Tally {
    int votes = 0;
    double confidence = 0.0;
    std::size_t first = 0;
    std::string spelling;  // the first voter's form of the answer
  };
  std::map<std::string, Tally> tallies;
  VoteResult result;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (!answers[i].value) continue;
    const std::string& value = *answers[i].value;
    auto [it, inserted] = tallies.try_emplace(vote_key(value, type));
    if (inserted) {
      it->second.first = i;
      it->second.spelling = value;
    }
    ++it->second.votes;
    it->second.confidence += answers[i].confidence.value_or(0.0);
    ++result.voters;
  }
  const Tally* best = nullptr;
  for (const auto& [key, tally] : tallies) {
    const bool better = best == nullptr || tally.votes > best->votes ||
                        (tally.votes == best->votes &&
                         (tally.confidence > best->confidence ||
                          (tally.confidence == best->confidence && tally.first < best->first)));
    if (better) {
      best = &tally;
      result.winner = tally.spelling;
      result.votes = tally.votes;
    }
  }
  return result;
}

int largest_agreement(const std::vector<Answer>& answers, AnswerType type) {
  std::map<std::string, int> counts;
  int largest = 0;
  for (const Answer& answer : answers) {
    if (answer.value) largest = std::max(largest, ++counts[vote_key(*answer.value, type)]);
  }
  return largest;
}

bool unanimous(const std::vector<Answer>& answers, AnswerType type) {
  return !answers.empty() && largest_agreement(answers, type) == static_cast<int>(answers.size());
}

bool same_answer(const Task& task, std::string_view a, const std::string& b) {
  Task reference = task;
  reference.answer = b;
  return answers_match(reference, a);
}

std::string describe(const VoteResult& vote) {
  if (vote.median) return "median of " + std::to_string(vote.voters) + " forecasts: " + vote.winner.value_or("(none)");
  return std::to_string(vote.votes) + " of " + std::to_string(vote.voters) + " for " + vote.winner.value_or("(none)");
}

}  // namespace parley
