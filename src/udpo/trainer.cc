// UDPO's Algorithm 1 on the simulator's revision policies (parley/udpo_trainer.h). The debate
// is played on the simulator's decision model (the same sim::decide and sim::revision_choice a
// simulated `debate` run uses, without text), so the action probabilities behind ρ, the clip and
// the KL anchor are exact. Choices: docs/protocols.md, "UDPO's reference trainer".
#include "parley/udpo_trainer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "llm/simulator_policy.h"
#include "parley/stats.h"

namespace parley::udpo {
namespace {

using sim::kPolicyFeatures;
using sim::PolicyWeights;

// One revision turn of an honest agent: what it chose between, and what it chose.
struct Step {
  sim::RevisionChoice choice;
  std::size_t chosen = 0;
};

// One debate, as the update reads it.
struct Played {
  AnswerTrajectory answers;
  std::vector<std::vector<Step>> steps;          // per agent (empty for compromised agents)
  std::vector<double> behaviour_log_probability;  // per agent: log π of its steps under the policy that played
  TrajectoryRewards rewards;
  UncertaintyMetrics uncertainty;
  std::array<double, 4> state{};  // MAPPO's centralised critic input, from the initial answers
  double replay_priority = 0.0;   // eq. (15), UDPO
};

// The simulator's side of a training run: parameters, each agent's profile, the policies.
struct Arena {
  const SimulatorParams* params = nullptr;
  std::vector<TrainingAgent> agents;
  std::vector<const SimulatorProfile*> profiles;
  std::size_t compromised = 0;  // the last m agents
  int rounds = 5;
  DebateMetricsOptions metrics;
  IntraReward intra_reward = IntraReward::kOneMinusFlipRate;

  std::vector<std::shared_ptr<const Task>> tasks;  // views of the caller's tasks
  std::vector<sim::TaskLatents> latents;           // one per task

