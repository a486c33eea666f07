#pragma once
// ExperimentConfig: an experiment file (YAML) parsed and validated into native types — the
// first stage of the pipeline. Every key is checked: an unknown key, a wrong type, a value out
// of range, an unknown protocol or model reference gives one Error line naming the file, line
// and key. `--set key=value` overrides are applied to the YAML tree before validation.
// The format is documented in docs/formats.md ("Experiment files").

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "parley/chat.h"
#include "parley/dataset.h"
#include "parley/llm_client.h"
#include "parley/protocol.h"
#include "parley/result.h"

namespace parley {

enum class Backend { kSimulator, kOpenAi };

struct ModelConfig {
  std::string name;
  Backend backend = Backend::kSimulator;
  EndpointOptions endpoint;             // openai
  std::string simulator_profile = "default";
  std::filesystem::path simulator_params;  // "" = built-in parameters
  double simulator_delay_ms = 0.0;         // real delay before each simulated reply
  double simulator_lean = 0.0;             // partisan lean on ordered scales, −1 … 1 (docs/simulator.md)
  std::filesystem::path simulator_policy;  // trained revision policies (resolved; "" = none)
};

struct AgentConfig {
  std::string name;
  std::string model;  // a ModelConfig name
  Sampling sampling;
  std::string system_prompt;
};

struct DatasetConfig {
  std::filesystem::path path;  // resolved
  DatasetFormat format = DatasetFormat::kAuto;
  std::optional<std::size_t> limit;
  std::filesystem::path labels;    // label set file for label tasks (resolved; "" = none)
  std::filesystem::path evidence;  // evidence corpus, JSONL of {id, text} (resolved; "" = none)
};

struct ProtocolConfig {
  std::string name;   // registry name
  std::string label;  // display name, unique in the experiment (defaults to name)
  ProtocolParams params;
  std::vector<std::string> agents;  // agent pool by name, in order (default: all agents)
  std::vector<std::string> judges;  // judge panel by agent name (default: the pool's first agent)
  JudgeSettings judging;            // the entry's `judge:` block
  int best_of = 1;                  // drafts per turn kept by the judge (protocols paper Alg. I)
  double best_of_jitter = kPaperBestOfJitter;  // temperature step between drafts; 0: identical, batched
  std::string embedding_model;      // `embeddings:`, a ModelConfig name ("" = none)
  AttackSetup attack;               // `compromised:` and `attack_instruction:` (none by default)
};

// A file an experiment reads. A resume checks its content (a hash of the bytes), so a run
// directory never holds results of two versions of it.
struct InputFile {
  std::string what;  // for messages: "the dataset", "the trigger_model file of protocol 'imad'", ...
  std::filesystem::path path;
};

// Options of the per-debate metrics (docs/protocols.md, "Uncertainty metrics").
struct MetricsConfig {
  double u_intra_lambda = 0.5;  // λ of UDPO's U_intra = λF + (1 − λ)M, in [0, 1]
};

// `training:` — UDPO's reference trainer (`parley train-udpo`; docs/protocols.md, "UDPO's
// reference trainer"). Read and checked with the rest of the file; `parley run` ignores it.
struct TrainingConfig {
  std::string method = "udpo";        // udpo | mappo
  std::string ablation = "none";      // none | intra | inter | sys (Table 2)
  std::string intra_reward = "one_minus_flip_rate";  // | all_transitions | literal (U-1)
  std::string bases = "cohens_d";     // | equal (U-8)
  std::vector<std::string> agents;    // the debaters (default: every agent), simulator models only
  int rounds = 5;
  int compromised = 0;
  int iterations = 40;
  int batch = 32;
  int epochs = 4;
  double learning_rate = 0.05;
  double clip = 0.2;
  double kappa = 1.5;
  double warmup_share = 0.1;
  int replay_buffer = 256;
  int replay_draws = 16;
  double replay_exponent = 1.0;
  double replay_correction_start = 0.4;  // β_IS at the first iteration, annealed linearly to…
  double replay_correction = 1.0;        // …β_IS at the last
  int checkpoint_every = 10;
  std::uint64_t seed = 1;
  std::filesystem::path dataset;      // training tasks (resolved; "" = the experiment's dataset)
  std::optional<std::size_t> limit;
};

// `serve:` — what `parley serve` offers (docs/formats.md, "Serve files"). Each served model is a
// protocol entry, written like one of `protocols:` but with `protocol:` for the registry name
// and `model:` for the name clients send (kept in ProtocolConfig::label).
struct ServeConfig {
  std::vector<ProtocolConfig> models;
  std::filesystem::path store = "served";  // run directory holding the served debates (results.sqlite)
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string api_key_env;                 // environment variable holding the gateway's key ("" = none)
  int max_debates = 64;                    // debates in flight at once
  int max_waiting = 256;                   // requests queued for a slot; one more is answered 429
  double retry_after_s = 1.0;              // a 429's Retry-After
  std::int64_t max_request_bytes = std::int64_t{1} << 20;  // a longer body is answered 413
  int max_connections = 10000;             // open HTTP connections; one more is answered 503
  // Per request: the default, and the most a request may ask for (parley.budget_tokens /
  // parley.deadline_s in the request lower it; docs/formats.md, "parley serve").
  std::optional<std::int64_t> budget_tokens;
  double deadline_s = 600.0;
};

struct ExperimentConfig {
  std::string name;
  std::filesystem::path source;  // the experiment file
  std::vector<ModelConfig> models;
  std::vector<AgentConfig> agents;
  DatasetConfig dataset;
  std::vector<ProtocolConfig> protocols;
  std::vector<std::uint64_t> seeds = {1};
  int concurrency = 256;  // debates in flight
  std::optional<std::int64_t> budget_tokens_per_task;
  int reask_unparsed = 1;
  MetricsConfig metrics;
  std::optional<TrainingConfig> training;
  std::optional<ServeConfig> serve;  // a serve file; then `dataset:` and `protocols:` may be absent

  const ModelConfig* model(const std::string& name) const;
  const AgentConfig* agent(const std::string& name) const;
  // Hash of every setting that changes results (not concurrency), to refuse resuming a run
  // whose experiment changed. Files enter by path here; their contents by input_files().
  std::string fingerprint() const;
  // Every file the experiment reads (dataset, simulator parameters, protocols' file
  // parameters): models', then the dataset, then protocols' in their order.
  std::vector<InputFile> input_files() const;
  // The experiment a gateway runs: this one with the served models as its protocols, no dataset
  // and seed 0, and its budget the serve budget, so that the store of served debates is
  // fingerprinted and checked as a run's is. Requires `serve`.
  ExperimentConfig served_experiment() const;
};

// `overrides` are "key.path=value" strings; the value is read as YAML.
Result<ExperimentConfig> load_experiment(const std::filesystem::path& path,
                                         const std::vector<std::string>& overrides = {});

}  // namespace parley
