// Algorithm 2 (MACI App. L.2): budget-feasible UCB over dial moves, and the LinUCB variant (L.5).

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "parley/maci_scheduler.h"

namespace parley::maci {
namespace {

double clip_unit(double x) { return std::min(std::max(x, 0.0), 1.0); }

using Matrix = Eigen::Matrix<double, kContextFeatures, kContextFeatures, Eigen::RowMajor>;
using Vector = Eigen::Matrix<double, kContextFeatures, 1>;

}  // namespace

std::vector<DialMove> dial_moves(double step) {
  std::vector<DialMove> moves;
  for (double contentiousness : {-step, 0.0, step}) {
    for (double gate : {-step, 0.0, step}) moves.push_back({contentiousness, gate});
  }
  return moves;
}

DialPosition apply_move(const DialPosition& position, const DialMove& move) {
  // Rounded to 1e-9 like the controller's dials: 0.8 − 0.2 is 0.6.
  const auto round = [](double x) { return std::round(x * 1e9) / 1e9; };
  return {round(clip_unit(position.contentiousness + move.contentiousness_change)),
          round(clip_unit(position.gate_offset + move.gate_change))};
}

std::vector<double> context_features(const SchedulerContext& c) {
  return {c.dispersion,       c.dispersion_change,       c.quality,         c.quality_change,
          c.information_gain, c.information_gain_change, c.budget_fraction, 1.0};
}

const char* scheduler_policy_name(SchedulerPolicy policy) {
  return policy == SchedulerPolicy::kUcb ? "ucb" : "linucb";
}

DialScheduler::DialScheduler(SchedulerSettings settings)
    : settings_(settings), moves_(dial_moves(settings.step)), statistics_(moves_.size()) {
  if (!(settings_.cost_scale > 0.0)) throw std::invalid_argument("the scheduler's cost scale C_max must be positive");
  std::vector<double> identity(kContextFeatures * kContextFeatures, 0.0);
  for (std::size_t i = 0; i < kContextFeatures; ++i) identity[i * kContextFeatures + i] = 1.0;
  design_.assign(moves_.size(), identity);
  response_.assign(moves_.size(), std::vector<double>(kContextFeatures, 0.0));
}

double DialScheduler::estimated_cost(std::size_t move) const {
  if (statistics_.at(move).cost) return *statistics_[move].cost;
  std::optional<double> largest;
  for (const MoveStatistics& s : statistics_) {
    if (s.cost) largest = std::max(largest.value_or(0.0), *s.cost);
  }
  return largest.value_or(settings_.cost_scale);
}

std::vector<std::size_t> DialScheduler::feasible(double remaining_budget) const {
  std::vector<std::size_t> moves;
  for (std::size_t k = 0; k < moves_.size(); ++k) {
    if (estimated_cost(k) <= remaining_budget) moves.push_back(k);
  }
  return moves;
}

std::optional<std::size_t> DialScheduler::choose(const SchedulerContext& context, double remaining_budget) const {
  const std::vector<std::size_t> candidates = feasible(remaining_budget);
  if (candidates.empty()) return std::nullopt;
  std::vector<double> index(moves_.size(), 0.0);
  if (settings_.policy == SchedulerPolicy::kUcb) {
    for (std::size_t k : candidates) {
      if (statistics_[k].pulls == 0) return k;  // every feasible move once before the index
    }
    const double log_t = std::log(static_cast<double>(steps_ + 1));
    for (std::size_t k : candidates) {
      const double n = static_cast<double>(std::max<std::int64_t>(1, statistics_[k].pulls));
      index[k] = statistics_[k].mean_reward + std::sqrt(2.0 * log_t / n);
    }
  } else {
    const std::vector<double> features = context_features(context);
    const Vector x = Eigen::Map<const Vector>(features.data());
    for (std::size_t k : candidates) {
      const Eigen::LLT<Matrix> design(Eigen::Map<const Matrix>(design_[k].data()));
      const Vector theta = design.solve(Eigen::Map<const Vector>(response_[k].data()));
      const double spread = x.dot(design.solve(x));
      index[k] = theta.dot(x) + settings_.linucb_exploration * std::sqrt(std::max(0.0, spread));
    }
  }
  std::size_t best = candidates.front();
  for (std::size_t k : candidates) {
    if (index[k] > index[best]) best = k;
  }
  return best;
}

double DialScheduler::reward(double gain_before, double gain_after, double dispersion_before,
                             double dispersion_after, double cost) const {
  const double information =
      settings_.reward_information_level ? gain_after : std::max(0.0, gain_after - gain_before);
  return settings_.information_weight * information +
         settings_.dispersion_weight * std::max(0.0, dispersion_before - dispersion_after) -
         settings_.cost_penalty * cost / settings_.cost_scale;
}

void DialScheduler::update(std::size_t move, const SchedulerContext& context, double reward, double cost) {
  MoveStatistics& s = statistics_.at(move);
  s.mean_reward = (static_cast<double>(s.pulls) * s.mean_reward + reward) / static_cast<double>(s.pulls + 1);
  ++s.pulls;
  s.cost = std::max(s.cost.value_or(0.0), cost);
  ++steps_;
  const std::vector<double> features = context_features(context);
  const Vector x = Eigen::Map<const Vector>(features.data());
  Eigen::Map<Matrix>(design_[move].data()) += x * x.transpose();
  Eigen::Map<Vector>(response_[move].data()) += reward * x;
}

std::string DialScheduler::to_json() const {
  nlohmann::json moves = nlohmann::json::array();
  for (std::size_t k = 0; k < moves_.size(); ++k) {
    nlohmann::json move{{"contentiousness_change", moves_[k].contentiousness_change},
                        {"gate_change", moves_[k].gate_change},
                        {"pulls", statistics_[k].pulls},
                        {"mean_reward", statistics_[k].mean_reward}};
    if (statistics_[k].cost) move["cost"] = *statistics_[k].cost;
    moves.push_back(std::move(move));
  }
  return nlohmann::json{{"policy", scheduler_policy_name(settings_.policy)}, {"steps", steps_}, {"moves", moves}}
      .dump();
}

}  // namespace parley::maci
