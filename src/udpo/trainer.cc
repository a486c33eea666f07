// UDPO's Algorithm 1 on the simulator's revision policies (parley/udpo_trainer.h). The debate
// is played on the simulator's decision model (the same sim::decide and sim::revision_choice a
// simulated `debate` run uses, without text), so the action probabilities behind ρ, the clip and
// the KL anchor are exact. Choices: docs/protocols.md, "UDPO's reference trainer". train() is
// the warm-up, then per iteration: play, assemble the minibatch, advantages, update, curve row,
// buffer (the steps below, in that order).
#include "parley/udpo_trainer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "llm/simulator_policy.h"
#include "parley/stats.h"
#include "udpo/trainer_steps.h"

namespace parley::udpo {
namespace detail {

using sim::kPolicyFeatures;

Result<Arena> make_arena(const std::vector<Task>& tasks, const std::vector<TrainingAgent>& agents,
                         const SimulatorParams& params, const TrainerSettings& settings) {
  Arena arena;
  arena.params = &params;
  arena.agents = agents;
  arena.compromised = static_cast<std::size_t>(settings.compromised);
  arena.rounds = settings.rounds;
  arena.metrics.u_intra_lambda = settings.u_intra_lambda;
  arena.intra_reward = settings.intra_reward;
  for (const auto& agent : agents) {
    const auto found = params.profiles.find(agent.profile);
    if (found == params.profiles.end())
      return Error{fmt::format("agent {}: unknown simulator profile \"{}\"", agent.name, agent.profile)};
    arena.profiles.push_back(&found->second);
  }
  for (const Task& task : tasks) {
    arena.tasks.push_back(std::shared_ptr<const Task>(std::shared_ptr<const Task>{}, &task));
    arena.latents.push_back(sim::task_latents(params, task));
  }
  return arena;
}

namespace {

double log_probability_of(const Step& step, const PolicyWeights& weights) {
  return std::log(sim::choice_probabilities(step.choice, weights)[step.chosen]);
}

// ∇_θ log π_θ(τ) of one agent: Σ over its steps of ∇π(chosen) / π(chosen).
PolicyWeights log_probability_gradient(const std::vector<Step>& steps, const PolicyWeights& weights) {
  PolicyWeights gradient{};
  for (const Step& step : steps) {
    const double p = sim::choice_probabilities(step.choice, weights)[step.chosen];
    const PolicyWeights dp = sim::choice_probability_gradients(step.choice, weights)[step.chosen];
    for (std::size_t f = 0; f < kPolicyFeatures; ++f) gradient[f] += dp[f] / p;
  }
  return gradient;
}

}  // namespace

double log_probability_of(const std::vector<Step>& steps, const PolicyWeights& weights) {
  double total = 0.0;
  for (const Step& step : steps) total += log_probability_of(step, weights);
  return total;
}

// Eq. (8), ℓ_anchor: Σ over the agent's steps of KL(π_θ(·|obs) ‖ π_ref(·|obs)) — the KL between
// the agent's action sequences given what it observed (U-12: exact, over every option) — and its
// gradient Σ_x ∇π_θ(x) log(π_θ(x)/π_ref(x)) (Σ_x ∇π_θ(x) = 0 removes the +1).
Anchor anchor_of(const std::vector<Step>& steps, const PolicyWeights& weights, const PolicyWeights& reference) {
  Anchor anchor;
  for (const Step& step : steps) {
    const std::vector<double> p = sim::choice_probabilities(step.choice, weights);
    const std::vector<double> q = sim::choice_probabilities(step.choice, reference);
    anchor.value += kl_divergence(p, q);
    const std::vector<PolicyWeights> dp = sim::choice_probability_gradients(step.choice, weights);
    for (std::size_t x = 0; x < p.size(); ++x) {
      if (p[x] <= 0.0) continue;
      for (std::size_t f = 0; f < kPolicyFeatures; ++f) anchor.gradient[f] += dp[x][f] * std::log(p[x] / q[x]);
    }
  }
  return anchor;
}

Played play(const Arena& arena, std::size_t task, std::uint64_t debate_seed, const std::vector<PolicyWeights>& weights) {
  const std::size_t n = arena.agents.size();
  const sim::TaskLatents& latents = arena.latents[task];
  Played played;
  played.steps.resize(n);
  played.behaviour_log_probability.assign(n, 0.0);
  std::vector<AnswerTrajectory::Round> rounds;
  std::vector<sim::Decision> latest(n);
  for (int t = 0; t <= arena.rounds; ++t) {
    std::vector<sim::Decision> now(n);
    for (std::size_t i = 0; i < n; ++i) {
      Annotations note;
      note.task = arena.tasks[task];
      note.protocol = "train";
      note.seed = debate_seed;
      note.agent = arena.agents[i].name;
      note.round = t;
      note.turn = t == 0 ? "answer" : "revise";
      note.compromised = !arena.honest(i);
      if (t > 0) {
        note.own_previous = latest[i].answer;
        for (std::size_t j = 0; j < n; ++j)
          if (j != i) note.shown.push_back(PeerView{arena.agents[j].name, latest[j].answer, latest[j].confidence, ""});
      }
      const double temperature = arena.agents[i].temperature;
      const bool trained_turn = t > 0 && arena.honest(i);
      now[i] = sim::decide(*arena.params, *arena.profiles[i], note, temperature, latents,
                           trained_turn ? &weights[i] : nullptr);
      if (trained_turn) {
        Step step{sim::revision_choice(*arena.params, *arena.profiles[i], note, temperature, latents), 0};
        const auto& options = step.choice.options;
        const auto it = std::find_if(options.begin(), options.end(),
                                     [&](const sim::RevisionOption& o) { return o.answer == now[i].answer; });
        if (it == options.end()) throw std::logic_error("a revision decided an answer outside its options");
        step.chosen = static_cast<std::size_t>(it - options.begin());
        played.behaviour_log_probability[i] += log_probability_of(step, weights[i]);
        played.steps[i].push_back(std::move(step));
      }
    }
    AnswerTrajectory::Round answers(n);
    for (std::size_t i = 0; i < n; ++i) answers[i] = TrajectoryAnswer{now[i].answer, now[i].confidence};
    rounds.push_back(std::move(answers));
    latest = std::move(now);
  }
  std::vector<std::string> names;
  for (const auto& agent : arena.agents) names.push_back(agent.name);
  played.answers = AnswerTrajectory(std::move(names), std::move(rounds));
  played.uncertainty = uncertainty_metrics(played.answers, arena.metrics);
  played.rewards = trajectory_rewards(played.uncertainty, *arena.tasks[task], arena.intra_reward);
  // MAPPO's state: the initial answers' plurality share, distinct answers per agent, mean confidence.
  std::map<std::string, int> votes;
  double confidence = 0.0;
  for (const auto& answer : played.answers.rounds().front()) {
    ++votes[answer->value];
    confidence += answer->confidence.value_or(0.5);
  }
  int plurality = 0;
  for (const auto& [answer, count] : votes) plurality = std::max(plurality, count);
  played.state = {1.0, static_cast<double>(plurality) / n, static_cast<double>(votes.size()) / n, confidence / n};
  return played;
}

Advantages udpo_advantages(const Minibatch& batch, const std::vector<AgentCoefficients>& coefficients) {
  Advantages out;
  for (const AgentCoefficients& c : coefficients) {
    std::vector<double> rewards;
    for (const Played* p : batch.trajectories) rewards.push_back(agent_reward(p->rewards, c).total);
    out.by_agent.push_back(advantages(rewards, batch.fresh));  // b over the fresh trajectories (line 14)
    out.rewards.push_back(std::move(rewards));
  }
  return out;
}

double honest_mean_reward(const Arena& arena, const Advantages& advantage, std::size_t fresh) {
  double sum = 0.0;
  for (std::size_t i = 0; i < arena.agents.size(); ++i)
    if (arena.honest(i))
      for (std::size_t m = 0; m < fresh; ++m) sum += advantage.rewards[i][m];
  return sum / static_cast<double>(fresh * (arena.agents.size() - arena.compromised));
}

AgentStep agent_step(const Minibatch& batch, std::size_t agent, std::span<const double> advantage,
                     const PolicyWeights& weights, const PolicyWeights& reference, double eta, double clip_epsilon) {
  const std::size_t size = batch.size();
  std::vector<ObjectiveSample> samples(size);
  std::vector<Anchor> anchors(size);
  for (std::size_t m = 0; m < size; ++m) {
    const Played& played = *batch.trajectories[m];
    anchors[m] = eta > 0.0 ? anchor_of(played.steps[agent], weights, reference) : Anchor{};
    const double log_probability = log_probability_of(played.steps[agent], weights);
    // An action whose probability underflowed to 0 (log π = −∞: ρ's gradient is 0/0, or ρ = ∞
    // against a behaviour policy that did) or a KL anchor of +∞: the policy left what doubles
    // can represent.
    if (!std::isfinite(log_probability) || !std::isfinite(played.behaviour_log_probability[agent]) ||
        !std::isfinite(anchors[m].value))
      throw DegeneratePolicy{};
    samples[m] = ObjectiveSample{log_probability, played.behaviour_log_probability[agent], advantage[m],
                                 anchors[m].value, batch.importance[m]};
  }
  const AgentObjective objective = agent_objective(samples, eta, clip_epsilon);
  AgentStep step;
  step.objective = objective.objective;
  for (std::size_t m = 0; m < size; ++m) {
    const PolicyWeights d_log = log_probability_gradient(batch.trajectories[m]->steps[agent], weights);
    for (std::size_t f = 0; f < kPolicyFeatures; ++f)
      step.gradient[f] += objective.surrogate_gradient[m] * d_log[f] -
                          eta * batch.importance[m] / static_cast<double>(size) * anchors[m].gradient[f];
  }
  return step;
}

double LinearValue::operator()(const std::array<double, 4>& s) const {
  return std::inner_product(s.begin(), s.end(), w.begin(), 0.0);
}

void LinearValue::fit(const std::vector<std::array<double, 4>>& states, const std::vector<double>& targets) {
  double a[4][5] = {};
  for (std::size_t m = 0; m < states.size(); ++m)
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) a[r][c] += states[m][r] * states[m][c];
      a[r][4] += states[m][r] * targets[m];
    }
  for (int r = 0; r < 4; ++r) a[r][r] += 1e-6;
  for (int col = 0; col < 4; ++col) {  // Gauss–Jordan with partial pivoting
    int pivot = col;
    for (int r = col + 1; r < 4; ++r)
      if (std::abs(a[r][col]) > std::abs(a[pivot][col])) pivot = r;
    std::swap(a[col], a[pivot]);
    for (int r = 0; r < 4; ++r) {
      if (r == col) continue;
      const double factor = a[r][col] / a[col][col];
      for (int c = col; c < 5; ++c) a[r][c] -= factor * a[col][c];
    }
  }
  for (int r = 0; r < 4; ++r) w[r] = a[r][4] / a[r][r];
}

