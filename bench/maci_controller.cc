// MACI's engine work per round, next to what the round's LLM calls cost: Controller::observe
// (Algorithm 1 lines 7–16) on a clinical-sized round — 2 agents, 35 outcomes (34 diagnoses and
// "other"), 4 candidate arguments citing 2 spans each (256-dimensional embeddings), 3 judges —
// the bandit's choose + update (UCB and LinUCB), and the acquisition plan's entropy reductions.
// Results in docs/performance.md ("MACI's controller").
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "parley/maci.h"
#include "parley/maci_scheduler.h"

namespace {

using namespace parley::maci;

constexpr std::size_t kOutcomes = 35;
constexpr std::size_t kDimensions = 256;

std::vector<double> unit_vector(std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  std::vector<double> v(kDimensions);
  double norm = 0.0;
  for (double& x : v) {
    x = normal(rng);
    norm += x * x;
  }
  for (double& x : v) x /= std::sqrt(norm);
  return v;
}

Distribution belief(std::mt19937_64& rng) {
  std::gamma_distribution<double> gamma(0.3, 1.0);
  Distribution p(kOutcomes);
  double total = 0.0;
  for (double& x : p) {
    x = gamma(rng);
    total += x;
  }
  for (double& x : p) x /= total;
  return p;
}

// A 6-round debate's inputs, drawn once.
struct Debate {
  InitialState initial;
  std::vector<RoundInput> rounds;
};

Debate debate(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Debate d;
  d.initial.beliefs = {belief(rng), belief(rng)};
  d.initial.evidence_quality = 0.6;
  d.initial.prototype = unit_vector(rng);
  std::uniform_real_distribution<double> score(0.2, 1.0);
  for (int t = 0; t < 6; ++t) {
    RoundInput input;
    for (std::size_t u = 0; u < 2; ++u) input.agents.push_back({belief(rng), {"d" + std::to_string(t), "d9"}});
    for (std::size_t i = 0; i < 4; ++i) {
      CandidateArgument a;
      a.agent = i % 2;
      for (int s = 0; s < 2; ++s) a.spans.push_back({"d" + std::to_string(i + s), unit_vector(rng)});
      a.judge_scores = {score(rng), score(rng), score(rng)};
      input.arguments.push_back(std::move(a));
    }
    d.rounds.push_back(std::move(input));
  }
  return d;
}

// One round's moderation, averaged over a 6-round debate (the controller's history grows).
void BM_ControllerRound(benchmark::State& state) {
  const Debate d = debate(1);
  ControllerSettings settings;
  settings.max_rounds = 6;
  settings.stalemate_rounds = 0;
  for (auto _ : state) {
    Controller controller(settings, d.initial, InitialBins{});
    for (const RoundInput& round : d.rounds) benchmark::DoNotOptimize(controller.observe(round));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(d.rounds.size()));
}
BENCHMARK(BM_ControllerRound);

// choose + update once warmed up by a run's worth of steps.
void BM_SchedulerStep(benchmark::State& state) {
  SchedulerSettings settings;
  settings.policy = state.range(0) == 0 ? SchedulerPolicy::kUcb : SchedulerPolicy::kLinUcb;
  DialScheduler scheduler(settings);
  SchedulerContext context{0.3, -0.05, 0.6, 0.01, 0.04, -0.01, 0.7};
  for (int i = 0; i < 600; ++i) {
    const auto move = scheduler.choose(context, 1e9);
    scheduler.update(*move, context, 0.01 * (i % 7), 3000.0);
  }
  for (auto _ : state) {
    const auto move = scheduler.choose(context, 1e9);
    scheduler.update(*move, context, 0.02, 3000.0);
    benchmark::DoNotOptimize(move);
  }
  state.SetLabel(settings.policy == SchedulerPolicy::kUcb ? "ucb" : "linucb");
}
BENCHMARK(BM_SchedulerStep)->Arg(0)->Arg(1);

// The plan's three pairwise entropy reductions over the final mixture.
void BM_AcquisitionPlan(benchmark::State& state) {
  std::mt19937_64 rng(3);
  const Distribution p = belief(rng);
  for (auto _ : state) {
    double total = 0.0;
    for (std::size_t a = 0; a < 3; ++a)
      for (std::size_t b = a + 1; b < 3; ++b) total += pairwise_test_entropy_reduction(p, a, b);
    benchmark::DoNotOptimize(total);
  }
}
BENCHMARK(BM_AcquisitionPlan);

}  // namespace

BENCHMARK_MAIN();
