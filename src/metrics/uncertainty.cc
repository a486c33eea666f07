// UDPO's uncertainty of one debate (udpo-uncertainty-collapse §2 and App. D, eqs. 16–19), from
// each agent's answer after each round. Choices where the paper leaves room are listed in
// docs/protocols.md ("Uncertainty metrics").
#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/turns.h"
#include "parley/metrics.h"
#include "protocols/vote.h"

namespace parley {
namespace {

// a_t^(i): one agent's answer after one round.
struct RoundAnswer {
  std::string key;  // vote_key: answers are equal when their keys are
  Answer ballot;    // value and confidence, as the majority vote reads them
};

// table[t][i] = a_t^(i) for the debate's rounds t = 0..T (the rounds in which any agent turn
// was taken, in order) and its agents i (in the order of their first turn); empty where agent
// i has no parsed answer in round t — a missing answer is not carried over from another round.
using AnswerTable = std::vector<std::vector<std::optional<RoundAnswer>>>;

AnswerTable answer_table(const std::vector<DebateTurn>& turns, AnswerType type) {
  std::map<int, std::size_t> round_position;
  std::map<std::string_view, std::size_t> agent_position;
  for (const auto& turn : turns) {
    round_position.emplace(turn.round, 0);
    agent_position.emplace(turn.agent, agent_position.size());
  }
  std::size_t t = 0;
  for (auto& [round, position] : round_position) position = t++;
  AnswerTable table(round_position.size(), std::vector<std::optional<RoundAnswer>>(agent_position.size()));
  for (const auto& turn : turns) {  // issue order: the agent's last parsed answer of a round wins
    if (!turn.answer) continue;
    table[round_position.at(turn.round)][agent_position.at(turn.agent)] =
        RoundAnswer{vote_key(std::string(*turn.answer), type), Answer{std::string(*turn.answer), turn.confidence, {}}};
  }
  return table;
}

// Counts 1[a ≠ b] over the comparisons whose two answers both exist.
struct ChangeCount {
  int changed = 0;
  int compared = 0;

  void add(const std::optional<RoundAnswer>& a, const std::optional<RoundAnswer>& b) {
    if (!a || !b) return;
    ++compared;
    changed += a->key != b->key;
  }
  std::optional<double> share() const {
    if (compared == 0) return std::nullopt;
    return static_cast<double>(changed) / compared;
  }
};

// UDPO §2, F(q): changes between consecutive rounds t → t+1 for t = 1..T−1, as the equation
// sums; the change from the initial answers (0 → 1) is left to M.
std::optional<double> flip_rate(const AnswerTable& table) {
  ChangeCount flips;
  for (std::size_t t = 1; t + 1 < table.size(); ++t)
    for (std::size_t i = 0; i < table[t].size(); ++i) flips.add(table[t][i], table[t + 1][i]);
  return flips.share();
}

// UDPO §2, M(q): 1[a_0 ≠ a_T] per agent.
std::optional<double> belief_revision(const AnswerTable& table) {
  if (table.size() < 2) return std::nullopt;
  ChangeCount revisions;
  for (std::size_t i = 0; i < table.front().size(); ++i) revisions.add(table.front()[i], table.back()[i]);
  return revisions.share();
}

// UDPO §2, C_t(q): the share of agent pairs of round t whose answers differ.
std::optional<double> pairwise_conflict(const std::vector<std::optional<RoundAnswer>>& round) {
  ChangeCount conflicts;
  for (std::size_t i = 0; i < round.size(); ++i)
    for (std::size_t j = i + 1; j < round.size(); ++j) conflicts.add(round[i], round[j]);
  return conflicts.share();
}

// The key of the majority vote's winner over `answers` without the one at `left_out`
// (npos: all of them), with the vote's own tie rules.
std::string vote_winner(const std::vector<RoundAnswer>& answers, std::size_t left_out, AnswerType type) {
  std::vector<Answer> ballots;
  for (std::size_t i = 0; i < answers.size(); ++i)
    if (i != left_out) ballots.push_back(answers[i].ballot);
  return vote_key(majority_vote(ballots, type).winner.value_or(""), type);
}

}  // namespace

UncertaintyMetrics uncertainty_metrics(const Transcript& transcript, const DebateMetricsOptions& options) {
  return uncertainty_metrics(agent_turns(transcript), options);
}

UncertaintyMetrics uncertainty_metrics(const std::vector<DebateTurn>& agent_turns, const DebateMetricsOptions& options) {
  UncertaintyMetrics metrics;
  const AnswerTable table = answer_table(agent_turns, options.answer_type);
  if (table.empty()) return metrics;

  // Intra-agent: U_intra = λF + (1 − λ)M (§2).
  metrics.flip_rate = flip_rate(table);
  metrics.belief_revision = belief_revision(table);
  if (metrics.flip_rate && metrics.belief_revision) {
    const double lambda = options.u_intra_lambda;
    metrics.u_intra = lambda * *metrics.flip_rate + (1.0 - lambda) * *metrics.belief_revision;
  }

  // Inter-agent: U_inter = 1/(T+1) Σ_t C_t (§2), over the rounds where C_t is defined.
  double conflict_sum = 0.0;
  int conflict_rounds = 0;
  for (const auto& round : table) {
    metrics.conflict_by_round.push_back(pairwise_conflict(round));
    if (metrics.conflict_by_round.back()) {
      conflict_sum += *metrics.conflict_by_round.back();
      ++conflict_rounds;
    }
  }
  if (conflict_rounds > 0) metrics.u_inter = conflict_sum / conflict_rounds;

  // System level (App. D.1) over the final round's answers; a vote needs two of them.
  std::vector<RoundAnswer> final_answers;
  for (const auto& answer : table.back())
    if (answer) final_answers.push_back(*answer);
  if (final_answers.size() < 2) return metrics;
  std::map<std::string, int> votes;
  for (const auto& answer : final_answers) ++votes[answer.key];
  const double n = static_cast<double>(final_answers.size());
  const std::size_t distinct = votes.size();
  double entropy = 0.0;
  for (const auto& [key, count] : votes) entropy -= (count / n) * std::log(count / n);
  metrics.entropy = distinct == 1 ? 0.0 : entropy / std::log(static_cast<double>(distinct));  // eq. (16)
  metrics.disagreement = distinct > 1 ? 1.0 : 0.0;                                             // eq. (17)
  const std::string everyone = vote_winner(final_answers, std::string::npos, options.answer_type);
  int unstable = 0;
  for (std::size_t i = 0; i < final_answers.size(); ++i)
    unstable += vote_winner(final_answers, i, options.answer_type) != everyone;
  metrics.loo_instability = unstable / n;                                                       // eq. (18)
  metrics.u_sys = (*metrics.entropy + *metrics.disagreement + *metrics.loo_instability) / 3.0;  // eq. (19)
  return metrics;
}

}  // namespace parley