void Adam::ascend(PolicyWeights& weights, PolicyWeights gradient, double learning_rate) {
  double norm = 0.0;
  for (const double g : gradient) norm += g * g;
  norm = std::sqrt(norm);
  if (norm > 1.0)
    for (double& g : gradient) g /= norm;
  ++steps;
  constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEpsilon = 1e-8;
  for (std::size_t f = 0; f < kPolicyFeatures; ++f) {
    first[f] = kBeta1 * first[f] + (1 - kBeta1) * gradient[f];
    second[f] = kBeta2 * second[f] + (1 - kBeta2) * gradient[f] * gradient[f];
    const double corrected_first = first[f] / (1 - std::pow(kBeta1, steps));
    const double corrected_second = second[f] / (1 - std::pow(kBeta2, steps));
    weights[f] += learning_rate * corrected_first / (std::sqrt(corrected_second) + kEpsilon);
  }
}

}  // namespace detail

namespace {

using detail::Adam;
using detail::Advantages;
using detail::AgentStep;
using detail::Arena;
using detail::LinearValue;
using detail::Minibatch;
using detail::Played;
using sim::kPolicyFeatures;
using sim::PolicyWeights;

// Cohen's d of one U between the failed and the successful warm-up debates (§3.2).
std::optional<double> failure_effect(const std::vector<Played>& debates, std::optional<double> UncertaintyMetrics::*u) {
  std::vector<double> failed, succeeded;
  for (const Played& p : debates) {
    if (!(p.uncertainty.*u)) continue;
    (p.rewards.task > 0.5 ? succeeded : failed).push_back(*(p.uncertainty.*u));
  }
  return cohens_d(failed, succeeded);
}

// The mean of one U over the debates that define it; nullopt when none does.
std::optional<double> mean_of(const std::vector<Played>& debates, std::optional<double> UncertaintyMetrics::*u) {
  double sum = 0.0;
  int count = 0;
  for (const Played& p : debates) {
    if (!(p.uncertainty.*u)) continue;
    sum += *(p.uncertainty.*u);
    ++count;
  }
  if (count == 0) return std::nullopt;
  return sum / count;
}

std::string check(const TrainerSettings& s, std::size_t agents, std::size_t tasks) {
  if (agents < 2) return "training needs at least two agents";
  if (s.compromised < 0 || static_cast<std::size_t>(s.compromised) >= agents)
    return fmt::format("{} compromised of {} agents leaves no agent to train", s.compromised, agents);
  if (s.rounds < 1) return "rounds must be at least 1";
  if (s.iterations < 1 || s.batch < 1 || s.epochs < 1) return "iterations, batch and epochs must be at least 1";
  if (!(s.learning_rate > 0.0) || !(s.clip_epsilon > 0.0) || !(s.kappa >= 0.0))
    return "learning_rate and clip must be positive and kappa at least 0";
  if (!(s.warmup_share >= 0.0 && s.warmup_share < 1.0)) return "warmup_share must be in [0, 1)";
  if (s.replay_draws < 0) return "replay_draws must be at least 0";
  if (!(s.replay_correction_start >= 0.0 && s.replay_correction_start <= 1.0))
    return "replay_correction_start must be in [0, 1]";
  // T = 1 leaves r_intra undefined for every debate under readings (a) and (c) of eq. (1) (U-1),
  // which compare rounds 1..T; α^(i) > 0 would weight it.
  if (s.method == Method::kUdpo && s.rounds < 2 && s.intra_reward != IntraReward::kAllTransitions &&
      s.ablation != Ablation::kWithoutIntra)
    return "training.rounds: 1 leaves r_intra undefined (eq. 1 compares rounds 1..T); use training.intra_reward: "
           "all_transitions, training.ablation: intra, or training.rounds of at least 2";
  const auto warmup = static_cast<std::size_t>(std::ceil(s.warmup_share * static_cast<double>(tasks)));
  if (tasks < warmup + 1)
    return fmt::format("{} training task(s) leave none to train on after the warm-up of {} (training.limit, "
                       "training.warmup_share)",
                       tasks, warmup);
  return {};
}

// The warm-up's outcome: each agent's eq. (4) coefficients and the bases they came from.
struct WarmUp {
  std::vector<AgentCoefficients> coefficients;  // one per agent, compromised ones included
  BaseCoefficients bases;
  CohensD d;
  std::string reason;                 // how the bases were set
  std::vector<std::string> warnings;  // a fallback from the rule asked for
  std::size_t debates = 0;
};

std::string describe(const std::optional<double>& d) { return d ? fmt::format("{:.3f}", *d) : "undefined"; }

// U-8: the bases by the rule asked for, then the ablation. Reading (a) sets a base to 0 where the
// warm-up's d of its U is negative (the U is lower in the failed debates, so rewarding its
// reduction would reward failure) or undefined (no evidence). That drops the term from every
// reward and from the replay priority — an ablation nobody asked for — so it is never silent: a
// warning, and the reason recorded with the d values (docs/protocols.md, "UDPO's reference
// trainer"). `bases: equal` keeps every term.
void set_bases(WarmUp& warm, const TrainerSettings& settings) {
  const BaseCoefficients bases = base_coefficients(warm.d, settings.lambda_base, settings.eta_base);
  warm.bases = ablated(bases, settings.ablation);
  if (settings.equal_bases) {
    warm.reason = "bases: equal (U-8 reading (b))";
    return;
  }
  const std::string effects = fmt::format("U_intra {}, U_inter {}, U_sys {}", describe(warm.d.u_intra),
                                          describe(warm.d.u_inter), describe(warm.d.u_sys));
  if (bases.rule == BaseRule::kEqual) {
    warm.reason = "no warm-up Cohen's d is defined and positive (" + effects + "): equal bases, U-8 reading (b)";
    warm.warnings.push_back(warm.reason);
    return;
  }
  const BaseCoefficients kept = ablated(BaseCoefficients{}, settings.ablation);  // 0 where ablated
  std::vector<std::string> zeroed;  // the bases the rule sets to 0 that the ablation keeps
  const auto note = [&](double base, double kept_by_ablation, std::string_view name) {
    if (base == 0.0 && kept_by_ablation != 0.0) zeroed.emplace_back(name);
  };
  note(warm.bases.alpha, kept.alpha, "α_base");
  note(warm.bases.beta, kept.beta, "β_base");
  note(warm.bases.gamma, kept.gamma, "γ_base");
  if (zeroed.empty()) {
    warm.reason = "the warm-up's Cohen's d (" + effects + "), each clipped at 0 and normalised (U-8 reading (a))";
    return;
  }
  warm.reason = fmt::format(
      "the warm-up's Cohen's d ({}) set {} to 0, since a d that is not positive is clipped (U-8 reading (a)): {} "
      "every reward and the replay priority, an ablation not asked for (bases: equal keeps every term)",
      effects, fmt::join(zeroed, " and "), zeroed.size() == 1 ? "the term leaves" : "the terms leave");
  warm.warnings.push_back(warm.reason);
}

// Phases 1 and 2 of App. A.2 (UDPO only): the untrained agents debate the first `count` tasks
// once; the bases come from those debates' failure-vs-success Cohen's d (U-8; set_bases), each
// agent's coefficients from its profile by eqs. (10)–(14).
WarmUp warm_up(const Arena& arena, const TrainerSettings& settings, std::size_t count, std::uint64_t& next_seed) {
  const std::size_t n = arena.agents.size();
  const std::vector<PolicyWeights> untrained(n, PolicyWeights{});
  std::vector<Played> warmup;
  for (std::size_t k = 0; k < count; ++k) warmup.push_back(detail::play(arena, k, next_seed++, untrained));
  WarmUp out;
  out.debates = warmup.size();
  if (!settings.equal_bases && !warmup.empty()) {
    out.d.u_intra = failure_effect(warmup, &UncertaintyMetrics::u_intra);
    out.d.u_inter = failure_effect(warmup, &UncertaintyMetrics::u_inter);
    out.d.u_sys = failure_effect(warmup, &UncertaintyMetrics::u_sys);
  }
  set_bases(out, settings);
  std::vector<AnswerTrajectory> trajectories;
  for (const Played& p : warmup) trajectories.push_back(p.answers);
  ProfileOptions profile_options;
  profile_options.metrics = arena.metrics;
  std::vector<AgentProfile> profiles;
  if (!trajectories.empty()) profiles = warmup_profile(trajectories, profile_options);
  for (std::size_t i = 0; i < n; ++i) {
    AgentProfile profile = profiles.empty() ? AgentProfile{arena.agents[i].name, 0.0, 0.0, 0.0, 0.0} : profiles[i];
    // An agent whose share is undefined on the warm-up (too few rounds for F) counts as stable.
    for (auto* u : {&profile.u_intra, &profile.u_inter, &profile.loo_instability, &profile.u_sys})
      if (!*u) *u = 0.0;
    out.coefficients.push_back(agent_coefficients(profile, out.bases, settings.kappa));
  }
  return out;
}

// Algorithm 1 lines 4–13: a minibatch of M tasks drawn with replacement from the training pool
// (the tasks after the warm-up), each debated once under the current policies.
std::vector<Played> play_fresh(const Arena& arena, const TrainerSettings& settings, std::size_t first_task, Rng& rng,
                               std::uint64_t& next_seed, const std::vector<PolicyWeights>& weights) {
  const std::size_t pool = arena.tasks.size() - first_task;
  std::vector<Played> fresh;
  for (int m = 0; m < settings.batch; ++m) {
    const std::size_t k = first_task + rng.below(pool);
    fresh.push_back(detail::play(arena, k, next_seed++, weights));
  }
  return fresh;
}

}  // namespace