  bool honest(std::size_t agent) const { return agent + compromised < agents.size(); }
};

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

double log_probability_of(const Step& step, const PolicyWeights& weights) {
  return std::log(sim::choice_probabilities(step.choice, weights)[step.chosen]);
}

double log_probability_of(const std::vector<Step>& steps, const PolicyWeights& weights) {
  double total = 0.0;
  for (const Step& step : steps) total += log_probability_of(step, weights);
  return total;
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

// Eq. (8), ℓ_anchor: Σ over the agent's steps of KL(π_θ(·|obs) ‖ π_ref(·|obs)) — the KL between
// the agent's action sequences given what it observed (U-12: exact, over every option) — and its
// gradient Σ_x ∇π_θ(x) log(π_θ(x)/π_ref(x)) (Σ_x ∇π_θ(x) = 0 removes the +1).
struct Anchor {
  double value = 0.0;
  PolicyWeights gradient{};
};
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

// Plays Standard MAD on `task`: round 0 independent answers, then `rounds` revisions, each agent
// shown every other agent's previous answer and confidence (as the `debate` protocol shows them).
Played play(const Arena& arena, const std::shared_ptr<const Task>& task, const sim::TaskLatents& latents,
            std::uint64_t debate_seed, const std::vector<PolicyWeights>& weights) {
  const std::size_t n = arena.agents.size();
  Played played{AnswerTrajectory({}, {}), std::vector<std::vector<Step>>(n), std::vector<double>(n, 0.0), {}, {}, {}, 0.0};
  std::vector<AnswerTrajectory::Round> rounds;
  std::vector<sim::Decision> latest(n);
  for (int t = 0; t <= arena.rounds; ++t) {
    std::vector<sim::Decision> now(n);
    for (std::size_t i = 0; i < n; ++i) {
      Annotations note;
      note.task = task;
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
  played.rewards = trajectory_rewards(played.uncertainty, *task, arena.intra_reward);
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

// Adam (ascent) on one agent's four weights, with App. A.1's gradient clipping at norm 1.
struct Adam {
  PolicyWeights first{}, second{};
  int steps = 0;
  void ascend(PolicyWeights& weights, PolicyWeights gradient, double learning_rate) {
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
};

// MAPPO's centralised value V(s) = w·s, fitted by least squares (a small ridge keeps it defined).
struct LinearValue {
  std::array<double, 4> w{};
  double operator()(const std::array<double, 4>& s) const { return std::inner_product(s.begin(), s.end(), w.begin(), 0.0); }
  void fit(const std::vector<std::array<double, 4>>& states, const std::vector<double>& targets) {
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
};

// Cohen's d of one U between the failed and the successful warm-up debates (§3.2).
std::optional<double> failure_effect(const std::vector<Played>& debates, std::optional<double> UncertaintyMetrics::*u) {
  std::vector<double> failed, succeeded;
  for (const Played& p : debates) {
    if (!(p.uncertainty.*u)) continue;
    (p.rewards.task > 0.5 ? succeeded : failed).push_back(*(p.uncertainty.*u));
  }
  return cohens_d(failed, succeeded);
}

double mean_of(const std::vector<Played*>& debates, std::optional<double> UncertaintyMetrics::*u) {
  double sum = 0.0;
  int count = 0;
  for (const Played* p : debates) {
    if (!(p->uncertainty.*u)) continue;
    sum += *(p->uncertainty.*u);
    ++count;
  }
  return count ? sum / count : 0.0;
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
  const auto warmup = static_cast<std::size_t>(std::ceil(s.warmup_share * static_cast<double>(tasks)));
  if (tasks < warmup + 1) return fmt::format("{} tasks leave none to train on after the warm-up", tasks);
  return {};
}

}  // namespace

Result<TrainingResult> train(const std::vector<Task>& tasks, const std::vector<TrainingAgent>& agents,
                             std::shared_ptr<const SimulatorParams> params, const TrainerSettings& settings,
                             const std::function<void(const IterationLog&)>& on_iteration) {
  if (!params) return Error{"training needs simulator parameters"};
  if (const std::string problem = check(settings, agents.size(), tasks.size()); !problem.empty()) return Error{problem};
  auto made = make_arena(tasks, agents, *params, settings);
  if (!made) return made.error();
  Arena& arena = *made;
  const std::size_t n = agents.size();
  const auto& shared = arena.tasks;
  const auto& latents = arena.latents;
  const auto warmup_count = static_cast<std::size_t>(std::ceil(settings.warmup_share * static_cast<double>(tasks.size())));
  std::uint64_t next_seed = HashBuilder().add("udpo-train").add(settings.seed).value() % (1ULL << 40);

  TrainingResult result;
  result.training_tasks = tasks.size() - warmup_count;
  std::vector<PolicyWeights> weights(n, PolicyWeights{});
  std::vector<AgentCoefficients> coefficients(n);
  BaseCoefficients bases;

  // Phase 1 and 2 of App. A.2: profile the untrained agents on the warm-up tasks, then eqs. (10)–(14).
  if (settings.method == Method::kUdpo) {
    std::vector<Played> warmup;
    for (std::size_t k = 0; k < warmup_count; ++k) warmup.push_back(play(arena, shared[k], latents[k], next_seed++, weights));
    result.warmup_debates = warmup.size();
    CohensD d;
    if (!settings.equal_bases && !warmup.empty()) {
      d.u_intra = failure_effect(warmup, &UncertaintyMetrics::u_intra);
      d.u_inter = failure_effect(warmup, &UncertaintyMetrics::u_inter);
      d.u_sys = failure_effect(warmup, &UncertaintyMetrics::u_sys);
    }
    bases = ablated(base_coefficients(d, settings.lambda_base, settings.eta_base), settings.ablation);
    std::vector<AnswerTrajectory> trajectories;
    for (const Played& p : warmup) trajectories.push_back(p.answers);
    ProfileOptions profile_options;
    profile_options.metrics = arena.metrics;
    std::vector<AgentProfile> profiles;
    if (!trajectories.empty()) profiles = warmup_profile(trajectories, profile_options);
    for (std::size_t i = 0; i < n; ++i) {
      AgentProfile profile = profiles.empty() ? AgentProfile{agents[i].name, 0.0, 0.0, 0.0, 0.0} : profiles[i];
      // An agent whose share is undefined on the warm-up (too few rounds for F) counts as stable.
      for (auto* u : {&profile.u_intra, &profile.u_inter, &profile.loo_instability, &profile.u_sys})
        if (!*u) *u = 0.0;
      coefficients[i] = agent_coefficients(profile, bases, settings.kappa);
      if (arena.honest(i)) result.coefficients[agents[i].name] = coefficients[i];
    }
    result.bases = bases;
  }

  Rng rng(HashBuilder().add("udpo-batches").add(settings.seed).value());
  std::vector<Played> buffer;  // the latest trajectories, oldest first
  std::vector<Adam> optimisers(n);
  LinearValue critic;
  bool critic_fitted = false;
  const std::size_t pool = tasks.size() - warmup_count;

  for (int iteration = 1; iteration <= settings.iterations; ++iteration) {
    const std::vector<PolicyWeights> reference = weights;  // θ_ref ← θ (U-10 reading (a))
    // Algorithm 1 lines 4–13: a minibatch of tasks, debated under the current policies.
    std::vector<Played> fresh;
    for (int m = 0; m < settings.batch; ++m) {
      const std::size_t k = warmup_count + rng.below(pool);
      fresh.push_back(play(arena, shared[k], latents[k], next_seed++, weights));
    }
    // Uncertainty-driven replay (App. A.3), UDPO only: earlier trajectories by eq. (15).
    std::vector<Played*> batch;
    std::vector<double> importance;
    for (Played& p : fresh) {
      batch.push_back(&p);
      importance.push_back(1.0);
    }
    int replayed = 0;
    if (settings.method == Method::kUdpo && settings.replay_draws > 0 && !buffer.empty()) {
      std::vector<double> priorities;
      for (const Played& p : buffer) priorities.push_back(p.replay_priority);
      const ReplaySampler sampler(priorities, settings.replay);
      for (const auto& draw : sampler.draw(static_cast<std::size_t>(settings.replay_draws), rng)) {
        batch.push_back(&buffer[draw.index]);
        importance.push_back(draw.weight);
        ++replayed;
      }
    }
    const std::size_t size = batch.size();

    // Rewards and advantages (eqs. 4 and 9; MAPPO: the shared reward against V).
    std::vector<std::vector<double>> advantage(n, std::vector<double>(size, 0.0));
    double reward_sum = 0.0;
    if (settings.method == Method::kUdpo) {
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> rewards;
        for (const Played* p : batch) rewards.push_back(agent_reward(p->rewards, coefficients[i]).total);
        for (std::size_t m = 0; m < fresh.size(); ++m) reward_sum += rewards[m];
        advantage[i] = advantages(rewards);
      }
    } else {
      std::vector<std::array<double, 4>> states;
      std::vector<double> shared_rewards;
      for (const Played* p : batch) {
        states.push_back(p->state);
        shared_rewards.push_back(p->rewards.task + p->rewards.inter.value_or(0.0));  // consensus + task
      }
      if (!critic_fitted) critic.fit(states, shared_rewards);
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t m = 0; m < size; ++m) advantage[i][m] = shared_rewards[m] - critic(states[m]);
        for (std::size_t m = 0; m < fresh.size(); ++m) reward_sum += shared_rewards[m];
      }
      critic.fit(states, shared_rewards);
      critic_fitted = true;
    }

    // Line 18: maximise L^(i) (eq. 6) by a few Adam steps per trained agent.
    IterationLog log;
    log.iteration = iteration;
    double objective_sum = 0.0;
    int trained = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!arena.honest(i)) continue;
      ++trained;
      const double eta = settings.method == Method::kUdpo ? coefficients[i].eta : 0.0;
      for (int epoch = 0; epoch < settings.epochs; ++epoch) {
        std::vector<ObjectiveSample> samples(size);
        std::vector<Anchor> anchors(size);
        for (std::size_t m = 0; m < size; ++m) {
          anchors[m] = eta > 0.0 ? anchor_of(batch[m]->steps[i], weights[i], reference[i]) : Anchor{};
          samples[m] = ObjectiveSample{log_probability_of(batch[m]->steps[i], weights[i]),
                                       batch[m]->behaviour_log_probability[i], advantage[i][m], anchors[m].value,
                                       importance[m]};
        }
        const AgentObjective objective = agent_objective(samples, eta, settings.clip_epsilon);
        if (epoch == 0) objective_sum += objective.objective;
        PolicyWeights gradient{};
        for (std::size_t m = 0; m < size; ++m) {
          const PolicyWeights d_log = log_probability_gradient(batch[m]->steps[i], weights[i]);
          for (std::size_t f = 0; f < kPolicyFeatures; ++f)
            gradient[f] += objective.surrogate_gradient[m] * d_log[f] -
                           eta * importance[m] / static_cast<double>(size) * anchors[m].gradient[f];
        }
        optimisers[i].ascend(weights[i], gradient, settings.learning_rate);
      }
    }

    // The curve: the fresh debates (played by the policy before this update) and the update.
    std::vector<Played*> fresh_view;
    for (Played& p : fresh) fresh_view.push_back(&p);
    double correct = 0.0;
    for (const Played& p : fresh) correct += p.rewards.task;
    log.accuracy = correct / static_cast<double>(fresh.size());
    log.u_intra = mean_of(fresh_view, &UncertaintyMetrics::u_intra);
    log.u_inter = mean_of(fresh_view, &UncertaintyMetrics::u_inter);
    log.u_sys = mean_of(fresh_view, &UncertaintyMetrics::u_sys);
    log.reward = reward_sum / static_cast<double>(fresh.size() * n);
    log.objective = trained ? objective_sum / trained : 0.0;
    double anchor_sum = 0.0;
    int clipped = 0, samples = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!arena.honest(i)) continue;
      for (std::size_t m = 0; m < size; ++m) {
        anchor_sum += anchor_of(batch[m]->steps[i], weights[i], reference[i]).value;
        const double ratio = likelihood_ratio(log_probability_of(batch[m]->steps[i], weights[i]),
                                              batch[m]->behaviour_log_probability[i]);
        clipped += ratio < 1.0 - settings.clip_epsilon || ratio > 1.0 + settings.clip_epsilon;
        ++samples;
      }
    }
    log.anchor = samples ? anchor_sum / samples : 0.0;
    log.clipped_share = samples ? static_cast<double>(clipped) / samples : 0.0;
    log.replayed = replayed;
    for (std::size_t i = 0; i < n; ++i)
      if (arena.honest(i)) log.weights[agents[i].name] = weights[i];
    if (on_iteration) on_iteration(log);
    result.curve.push_back(log);

