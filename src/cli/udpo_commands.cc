// `parley train-udpo EXP.yaml --out DIR`: Algorithm 1 on the simulator's revision policies, with
// the curve (DIR/training.jsonl), checkpoints (DIR/policy-iterK.json) and the final policy file
// (DIR/policy.json), which `models[].policy` reads in any later run.
#include "cli/udpo_commands.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli/output.h"
#include "parley/config.h"
#include "parley/dataset.h"
#include "parley/simulator.h"
#include "parley/udpo_trainer.h"

namespace parley::cli {
namespace {

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 1;

int fail(int code, const std::string& message) {
  fmt::print(stderr, "parley: {}\n", message);
  return code;
}

udpo::TrainerSettings settings_of(const TrainingConfig& t, const ExperimentConfig& config) {
  udpo::TrainerSettings s;
  s.method = t.method == "mappo" ? udpo::Method::kMappo : udpo::Method::kUdpo;
  s.ablation = t.ablation == "intra"   ? udpo::Ablation::kWithoutIntra
               : t.ablation == "inter" ? udpo::Ablation::kWithoutInter
               : t.ablation == "sys"   ? udpo::Ablation::kWithoutSys
                                       : udpo::Ablation::kNone;
  s.intra_reward = t.intra_reward == "all_transitions" ? udpo::IntraReward::kAllTransitions
                   : t.intra_reward == "literal"        ? udpo::IntraReward::kLiteral
                                                        : udpo::IntraReward::kOneMinusFlipRate;
  s.equal_bases = t.bases == "equal";
  s.rounds = t.rounds;
  s.compromised = t.compromised;
  s.iterations = t.iterations;
  s.batch = t.batch;
  s.epochs = t.epochs;
  s.learning_rate = t.learning_rate;
  s.clip_epsilon = t.clip;
  s.kappa = t.kappa;
  s.warmup_share = t.warmup_share;
  s.replay_capacity = static_cast<std::size_t>(t.replay_buffer);
  s.replay_draws = t.replay_draws;
  s.replay.priority_exponent = t.replay_exponent;
  s.replay.correction_exponent = t.replay_correction;
  s.u_intra_lambda = config.metrics.u_intra_lambda;
  s.seed = t.seed;
  return s;
}

nlohmann::json weights_json(const udpo::PolicyWeightsByAgent& weights) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [agent, w] : weights) out[agent] = {w[0], w[1], w[2], w[3]};
  return out;
}

bool write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out.flush());
}

}  // namespace

void add_udpo_commands(CLI::App& app, UdpoCommands& commands) {
  commands.train = app.add_subcommand(
      "train-udpo", "Train simulated agents' revision policies with UDPO's Algorithm 1 (or the MAPPO-style baseline)");
  commands.train->add_option("experiment", commands.experiment, "Experiment file with a training: section")->required();
  commands.train->add_option("--out", commands.out, "Output directory (curve, checkpoints, policy.json)")->required();
  commands.train->add_option("--set", commands.overrides, "Override a key, e.g. --set training.iterations=10")
      ->take_all();
}