namespace detail {

// β_IS at `iteration`: linear from replay_correction_start at the first iteration to
// replay.correction_exponent at the last (Schaul et al. 2016); the last value when K = 1.
double correction_exponent(const TrainerSettings& settings, int iteration) {
  if (settings.iterations == 1) return settings.replay.correction_exponent;
  const double progress = static_cast<double>(iteration - 1) / static_cast<double>(settings.iterations - 1);
  const double start = settings.replay_correction_start, end = settings.replay.correction_exponent;
  return start + (end - start) * progress;
}

// The update's minibatch: the fresh debates, then (UDPO) `replay_draws` earlier trajectories
// drawn from the buffer by eq. (15) with their importance weights at this iteration's β_IS
// (App. A.3).
Minibatch assemble(const std::vector<Played>& fresh, const std::vector<Played>& buffer, const TrainerSettings& settings,
                   int iteration, Rng& rng) {
  Minibatch batch;
  for (const Played& p : fresh) batch.add(p, 1.0);
  batch.fresh = fresh.size();
  if (settings.method != Method::kUdpo || settings.replay_draws <= 0 || buffer.empty()) return batch;
  std::vector<double> priorities;
  for (const Played& p : buffer) priorities.push_back(p.replay_priority);
  ReplayOptions options = settings.replay;
  options.correction_exponent = correction_exponent(settings, iteration);
  batch.correction_exponent = options.correction_exponent;
  const ReplaySampler sampler(priorities, options);
  for (const auto& draw : sampler.draw(static_cast<std::size_t>(settings.replay_draws), rng))
    batch.add(buffer[draw.index], draw.weight);
  return batch;
}

}  // namespace detail

