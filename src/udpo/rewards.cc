// UDPO's rewards, eqs. (1)–(4) (udpo-uncertainty-collapse §4.2–4.3): read off the uncertainty
// metrics of the trajectory (parley/metrics.h), never computed a second time, so that
// r_inter = 1 − U_inter and r_sys = 1 − U_sys hold exactly.
#include <string>

#include "parley/answer.h"
#include "parley/udpo.h"
#include "udpo/checks.h"

namespace parley::udpo {
namespace {

// Eq. (1) under the U-1 reading. transition_rate is the share of changes over the T transitions
// t = 0..T−1; the literal normaliser N(T−1) scales that share by T/(T−1).
std::optional<double> intra_reward(const UncertaintyMetrics& uncertainty, IntraReward reading) {
  switch (reading) {
    case IntraReward::kOneMinusFlipRate:
      if (!uncertainty.flip_rate) return std::nullopt;
      return 1.0 - *uncertainty.flip_rate;
    case IntraReward::kAllTransitions:
      if (!uncertainty.transition_rate) return std::nullopt;
      return 1.0 - *uncertainty.transition_rate;
    case IntraReward::kLiteral: {
      // conflict_by_round holds C_0..C_T: T + 1 entries.
      const double debate_rounds = static_cast<double>(uncertainty.conflict_by_round.size()) - 1.0;
      if (!uncertainty.transition_rate || debate_rounds < 2.0) return std::nullopt;
      return 1.0 - *uncertainty.transition_rate * debate_rounds / (debate_rounds - 1.0);
    }
  }
  return std::nullopt;
}

std::optional<double> one_minus(const std::optional<double>& uncertainty) {
  if (!uncertainty) return std::nullopt;
  return 1.0 - *uncertainty;
}

// coefficient × reward, where a zero coefficient drops the term even if its reward is undefined.
double weighted(double coefficient, const std::optional<double>& reward, std::string_view reason) {
  if (coefficient == 0.0) return 0.0;
  detail::require(reward.has_value(), "agent_reward", reason);
  return coefficient * *reward;
}

}  // namespace

TrajectoryRewards trajectory_rewards(const UncertaintyMetrics& uncertainty, const Task& task, IntraReward reading) {
  TrajectoryRewards rewards;
  rewards.intra = intra_reward(uncertainty, reading);
  rewards.inter = one_minus(uncertainty.u_inter);  // eq. (2)
  rewards.sys = one_minus(uncertainty.u_sys);      // eqs. (3), (20)
  rewards.final_vote = uncertainty.final_vote;
  rewards.task = rewards.final_vote && answers_match(task, *rewards.final_vote) ? 1.0 : 0.0;
  return rewards;
}

TrajectoryRewards trajectory_rewards(const AnswerTrajectory& trajectory, const Task& task, IntraReward reading) {
  const DebateMetricsOptions options{.answer_type = task.answer_type, .labels = task.labels};
  return trajectory_rewards(uncertainty_metrics(trajectory, options), task, reading);
}

AgentReward agent_reward(const TrajectoryRewards& rewards, const AgentCoefficients& coefficients) {
  AgentReward reward;
  reward.intra = weighted(coefficients.alpha, rewards.intra,
                          "r_intra is undefined for this trajectory (too few debate rounds or parsed answers for "
                          "the reading) but α is not 0");
  reward.inter = weighted(coefficients.beta, rewards.inter,
                          "r_inter is undefined for this trajectory (no round with two parsed answers) but β is not 0");
  reward.sys = weighted(coefficients.gamma, rewards.sys,
                        "r_sys is undefined for this trajectory (fewer than two parsed final answers) but γ is not 0");
  reward.task = coefficients.lambda * rewards.task;
  reward.total = reward.intra + reward.inter + reward.sys + reward.task;  // eq. (4)
  return reward;
}

}  // namespace parley::udpo
