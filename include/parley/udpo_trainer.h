#pragma once
// UDPO's Algorithm 1 (App. A.4) on the simulator: the reference trainer. Each simulated agent's
// revision behaviour is a parametric policy with exact action probabilities (docs/simulator.md,
// "Revision policies", eq. 27); the trainer plays Standard MAD (every agent answers, then for
// T rounds revises after reading all peers' previous answers; majority vote) on the simulator's
// decision model, and updates each agent's four weights by the clipped objective with its KL
// anchor (parley/udpo.h). Also a MAPPO-style baseline of our own design (UDPO §5.1 gives no
// details; docs/protocols.md, "UDPO's reference trainer"). Deterministic for a seed; single
// thread. SIMULATED: it trains the simulator's agents, never a language model.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parley/result.h"
#include "parley/task.h"
#include "parley/udpo.h"

namespace parley {

struct SimulatorParams;

namespace udpo {

enum class Method {
  kUdpo,   // Algorithm 1 with agent-tailored rewards, replay and the KL anchor
  kMappo,  // our MAPPO-style baseline: a shared consensus + task reward, a centralised value
};

struct TrainerSettings {
  Method method = Method::kUdpo;
  Ablation ablation = Ablation::kNone;                // Table 2's "w/o" variants (UDPO only)
  IntraReward intra_reward = IntraReward::kOneMinusFlipRate;
  bool equal_bases = false;                           // U-8 reading (b) instead of Cohen's d
  int rounds = 5;                                     // T (§3.1)
  int compromised = 0;                                // the last m agents: adversaries, not trained
  int iterations = 40;                                // K
  int batch = 32;                                     // M trajectories per update (App. A.1)
  int epochs = 4;                                     // gradient steps per iteration (ours)
  double learning_rate = 0.05;                        // Adam on four weights (ours; App. A.1's 1e-5 is for LLMs)
  double clip_epsilon = 0.2;                          // ϵ (U-14)
  double kappa = 1.5;                                 // κ (App. A.2)
  double lambda_base = 1.0;                           // λ_base (App. A.2)
  double eta_base = 0.01;                             // η_base (App. A.2)
  double warmup_share = 0.1;                          // warm-up tasks: this share of the training set
  std::size_t replay_capacity = 256;                  // the buffer keeps the latest trajectories
  int replay_draws = 16;                              // replayed trajectories per iteration (UDPO)
  ReplayOptions replay;                               // ε_p, η, and β_IS at the last iteration
  double replay_correction_start = 0.4;               // β_IS at the first iteration, annealed linearly to replay's
  double u_intra_lambda = 0.5;                        // λ of U_intra
  std::uint64_t seed = 1;
};

// A debater: its name (as in transcripts and policy files), simulator profile and temperature.
struct TrainingAgent {
  std::string name;
  std::string profile = "default";
  double temperature = 0.7;
};

using PolicyWeightsByAgent = std::map<std::string, std::array<double, 4>>;  // support, keep, recognition, plurality

// One row of the training curve: the iteration's fresh debates under the policy that played
// them, and the update.
struct IterationLog {
  int iteration = 0;                 // 1..K
  double accuracy = 0.0;             // r_task over the fresh debates
  std::optional<double> u_intra;     // means over the fresh debates that define each; nullopt
  std::optional<double> u_inter;     // when none does (U_intra with T = 1)
  std::optional<double> u_sys;
  double reward = 0.0;               // mean total reward over the honest agents and the fresh debates
  double objective = 0.0;            // mean over trained agents of L^(i) before the update
  double anchor = 0.0;               // mean KL to the reference after the update
  double clipped_share = 0.0;        // share of (agent, trajectory) samples whose ratio left [1 − ϵ, 1 + ϵ] after the update
  int replayed = 0;                  // replayed trajectories in the update
  double correction_exponent = 0.0;  // β_IS of their importance weights (UDPO; 0 without replay)
  PolicyWeightsByAgent weights;      // after the update
};

struct TrainingResult {
  std::vector<IterationLog> curve;
  PolicyWeightsByAgent weights;                      // the trained agents' final weights
  std::map<std::string, AgentCoefficients> coefficients;  // UDPO's, from the warm-up
  std::optional<BaseCoefficients> bases;                  // UDPO's, after the ablation
  CohensD warmup_d;          // UDPO's warm-up failure-vs-success d of each U (nullopt: undefined or not computed)
  std::string bases_reason;  // why the bases are what they are (UDPO): the rule, the d, any base set to 0
  std::vector<std::string> warnings;  // what a user should know about the run (printed by the CLI)
  std::size_t warmup_debates = 0;
  std::size_t training_tasks = 0;
};

// What a caller sees while training runs: the warm-up's outcome (`result` filled but for the
// curve and the final weights) before the first iteration, then each curve row as it is made
// (checkpoints, progress).
struct TrainingHooks {
  std::function<void(const TrainingResult&)> after_warmup;
  std::function<void(const IterationLog&)> after_iteration;
};

// Trains the honest agents on `tasks` (the warm-up takes the first warmup_share of them, the
// rest are sampled M at a time). Errors: fewer than two agents, m ≥ N, too few tasks, an unknown
// profile, bad settings (e.g. a weighted r_intra that T = 1 leaves undefined), or a policy
// driven to a degenerate distribution (an action's probability underflowing to 0, which makes ρ
// and the KL anchor infinite), named with its iteration and agent.
Result<TrainingResult> train(const std::vector<Task>& tasks, const std::vector<TrainingAgent>& agents,
                             std::shared_ptr<const SimulatorParams> params, const TrainerSettings& settings,
                             const TrainingHooks& hooks = {});

// Standard MAD played once on every task under `weights` (agents without weights: the
// simulator's own behaviour), with settings.rounds, settings.compromised and debate seeds drawn
// from settings.seed: the same seeds for any weights, so two policies are compared on the same
// draws. The means of U are over the debates that define them.
struct Evaluation {
  std::size_t debates = 0;
  double accuracy = 0.0;
  std::optional<double> u_intra;  // nullopt when no debate defines it
  std::optional<double> u_inter;
  std::optional<double> u_sys;
};
Result<Evaluation> evaluate(const std::vector<Task>& tasks, const std::vector<TrainingAgent>& agents,
                            std::shared_ptr<const SimulatorParams> params, const PolicyWeightsByAgent& weights,
                            const TrainerSettings& settings);

// The policy file of `weights` (docs/formats.md, "Policy files"), with `metadata` (a JSON object
// text, or "") as a top-level "training" key.
std::string policy_file_json(const PolicyWeightsByAgent& weights, const std::string& metadata = "");

}  // namespace udpo
}  // namespace parley
