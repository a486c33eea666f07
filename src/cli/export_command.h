#pragma once
// `parley export-rl`: a stored run's debates as UDPO training data for an external RL trainer
// (include/parley/rl_export.h; the lines' fields in docs/formats.md, "parley export-rl").

#include <CLI/CLI.hpp>
#include <string>

namespace parley::cli {

struct ExportRlCommand {
  std::string run_dir;
  std::string out;
  std::string protocol;                     // "" = every protocol
  std::string per = "trajectory";           // trajectory | turn
  double kappa = 1.5;
  std::string bases = "cohens-d";           // cohens-d | equal
  std::string intra_reward = "one-minus-flip-rate";  // | all-transitions | literal
  std::string system_profile = "leave-one-out";      // | trajectory-mean | mixed
  double u_intra_lambda = 0.5;
  double replay_floor = 1e-3;
  double replay_exponent = 1.0;
  double replay_correction = 1.0;
  CLI::App* command = nullptr;
};

// Registers the subcommand on `app`; its arguments land in `args`, which must outlive parsing.
void add_export_rl_command(CLI::App& app, ExportRlCommand& args);

int command_export_rl(const ExportRlCommand& args);

}  // namespace parley::cli
