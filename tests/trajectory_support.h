#pragma once
// Hand-made answer trajectories for the uncertainty and UDPO tests: answers[t][i] is agent
// a<i+1>'s answer after round t (nullopt: unparsed), confidences[t][i] its stated confidence.

#include <optional>
#include <string>
#include <vector>

#include "core/hash.h"
#include "parley/metrics.h"

namespace parley::testing {

using AnswerGrid = std::vector<std::vector<std::optional<std::string>>>;
using ConfidenceGrid = std::vector<std::vector<std::optional<double>>>;

inline AnswerTrajectory trajectory_of(const AnswerGrid& answers, const ConfidenceGrid& confidences = {}) {
  const std::size_t agent_count = answers.empty() ? 0 : answers.front().size();
  std::vector<std::string> agents;
  for (std::size_t i = 0; i < agent_count; ++i) agents.push_back("a" + std::to_string(i + 1));
  std::vector<AnswerTrajectory::Round> rounds;
  for (std::size_t t = 0; t < answers.size(); ++t) {
    AnswerTrajectory::Round& round = rounds.emplace_back();
    for (std::size_t i = 0; i < answers[t].size(); ++i) {
      if (!answers[t][i]) {
        round.emplace_back();
        continue;
      }
      const bool stated = t < confidences.size() && i < confidences[t].size();
      round.push_back(TrajectoryAnswer{*answers[t][i], stated ? confidences[t][i] : std::nullopt});
    }
  }
  return AnswerTrajectory(std::move(agents), std::move(rounds));
}

// A random trajectory over the first `alphabet` letters for property tests: each answer unparsed
// with probability `missing`, and stated with a confidence of 0.1, 0.2, … 0.5 half of the time
// (so that the vote's confidence tie rule is exercised).
inline AnswerTrajectory random_trajectory(Rng& rng, std::size_t agent_count, std::size_t round_count,
                                          std::size_t alphabet, double missing = 0.0) {
  AnswerGrid answers(round_count, std::vector<std::optional<std::string>>(agent_count));
  ConfidenceGrid confidences(round_count, std::vector<std::optional<double>>(agent_count));
  for (std::size_t t = 0; t < round_count; ++t)
    for (std::size_t i = 0; i < agent_count; ++i) {
      if (rng.uniform() < missing) continue;
      answers[t][i] = std::string(1, static_cast<char>('A' + rng.below(alphabet)));
      if (rng.uniform() < 0.5) confidences[t][i] = 0.1 * static_cast<double>(1 + rng.below(5));
    }
  return trajectory_of(answers, confidences);
}

}  // namespace parley::testing
