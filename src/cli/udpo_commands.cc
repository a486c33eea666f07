// `parley train-udpo EXP.yaml --out DIR`: Algorithm 1 on the simulator's revision policies, with
// the curve (DIR/training.jsonl: a metadata header, then one row per iteration), checkpoints
// (DIR/policy-iterK.json) and the final policy file (DIR/policy.json), which `models[].policy`
// reads in any later run. Every file carries the settings that determine the result.
#include "cli/udpo_commands.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>

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

using Json = nlohmann::ordered_json;  // keys in the order written, as docs/formats.md lists them

int fail(int code, const std::string& message) {
  fmt::print(stderr, "parley: {}\n", message);
  return code;
}

void warn(const std::string& message) { fmt::print(stderr, "parley: warning: {}\n", message); }

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
  s.replay_correction_start = t.replay_correction_start;
  s.u_intra_lambda = config.metrics.u_intra_lambda;
  s.seed = t.seed;
  return s;
}

// The training tasks: `training.dataset` if given, else the experiment's dataset; `training.limit`
// keeps the first n of either (without it the experiment's `dataset.limit` applies to its own
// dataset only).
struct TrainingData {
  std::filesystem::path path;
  DatasetFormat format = DatasetFormat::kAuto;
  std::optional<std::size_t> limit;
  bool is_evaluation_dataset = false;
};
TrainingData training_data(const TrainingConfig& training, const ExperimentConfig& config) {
  if (training.dataset.empty())
    return {config.dataset.path, config.dataset.format, training.limit ? training.limit : config.dataset.limit, true};
  return {training.dataset, DatasetFormat::kAuto, training.limit, false};
}

// How many training tasks are also evaluation tasks (the experiment's dataset, as `parley run`
// reads it): the same question with the same options.
std::size_t overlap(const std::vector<Task>& training, const std::vector<Task>& evaluation) {
  std::set<std::pair<std::string, std::vector<std::string>>> evaluated;
  for (const Task& task : evaluation) evaluated.emplace(task.question, task.options);
  std::size_t shared = 0;
  for (const Task& task : training) shared += evaluated.count({task.question, task.options});
  return shared;
}