int command_train_udpo(const UdpoCommands& commands) {
  auto config = load_experiment(commands.experiment, commands.overrides);
  if (!config) return fail(kExitUsage, config.error().message);
  if (!config->training) return fail(kExitUsage, fmt::format("{}: no training: section", commands.experiment));
  const TrainingConfig& training = *config->training;

  // The debaters: simulator agents of one parameter set.
  std::vector<std::string> names = training.agents;
  if (names.empty())
    for (const auto& a : config->agents) names.push_back(a.name);
  std::vector<udpo::TrainingAgent> agents;
  std::filesystem::path params_file;
  for (const auto& name : names) {
    const AgentConfig& agent = *config->agent(name);
    const ModelConfig& model = *config->model(agent.model);
    if (model.backend != Backend::kSimulator)
      return fail(kExitUsage, fmt::format("agent {}: train-udpo trains simulated agents; model {} is not a simulator",
                                          name, model.name));
    if (!agents.empty() && model.simulator_params != params_file)
      return fail(kExitUsage, "train-udpo: every debater must use the same simulator parameters");
    params_file = model.simulator_params;
    agents.push_back({name, model.simulator_profile, agent.sampling.temperature});
  }
  auto params = params_file.empty() ? Result<std::shared_ptr<const SimulatorParams>>(default_simulator_params())
                                    : load_simulator_params(params_file);
  if (!params) return fail(kExitUsage, params.error().message);
  const std::filesystem::path dataset_path = training.dataset.empty() ? config->dataset.path : training.dataset;
  auto dataset = load_dataset(dataset_path, training.dataset.empty() ? config->dataset.format : DatasetFormat::kAuto,
                              training.dataset.empty() ? config->dataset.limit : training.limit);
  if (!dataset) return fail(kExitUsage, dataset.error().message);

  const std::filesystem::path out(commands.out);
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) return fail(kExitFailure, fmt::format("{}: {}", out.string(), ec.message()));
  std::ofstream curve(out / "training.jsonl", std::ios::binary | std::ios::trunc);
  if (!curve) return fail(kExitFailure, fmt::format("{}: cannot write", (out / "training.jsonl").string()));

  const udpo::TrainerSettings settings = settings_of(training, *config);
  const nlohmann::json metadata = {{"method", training.method}, {"ablation", training.ablation},
                                   {"experiment", config->name}, {"tasks", dataset->tasks.size()},
                                   {"rounds", training.rounds}, {"compromised", training.compromised},
                                   {"seed", training.seed}, {"simulated", true}};
  bool written = true;
  const auto on_iteration = [&](const udpo::IterationLog& row) {
    const nlohmann::json line = {{"iteration", row.iteration},  {"accuracy", row.accuracy}, {"u_intra", row.u_intra},
                                 {"u_inter", row.u_inter},      {"u_sys", row.u_sys},       {"reward", row.reward},
                                 {"objective", row.objective},  {"anchor", row.anchor},
                                 {"clipped_share", row.clipped_share}, {"replayed", row.replayed},
                                 {"weights", weights_json(row.weights)}};
    curve << line.dump() << '\n';
    written = written && static_cast<bool>(curve.flush());
    if (row.iteration % training.checkpoint_every == 0) {
      nlohmann::json at = metadata;
      at["iteration"] = row.iteration;
      written = written && write_text(out / fmt::format("policy-iter{}.json", row.iteration),
                                      udpo::policy_file_json(row.weights, at.dump()));
    }
  };
  const auto result = udpo::train(dataset->tasks, agents, *params, settings, on_iteration);
  if (!result) return fail(kExitUsage, result.error().message);
  nlohmann::json final_metadata = metadata;
  final_metadata["iteration"] = training.iterations;
  for (const auto& [agent, c] : result->coefficients)
    final_metadata["coefficients"][agent] = {{"alpha", c.alpha}, {"beta", c.beta}, {"gamma", c.gamma},
                                             {"lambda", c.lambda}, {"eta", c.eta}};
  written = written && write_text(out / "policy.json", udpo::policy_file_json(result->weights, final_metadata.dump()));
  if (!written) return fail(kExitFailure, fmt::format("{}: writing the training outputs failed", out.string()));

  print_out("SIMULATED: UDPO's reference trainer on parley's simulator ({} {} iterations, {} warm-up debates, {} training tasks)\n",
            training.method, training.iterations, result->warmup_debates, result->training_tasks);
  print_out("{:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9}\n", "iteration", "accuracy", "U_intra", "U_inter", "U_sys",
            "reward", "objective");
  const int step = std::max(1, training.iterations / 10);
  for (const auto& row : result->curve) {
    if (row.iteration % step != 0 && row.iteration != 1) continue;
    print_out("{:>9} {:>8.3f} {:>8.3f} {:>8.3f} {:>8.3f} {:>8.3f} {:>9.4f}\n", row.iteration, row.accuracy, row.u_intra,
              row.u_inter, row.u_sys, row.reward, row.objective);
  }
  print_out("weights (support, keep, recognition, plurality):\n");
  for (const auto& [agent, w] : result->weights)
    print_out("  {:<10} {:>7.3f} {:>7.3f} {:>7.3f} {:>7.3f}\n", agent, w[0], w[1], w[2], w[3]);
  print_out("policy: {}   curve: {}\n", (out / "policy.json").string(), (out / "training.jsonl").string());
  return 0;
}

}  // namespace parley::cli
