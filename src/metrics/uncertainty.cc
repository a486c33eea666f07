// UDPO's uncertainty of one debate (udpo-uncertainty-collapse §2 and App. D, eqs. 16–19), from
// each agent's answer after each round: the one implementation, which the transcript metrics and
// UDPO's rewards (src/udpo) both call. Choices where the paper leaves room are listed in
// docs/protocols.md ("Uncertainty metrics").
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/turns.h"
#include "parley/metrics.h"
#include "protocols/vote.h"

namespace parley {
namespace {

// a_t^(i) as the metrics compare it.
struct KeyedAnswer {
  std::string key;  // vote_key: answers are equal when their keys are
  Answer ballot;    // value and confidence, as the majority vote reads them
};
using KeyedRound = std::vector<std::optional<KeyedAnswer>>;  // indexed by agent
using KeyedTable = std::vector<KeyedRound>;                  // indexed by round t = 0..T

KeyedTable keyed_table(const AnswerTrajectory& trajectory, AnswerType type) {
  KeyedTable table;
  table.reserve(trajectory.round_count());
  for (const auto& round : trajectory.rounds()) {
    KeyedRound& keyed = table.emplace_back();
    keyed.reserve(round.size());
    for (const auto& answer : round) {
      if (answer) {
        keyed.push_back(KeyedAnswer{vote_key(answer->value, type), Answer{answer->value, answer->confidence, {}}});
      } else {
        keyed.emplace_back();
      }
    }
  }
  return table;
}

// Counts 1[a ≠ b] over the comparisons whose two answers both exist.
struct ChangeCount {
  int changed = 0;
  int compared = 0;