namespace {

// The MAPPO-style baseline's shared reward r_task + r_inter against the centralised value V(s),
// refit on each minibatch after its advantages are taken (the first minibatch fits it before).
class MappoCritic {
 public:
  Advantages advantages(const Minibatch& batch, std::size_t agents) {
    std::vector<std::array<double, 4>> states;
    std::vector<double> shared_rewards;
    for (const Played* p : batch.trajectories) {
      states.push_back(p->state);
      shared_rewards.push_back(p->rewards.task + p->rewards.inter.value_or(0.0));  // consensus + task
    }
    if (!fitted_) value_.fit(states, shared_rewards);
    Advantages out;
    std::vector<double> advantage;
    for (std::size_t m = 0; m < batch.size(); ++m) advantage.push_back(shared_rewards[m] - value_(states[m]));
    out.by_agent.assign(agents, advantage);
    out.rewards.assign(agents, shared_rewards);
    value_.fit(states, shared_rewards);
    fitted_ = true;
    return out;
  }

 private:
  LinearValue value_;
  bool fitted_ = false;
};

Error degenerate(int iteration, const std::string& agent, const PolicyWeights& w, const TrainerSettings& settings) {
  return Error{fmt::format(
      "iteration {}: agent {}'s revision policy became degenerate (weights {:.4g}, {:.4g}, {:.4g}, {:.4g}: an "
      "action's probability underflowed to 0, so its log-probability and the KL anchor are infinite); lower "
      "training.learning_rate (now {})",
      iteration, agent, w[0], w[1], w[2], w[3], settings.learning_rate)};
}

// The first trained agent whose policy after the update gives an action of the minibatch
// probability 0 or an infinite KL anchor (agent_step checks the weights each step starts from,
// not those the last step leaves).
std::optional<std::size_t> degenerate_agent(const Arena& arena, const Minibatch& batch,
                                            const std::vector<PolicyWeights>& weights,
                                            const std::vector<PolicyWeights>& reference) {
  for (std::size_t i = 0; i < arena.agents.size(); ++i) {
    if (!arena.honest(i)) continue;
    for (const Played* p : batch.trajectories)
      if (!std::isfinite(detail::log_probability_of(p->steps[i], weights[i])) ||
          !std::isfinite(detail::anchor_of(p->steps[i], weights[i], reference[i]).value))
        return i;
  }
  return std::nullopt;
}

// Line 18: maximise L^(i) (eq. 6) by `epochs` Adam steps per trained agent; returns the mean
// over trained agents of L^(i) before the update. An agent whose policy became degenerate
// (detail::DegeneratePolicy) is an Error naming the iteration, the agent and the remedy.
Result<double> update(const Arena& arena, int iteration, const Minibatch& batch, const Advantages& advantage,
                      const std::vector<AgentCoefficients>& coefficients, const std::vector<PolicyWeights>& reference,
                      const TrainerSettings& settings, std::vector<PolicyWeights>& weights,
                      std::vector<Adam>& optimisers) {
  double objective_sum = 0.0;
  int trained = 0;
  for (std::size_t i = 0; i < arena.agents.size(); ++i) {
    if (!arena.honest(i)) continue;
    ++trained;
    const double eta = settings.method == Method::kUdpo ? coefficients[i].eta : 0.0;
    for (int epoch = 0; epoch < settings.epochs; ++epoch) {
      AgentStep step;
      try {
        step = detail::agent_step(batch, i, advantage.by_agent[i], weights[i], reference[i], eta, settings.clip_epsilon);
      } catch (const detail::DegeneratePolicy&) {
        return degenerate(iteration, arena.agents[i].name, weights[i], settings);
      }
      if (epoch == 0) objective_sum += step.objective;
      optimisers[i].ascend(weights[i], step.gradient, settings.learning_rate);
    }
  }
  return trained ? objective_sum / trained : 0.0;
}

// The curve's row: the fresh debates (played by the policy before this update) and the update.
IterationLog curve_row(const Arena& arena, int iteration, const std::vector<Played>& fresh, const Minibatch& batch,
                       const Advantages& advantage, double objective, const std::vector<PolicyWeights>& weights,
                       const std::vector<PolicyWeights>& reference, const TrainerSettings& settings) {
  const std::size_t n = arena.agents.size();
  IterationLog log;
  log.iteration = iteration;
  double correct = 0.0;
  for (const Played& p : fresh) correct += p.rewards.task;
  log.accuracy = correct / static_cast<double>(fresh.size());
  log.u_intra = mean_of(fresh, &UncertaintyMetrics::u_intra);
  log.u_inter = mean_of(fresh, &UncertaintyMetrics::u_inter);
  log.u_sys = mean_of(fresh, &UncertaintyMetrics::u_sys);
  log.objective = objective;
  log.reward = detail::honest_mean_reward(arena, advantage, batch.fresh);
  double anchor_sum = 0.0;
  int clipped = 0, samples = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!arena.honest(i)) continue;
    for (const Played* p : batch.trajectories) {
      anchor_sum += detail::anchor_of(p->steps[i], weights[i], reference[i]).value;
      const double ratio =
          likelihood_ratio(detail::log_probability_of(p->steps[i], weights[i]), p->behaviour_log_probability[i]);
      clipped += ratio < 1.0 - settings.clip_epsilon || ratio > 1.0 + settings.clip_epsilon;
      ++samples;
    }
  }
  log.anchor = samples ? anchor_sum / samples : 0.0;
  log.clipped_share = samples ? static_cast<double>(clipped) / samples : 0.0;
  log.replayed = static_cast<int>(batch.size() - batch.fresh);
  log.correction_exponent = batch.correction_exponent;
  for (std::size_t i = 0; i < n; ++i)
    if (arena.honest(i)) log.weights[arena.agents[i].name] = weights[i];
  return log;
}