    // The buffer keeps the latest trajectories with their eq. (15) priorities.
    if (settings.method == Method::kUdpo) {
      for (Played& p : fresh) {
        p.replay_priority = replay_uncertainty(p.rewards, bases);
        buffer.push_back(std::move(p));
      }
      if (buffer.size() > settings.replay_capacity)
        buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(buffer.size() - settings.replay_capacity));
    }
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
  auto made = make_arena(tasks, agents, *params, settings);
  if (!made) return made.error();
  const Arena& arena = *made;
  std::vector<PolicyWeights> by_agent(agents.size(), PolicyWeights{});
  for (std::size_t i = 0; i < agents.size(); ++i)
    if (const auto it = weights.find(agents[i].name); it != weights.end()) by_agent[i] = it->second;
  std::vector<Played> debates;
  std::uint64_t seed = HashBuilder().add("udpo-evaluate").add(settings.seed).value() % (1ULL << 40);
  for (std::size_t k = 0; k < tasks.size(); ++k) debates.push_back(play(arena, arena.tasks[k], arena.latents[k], seed++, by_agent));
  std::vector<Played*> view;
  Evaluation evaluation;
  for (Played& p : debates) {
    view.push_back(&p);
    evaluation.accuracy += p.rewards.task;
  }
  evaluation.debates = debates.size();
  evaluation.accuracy /= static_cast<double>(debates.size());
  evaluation.u_intra = mean_of(view, &UncertaintyMetrics::u_intra);
  evaluation.u_inter = mean_of(view, &UncertaintyMetrics::u_inter);
  evaluation.u_sys = mean_of(view, &UncertaintyMetrics::u_sys);
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