  void add(const std::optional<KeyedAnswer>& a, const std::optional<KeyedAnswer>& b) {
    if (!a || !b) return;
    ++compared;
    changed += a->key != b->key;
  }
  ChangeCount& operator+=(const ChangeCount& other) {
    changed += other.changed;
    compared += other.compared;
    return *this;
  }
  std::optional<double> share() const {
    if (compared == 0) return std::nullopt;
    return static_cast<double>(changed) / compared;
  }
};

// Agent i's changes between consecutive rounds t → t+1 for t = first_transition..T−1. UDPO §2's
// F sums from t = 1, leaving the change from the initial answers (0 → 1) to M; eq. (1) sums
// from t = 0.
ChangeCount agent_transitions(const KeyedTable& table, std::size_t agent, std::size_t first_transition) {
  ChangeCount changes;
  for (std::size_t t = first_transition; t + 1 < table.size(); ++t) changes.add(table[t][agent], table[t + 1][agent]);
  return changes;
}

// UDPO §2, M's term for agent i: 1[a_0^(i) ≠ a_T^(i)] (no comparison with one round only).
ChangeCount agent_revision(const KeyedTable& table, std::size_t agent) {
  ChangeCount revision;
  if (table.size() >= 2) revision.add(table.front()[agent], table.back()[agent]);
  return revision;
}

// Agent i's disagreements with the other agents of one round. Summed over the agents, every
// pair counts twice in both numbers, so the share of the sum is UDPO §2's C_t exactly.
ChangeCount disagreements_with_others(const KeyedRound& round, std::size_t agent) {
  ChangeCount conflicts;
  for (std::size_t j = 0; j < round.size(); ++j)
    if (j != agent) conflicts.add(round[agent], round[j]);
  return conflicts;
}

std::optional<double> mix_intra(std::optional<double> flip_rate, std::optional<double> revision, double lambda) {
  if (!flip_rate || !revision) return std::nullopt;
  return lambda * *flip_rate + (1.0 - lambda) * *revision;  // U_intra = λF + (1 − λ)M (§2)
}

// The majority vote over the parsed answers of `round`, leaving out agent `left_out` (npos:
// nobody), with the vote's own tie rules.
VoteResult vote_without(const KeyedRound& round, std::size_t left_out, AnswerType type) {
  std::vector<Answer> ballots;
  for (std::size_t i = 0; i < round.size(); ++i)
    if (i != left_out && round[i]) ballots.push_back(round[i]->ballot);
  return majority_vote(ballots, type);
}

std::string winner_key(const VoteResult& vote, AnswerType type) { return vote_key(vote.winner.value_or(""), type); }

// App. D.1 over the final round's parsed answers; a vote needs two of them. Sets H̃, D, L, U_sys
// and each agent's leave-one-out indicator, from which L is the mean.
void add_system_level(const KeyedRound& final_round, AnswerType type, UncertaintyMetrics& metrics) {
  std::map<std::string, int> votes;
  int answered = 0;
  for (const auto& answer : final_round) {
    if (!answer) continue;
    ++votes[answer->key];
    ++answered;
  }
  if (answered < 2) return;
  const double n = answered;
  const std::size_t distinct = votes.size();
  double entropy = 0.0;
  for (const auto& [key, count] : votes) entropy -= (count / n) * std::log(count / n);
  metrics.entropy = distinct == 1 ? 0.0 : entropy / std::log(static_cast<double>(distinct));  // eq. (16)
  metrics.disagreement = distinct > 1 ? 1.0 : 0.0;                                             // eq. (17)
  const std::string everyone = winner_key(vote_without(final_round, std::string::npos, type), type);
  int unstable = 0;
  for (std::size_t i = 0; i < final_round.size(); ++i) {
    if (!final_round[i]) continue;
    const bool changes = winner_key(vote_without(final_round, i, type), type) != everyone;
    metrics.agents[i].changes_vote = changes;
    unstable += changes;
  }
  metrics.loo_instability = unstable / n;                                                       // eq. (18)
  metrics.u_sys = (*metrics.entropy + *metrics.disagreement + *metrics.loo_instability) / 3.0;  // eq. (19)
}

AnswerTrajectory trajectory_of(const std::vector<DebateTurn>& turns) {
  std::map<int, std::size_t> round_position;
  std::map<std::string_view, std::size_t> agent_position;
  std::vector<std::string> agents;
  for (const auto& turn : turns) {
    round_position.emplace(turn.round, 0);
    if (agent_position.emplace(turn.agent, agents.size()).second) agents.emplace_back(turn.agent);
  }
  std::size_t t = 0;
  for (auto& [round, position] : round_position) position = t++;
  std::vector<AnswerTrajectory::Round> rounds(round_position.size(), AnswerTrajectory::Round(agents.size()));
  for (const auto& turn : turns) {  // issue order: the agent's last parsed answer of a round wins
    if (!turn.answer) continue;
    rounds[round_position.at(turn.round)][agent_position.at(turn.agent)] =
        TrajectoryAnswer{std::string(*turn.answer), turn.confidence};
  }
  return AnswerTrajectory(std::move(agents), std::move(rounds));
}

}  // namespace

AnswerTrajectory::AnswerTrajectory(std::vector<std::string> agents, std::vector<Round> rounds)
    : agents_(std::move(agents)), rounds_(std::move(rounds)) {
  if (std::set<std::string>(agents_.begin(), agents_.end()).size() != agents_.size())
    throw std::invalid_argument("AnswerTrajectory: two agents share a name");
  for (std::size_t t = 0; t < rounds_.size(); ++t)
    if (rounds_[t].size() != agents_.size())
      throw std::invalid_argument("AnswerTrajectory: round " + std::to_string(t) + " has " +
                                  std::to_string(rounds_[t].size()) + " answers for " + std::to_string(agents_.size()) +
                                  " agents");
}

AnswerTrajectory answer_trajectory(const Transcript& transcript) { return trajectory_of(agent_turns(transcript)); }

UncertaintyMetrics uncertainty_metrics(const Transcript& transcript, const DebateMetricsOptions& options) {
  return uncertainty_metrics(answer_trajectory(transcript), options);
}

UncertaintyMetrics uncertainty_metrics(const std::vector<DebateTurn>& agent_turns, const DebateMetricsOptions& options) {
  return uncertainty_metrics(trajectory_of(agent_turns), options);
}

UncertaintyMetrics uncertainty_metrics(const AnswerTrajectory& trajectory, const DebateMetricsOptions& options) {
  UncertaintyMetrics metrics;
  const KeyedTable table = keyed_table(trajectory, options.answer_type);
  if (table.empty()) return metrics;
  const std::size_t agent_count = trajectory.agent_count();
  const double lambda = options.u_intra_lambda;
  metrics.agents.resize(agent_count);

  // Intra-agent (§2): F, M and U_intra = λF + (1 − λ)M, per agent and over all of them; and
  // eq. (1)'s share of changes over every transition, 0 → 1 included.
  ChangeCount flips, transitions, revisions;
  for (std::size_t i = 0; i < agent_count; ++i) {
    const ChangeCount agent_flips = agent_transitions(table, i, 1);
    const ChangeCount agent_revisions = agent_revision(table, i);
    AgentUncertainty& agent = metrics.agents[i];
    agent.flip_rate = agent_flips.share();
    agent.belief_revision = agent_revisions.share();
    agent.u_intra = mix_intra(agent.flip_rate, agent.belief_revision, lambda);
    flips += agent_flips;
    revisions += agent_revisions;
    transitions += agent_transitions(table, i, 0);
  }
  metrics.flip_rate = flips.share();
  metrics.belief_revision = revisions.share();
  metrics.u_intra = mix_intra(metrics.flip_rate, metrics.belief_revision, lambda);
  metrics.transition_rate = transitions.share();

  // Inter-agent (§2): U_inter = 1/(T+1) Σ_t C_t over the rounds where C_t is defined; agent i's
  // part the same mean of its share of differing peers, over the rounds where it is defined.
  double conflict_sum = 0.0;
  int conflict_rounds = 0;
  std::vector<double> agent_conflict_sum(agent_count, 0.0);
  std::vector<int> agent_conflict_rounds(agent_count, 0);
  for (const auto& round : table) {
    ChangeCount conflicts;
    for (std::size_t i = 0; i < agent_count; ++i) {
      const ChangeCount agent_conflicts = disagreements_with_others(round, i);
      if (const auto share = agent_conflicts.share()) {
        agent_conflict_sum[i] += *share;
        ++agent_conflict_rounds[i];
      }
      conflicts += agent_conflicts;
    }
    metrics.conflict_by_round.push_back(conflicts.share());
    if (metrics.conflict_by_round.back()) {
      conflict_sum += *metrics.conflict_by_round.back();
      ++conflict_rounds;
    }
  }
  if (conflict_rounds > 0) metrics.u_inter = conflict_sum / conflict_rounds;
  for (std::size_t i = 0; i < agent_count; ++i)
    if (agent_conflict_rounds[i] > 0) metrics.agents[i].u_inter = agent_conflict_sum[i] / agent_conflict_rounds[i];

  // System level (App. D.1) and ŷ(τ), the vote of the final round.
  metrics.final_vote = vote_without(table.back(), std::string::npos, options.answer_type).winner;
  add_system_level(table.back(), options.answer_type, metrics);
  return metrics;
}

}  // namespace parley