template <typename T>
Json optional_json(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

std::string base_rule_name(udpo::BaseRule rule) { return rule == udpo::BaseRule::kCohensD ? "cohens_d" : "equal"; }

// Every setting that determines the result (docs/formats.md, "Training outputs"): the header of
// training.jsonl and the `training` key of the policy files. UDPO's own settings (ablation,
// replay, bases) only for UDPO.
Json settings_json(const TrainingConfig& t, const udpo::TrainerSettings& s, const ExperimentConfig& config,
                   const std::vector<udpo::TrainingAgent>& agents, const std::filesystem::path& params_file) {
  Json out = {{"simulated", true}, {"experiment", config.name}, {"method", t.method}};
  Json debaters = Json::array();
  for (const auto& a : agents)
    debaters.push_back({{"name", a.name}, {"profile", a.profile}, {"temperature", a.temperature}});
  out["agents"] = debaters;
  out["simulator_params"] = params_file.empty() ? "built-in" : params_file.string();
  out["rounds"] = s.rounds;
  out["compromised"] = s.compromised;
  out["iterations"] = s.iterations;
  out["batch"] = s.batch;
  out["epochs"] = s.epochs;
  out["learning_rate"] = s.learning_rate;
  out["clip"] = s.clip_epsilon;
  out["seed"] = s.seed;
  out["u_intra_lambda"] = s.u_intra_lambda;
  out["warmup_share"] = s.warmup_share;  // MAPPO does not train on the warm-up tasks either
  if (s.method == udpo::Method::kUdpo) {
    out["ablation"] = t.ablation;
    out["intra_reward"] = t.intra_reward;
    out["bases_asked"] = t.bases;
    out["kappa"] = s.kappa;
    out["lambda_base"] = s.lambda_base;
    out["eta_base"] = s.eta_base;
    out["replay"] = {{"buffer", s.replay_capacity},
                     {"draws", s.replay_draws},
                     {"exponent", s.replay.priority_exponent},
                     {"floor", s.replay.priority_floor},
                     {"correction_start", s.replay_correction_start},
                     {"correction", s.replay.correction_exponent}};
  }
  return out;
}

// The warm-up's outcome (UDPO): the bases, the rule and reason that set them, the Cohen's d they
// came from, and each trained agent's coefficients.
void add_warmup(Json& metadata, const udpo::TrainingResult& warm) {
  metadata["warmup_debates"] = warm.warmup_debates;
  metadata["training_tasks"] = warm.training_tasks;
  if (!warm.bases) return;
  const udpo::BaseCoefficients& b = *warm.bases;
  const Json d = {{"u_intra", optional_json(warm.warmup_d.u_intra)},
                  {"u_inter", optional_json(warm.warmup_d.u_inter)},
                  {"u_sys", optional_json(warm.warmup_d.u_sys)}};
  metadata["bases"] = {{"alpha", b.alpha},   {"beta", b.beta}, {"gamma", b.gamma},
                       {"lambda", b.lambda}, {"eta", b.eta},   {"rule", base_rule_name(b.rule)},
                       {"reason", warm.bases_reason}, {"cohens_d", d}};
  for (const auto& [agent, c] : warm.coefficients)
    metadata["coefficients"][agent] = {{"alpha", c.alpha}, {"beta", c.beta}, {"gamma", c.gamma},
                                       {"lambda", c.lambda}, {"eta", c.eta}};
}

std::string optional_cell(const std::optional<double>& value) {
  return value ? fmt::format("{:>8.3f}", *value) : fmt::format("{:>8}", "-");
}

Json weights_json(const udpo::PolicyWeightsByAgent& weights) {
  Json out = Json::object();
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
  const TrainingData data = training_data(training, *config);
  auto dataset = load_dataset(data.path, data.format, data.limit);
  if (!dataset) return fail(kExitUsage, dataset.error().message);
  // Training on the tasks a run evaluates on inflates the evaluation: say so, and record it.
  // The evaluation tasks as `parley run` reads them (its dataset.limit applies, which the training
  // set from the same file may exceed).
  auto evaluation = load_dataset(config->dataset.path, config->dataset.format, config->dataset.limit);
  if (!evaluation) return fail(kExitUsage, evaluation.error().message);
  const std::size_t shared_with_evaluation = overlap(dataset->tasks, evaluation->tasks);
  if (shared_with_evaluation > 0)
    warn(fmt::format("{} of the {} training tasks are also the experiment's evaluation tasks ({}); set "
                     "training.dataset to train on other tasks",
                     shared_with_evaluation, dataset->tasks.size(), config->dataset.path.string()));

  if (training.method == "mappo" && training.ablation != "none")
    warn(fmt::format("training.ablation: {} does not apply to method mappo (its reward has no uncertainty "
                     "terms); it is ignored",
                     training.ablation));

  const std::filesystem::path out(commands.out);
  std::error_code ec;
  // A directory holding an earlier training run would mix its checkpoints with this run's (an old
  // policy.json would look like this run's result if it stopped early): refused, nothing removed.
  for (std::filesystem::directory_iterator entry(out, ec), end; !ec && entry != end; entry.increment(ec)) {
    const std::string name = entry->path().filename().string();
    if (name == "training.jsonl" || (name.starts_with("policy") && name.ends_with(".json")))
      return fail(kExitUsage, fmt::format("{}: holds an earlier training run ({}); give another --out or remove it",
                                          out.string(), name));
  }
  ec.clear();
  std::filesystem::create_directories(out, ec);
  if (ec) return fail(kExitFailure, fmt::format("{}: {}", out.string(), ec.message()));
  std::ofstream curve(out / "training.jsonl", std::ios::binary | std::ios::trunc);
  if (!curve) return fail(kExitFailure, fmt::format("{}: cannot write", (out / "training.jsonl").string()));

  const udpo::TrainerSettings settings = settings_of(training, *config);
  Json metadata = settings_json(training, settings, *config, agents, params_file);
  metadata["dataset"] = {{"path", data.path.string()},
                         {"limit", optional_json(data.limit)},
                         {"tasks", dataset->tasks.size()}};
  metadata["evaluation_dataset"] = {
      {"path", config->dataset.path.string()},
      {"limit", optional_json(config->dataset.limit)},
      {"shared_tasks", shared_with_evaluation}};
  bool written = true;
  udpo::TrainingHooks hooks;
  hooks.after_warmup = [&](const udpo::TrainingResult& warm) {
    for (const auto& warning : warm.warnings) warn(warning);
    add_warmup(metadata, warm);
    curve << Json{{"training", metadata}}.dump() << '\n';
    written = written && static_cast<bool>(curve.flush());
  };
  hooks.after_iteration = [&](const udpo::IterationLog& row) {
    Json line = {{"iteration", row.iteration},
                           {"accuracy", row.accuracy},
                           {"u_intra", optional_json(row.u_intra)},
                           {"u_inter", optional_json(row.u_inter)},
                           {"u_sys", optional_json(row.u_sys)},
                           {"reward", row.reward},
                           {"objective", row.objective},
                           {"anchor", row.anchor},
                           {"clipped_share", row.clipped_share},
                           {"replayed", row.replayed}};
    if (settings.method == udpo::Method::kUdpo) line["correction_exponent"] = row.correction_exponent;
    line["weights"] = weights_json(row.weights);
    curve << line.dump() << '\n';
    written = written && static_cast<bool>(curve.flush());
    if (row.iteration % training.checkpoint_every == 0) {
      Json at = metadata;
      at["iteration"] = row.iteration;
      written = written && write_text(out / fmt::format("policy-iter{}.json", row.iteration),
                                      udpo::policy_file_json(row.weights, at.dump()));
    }
  };
  const auto result = udpo::train(dataset->tasks, agents, *params, settings, hooks);
  if (!result) return fail(kExitUsage, result.error().message);
  Json final_metadata = metadata;
  final_metadata["iteration"] = training.iterations;
  written = written && write_text(out / "policy.json", udpo::policy_file_json(result->weights, final_metadata.dump()));
  if (!written) return fail(kExitFailure, fmt::format("{}: writing the training outputs failed", out.string()));

  print_out("SIMULATED: UDPO's reference trainer on parley's simulator ({} {} iterations, {} warm-up debates, {} training tasks)\n",
            training.method, training.iterations, result->warmup_debates, result->training_tasks);
  print_out("{:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9}\n", "iteration", "accuracy", "U_intra", "U_inter", "U_sys",
            "reward", "objective");
  const int step = std::max(1, training.iterations / 10);
  for (const auto& row : result->curve) {
    if (row.iteration % step != 0 && row.iteration != 1) continue;
    print_out("{:>9} {:>8.3f} {} {} {} {:>8.3f} {:>9.4f}\n", row.iteration, row.accuracy, optional_cell(row.u_intra),
              optional_cell(row.u_inter), optional_cell(row.u_sys), row.reward, row.objective);
  }
  print_out("weights (support, keep, recognition, plurality):\n");
  for (const auto& [agent, w] : result->weights)
    print_out("  {:<10} {:>7.3f} {:>7.3f} {:>7.3f} {:>7.3f}\n", agent, w[0], w[1], w[2], w[3]);
  print_out("policy: {}   curve: {}\n", (out / "policy.json").string(), (out / "training.jsonl").string());
  return 0;
}

}  // namespace parley::cli