// The buffer keeps the latest `capacity` fresh trajectories, oldest first, each with the eq. (15)
// priority it had when it entered (never re-evaluated).
void keep_in_buffer(std::vector<Played>& buffer, std::vector<Played>&& fresh, const BaseCoefficients& bases,
                    std::size_t capacity) {
  for (Played& p : fresh) {
    p.replay_priority = replay_uncertainty(p.rewards, bases);
    buffer.push_back(std::move(p));
  }
  if (buffer.size() > capacity)
    buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(buffer.size() - capacity));
}

}  // namespace

Result<TrainingResult> train(const std::vector<Task>& tasks, const std::vector<TrainingAgent>& agents,
                             std::shared_ptr<const SimulatorParams> params, const TrainerSettings& settings,
                             const TrainingHooks& hooks) {
  if (!params) return Error{"training needs simulator parameters"};
  if (const std::string problem = check(settings, agents.size(), tasks.size()); !problem.empty()) return Error{problem};
  auto made = detail::make_arena(tasks, agents, *params, settings);
  if (!made) return made.error();
  const Arena& arena = *made;
  const std::size_t n = agents.size();
  const auto warmup_count = static_cast<std::size_t>(std::ceil(settings.warmup_share * static_cast<double>(tasks.size())));
  std::uint64_t next_seed = HashBuilder().add("udpo-train").add(settings.seed).value() % (1ULL << 40);

  TrainingResult result;
  result.training_tasks = tasks.size() - warmup_count;
  WarmUp warm;
  warm.coefficients.resize(n);
  if (settings.method == Method::kUdpo) {
    warm = warm_up(arena, settings, warmup_count, next_seed);
    for (std::size_t i = 0; i < n; ++i)
      if (arena.honest(i)) result.coefficients[agents[i].name] = warm.coefficients[i];
    result.bases = warm.bases;
    result.warmup_d = warm.d;
    result.bases_reason = warm.reason;
    result.warnings = warm.warnings;
  }
  result.warmup_debates = warm.debates;
  if (hooks.after_warmup) hooks.after_warmup(result);

  Rng rng(HashBuilder().add("udpo-batches").add(settings.seed).value());
  std::vector<PolicyWeights> weights(n, PolicyWeights{});
  std::vector<Played> buffer;  // the latest trajectories, oldest first
  std::vector<Adam> optimisers(n);
  MappoCritic critic;
  for (int iteration = 1; iteration <= settings.iterations; ++iteration) {
    const std::vector<PolicyWeights> reference = weights;  // θ_ref ← θ (U-10 reading (a))
    std::vector<Played> fresh = play_fresh(arena, settings, warmup_count, rng, next_seed, weights);
    const Minibatch batch = assemble(fresh, buffer, settings, iteration, rng);
    const Advantages advantage = settings.method == Method::kUdpo ? detail::udpo_advantages(batch, warm.coefficients)
                                                                  : critic.advantages(batch, n);
    const Result<double> objective =
        update(arena, iteration, batch, advantage, warm.coefficients, reference, settings, weights, optimisers);
    if (!objective) return objective.error();
    if (const auto agent = degenerate_agent(arena, batch, weights, reference))
      return degenerate(iteration, agents[*agent].name, weights[*agent], settings);
    IterationLog log = curve_row(arena, iteration, fresh, batch, advantage, *objective, weights, reference, settings);
    if (hooks.after_iteration) hooks.after_iteration(log);
    result.curve.push_back(std::move(log));
    if (settings.method == Method::kUdpo) keep_in_buffer(buffer, std::move(fresh), warm.bases, settings.replay_capacity);
  }
  for (std::size_t i = 0; i < n; ++i)
    if (arena.honest(i)) result.weights[agents[i].name] = weights[i];
  return result;
}

