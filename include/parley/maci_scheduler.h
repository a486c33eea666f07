#pragma once
// MACI's learned dial scheduler (App. L): a bandit over moves of the two dials, replacing the
// fixed schedule. Algorithm 2 (budget-feasible UCB) and its contextual variant (App. L.5,
// disjoint LinUCB, Li et al. 2010). A move is (Δα, Δγ) ∈ {−δ, 0, +δ}²: α is the behaviour dial
// CL and γ an offset added to both gates' starting values (M-29 reading (b)); the (0, 0) move is
// the no-op, so there are 9 moves, not the paper's "K = 10" (M-29 (ii)). A debate has too few
// rounds to learn in, so one scheduler serves every debate of a run (docs/protocols.md, "maci").
// Deterministic: no randomness; ties go to the lowest move index. Not thread-safe.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace parley::maci {

struct DialMove {
  double contentiousness_change = 0.0;  // Δα
  double gate_change = 0.0;             // Δγ
};

// {−δ, 0, +δ}² in row order: (−δ, −δ), (−δ, 0), (−δ, +δ), (0, −δ), (0, 0), ...
std::vector<DialMove> dial_moves(double step);

// clip(x; 0, 1) of Algorithm 2 line 7.
struct DialPosition {
  double contentiousness = 0.0;  // α_t
  double gate_offset = 0.0;      // γ_t
};
DialPosition apply_move(const DialPosition& position, const DialMove& move);

// x_t of App. L.1.
struct SchedulerContext {
  double dispersion = 0.0;               // D(t)
  double dispersion_change = 0.0;        // ΔD(t−1) = D(t) − D(t−1)
  double quality = 0.0;                  // Q(t)
  double quality_change = 0.0;           // ΔQ(t−1)
  double information_gain = 0.0;         // IG(t)
  double information_gain_change = 0.0;  // ΔIG(t−1)
  double budget_fraction = 1.0;          // b_t ∈ [0, 1]
};
inline constexpr std::size_t kContextFeatures = 8;  // x_t's 7 components and a constant 1
std::vector<double> context_features(const SchedulerContext& context);

enum class SchedulerPolicy { kUcb, kLinUcb };
const char* scheduler_policy_name(SchedulerPolicy policy);  // "ucb" | "linucb"

struct SchedulerSettings {
  SchedulerPolicy policy = SchedulerPolicy::kUcb;
  double step = 0.2;                 // δ (App. L.6)
  double information_weight = 0.5;   // w_1
  double dispersion_weight = 0.5;    // w_2
  double cost_penalty = 0.1;         // λ: "tuned to the desired tokens per round"; our default
  double cost_scale = 4000.0;        // C_max in tokens (App. L.6: P95 of per-round tokens on dev)
  double linucb_exploration = 1.0;   // α of LinUCB: not given, our choice
  // M-30: reward the level IG(t+1) instead of its increase [IG(t+1) − IG(t)]_+ (the paper's).
  bool reward_information_level = false;
};

// Per-move statistics.
struct MoveStatistics {
  std::int64_t pulls = 0;          // n_k
  double mean_reward = 0.0;        // μ̂_k
  std::optional<double> cost;      // the largest cost seen for this move (ĉ, conservative)
};

class DialScheduler {
 public:
  explicit DialScheduler(SchedulerSettings settings);

  const SchedulerSettings& settings() const { return settings_; }
  const std::vector<DialMove>& moves() const { return moves_; }
  const std::vector<MoveStatistics>& statistics() const { return statistics_; }
  std::int64_t steps() const { return steps_; }

  // ĉ_t(k): the largest cost seen for move k, else the largest seen for any move, else C_max.
  double estimated_cost(std::size_t move) const;
  // S_t of Algorithm 2 line 5: the moves with ĉ_t(k) ≤ B_t, in index order.
  std::vector<std::size_t> feasible(double remaining_budget) const;
  // Line 6 (UCB: an untried feasible move first, then μ̂_k + sqrt(2 log t / max{1, n_k}) with t
  // the scheduler's step count + 1; LinUCB: θ_k·x + α sqrt(xᵀA_k⁻¹x)). nullopt when S_t is empty.
  std::optional<std::size_t> choose(const SchedulerContext& context, double remaining_budget) const;
  // Line 9's r_t.
  double reward(double gain_before, double gain_after, double dispersion_before, double dispersion_after,
                double cost) const;
  // Line 10: μ̂_k, n_k (and LinUCB's A_k, b_k) after move k earned `reward` at `cost` tokens.
  void update(std::size_t move, const SchedulerContext& context, double reward, double cost);

  // The learned state as JSON (steps and move statistics), for inspection. A resumed run does
  // not read it back: it replays the updates its stored debates recorded.
  std::string to_json() const;

 private:
  SchedulerSettings settings_;
  std::vector<DialMove> moves_;
  std::vector<MoveStatistics> statistics_;
  std::int64_t steps_ = 0;
  // LinUCB per move: A_k (row-major d×d, starts at I) and b_k (starts at 0).
  std::vector<std::vector<double>> design_;
  std::vector<std::vector<double>> response_;
};

}  // namespace parley::maci