Result<Evaluation> evaluate(const std::vector<Task>& tasks, const std::vector<TrainingAgent>& agents,
                            std::shared_ptr<const SimulatorParams> params, const PolicyWeightsByAgent& weights,
                            const TrainerSettings& settings) {
  if (!params) return Error{"evaluation needs simulator parameters"};
  if (tasks.empty()) return Error{"no task to evaluate on"};
  if (agents.size() < 2 || settings.compromised < 0 || static_cast<std::size_t>(settings.compromised) > agents.size())
    return Error{"evaluation needs at least two agents and at most as many compromised"};
  auto made = detail::make_arena(tasks, agents, *params, settings);
  if (!made) return made.error();
  const Arena& arena = *made;
  std::vector<PolicyWeights> by_agent(agents.size(), PolicyWeights{});
  for (std::size_t i = 0; i < agents.size(); ++i)
    if (const auto it = weights.find(agents[i].name); it != weights.end()) by_agent[i] = it->second;
  std::vector<Played> debates;
  std::uint64_t seed = HashBuilder().add("udpo-evaluate").add(settings.seed).value() % (1ULL << 40);
  for (std::size_t k = 0; k < tasks.size(); ++k) debates.push_back(detail::play(arena, k, seed++, by_agent));
  Evaluation evaluation;
  for (const Played& p : debates) evaluation.accuracy += p.rewards.task;
  evaluation.debates = debates.size();
  evaluation.accuracy /= static_cast<double>(debates.size());
  evaluation.u_intra = mean_of(debates, &UncertaintyMetrics::u_intra);
  evaluation.u_inter = mean_of(debates, &UncertaintyMetrics::u_inter);
  evaluation.u_sys = mean_of(debates, &UncertaintyMetrics::u_sys);
  return evaluation;
}

std::string policy_file_json(const PolicyWeightsByAgent& weights, const std::string& metadata) {
  nlohmann::ordered_json out;
  out["format"] = sim::kRevisionPolicyFormat;
  out["agents"] = nlohmann::ordered_json::object();
  for (const auto& [agent, w] : weights) {
    nlohmann::ordered_json entry;
    for (std::size_t f = 0; f < kPolicyFeatures; ++f) entry[sim::policy_feature_name(f)] = w[f];
    out["agents"][agent] = entry;
  }
  if (!metadata.empty()) out["training"] = nlohmann::ordered_json::parse(metadata);
  return out.dump(2) + "\n";
}

}  // namespace parley::udpo
