#pragma once
// `parley features` and `parley train-trigger`: iMAD's trigger from the command line
// (include/parley/trigger.h).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "parley/trigger_model.h"

namespace parley::cli {

struct FeaturesArgs {
  std::string question;
  std::string response_file;  // "-" = standard input
  std::string model;          // optional: also score the response with this trigger model
};

struct TrainTriggerArgs {
  std::string run_dir;  // "" with examples_in
  std::string out;
  TrainOptions options;
  double validation = 0.2;
  std::string mad_reference = "mad";
  std::string examples_out;  // optional: every example as a JSONL line (features, label, split)
  std::string examples_in;   // optional: examples written by examples_out, instead of the run
  bool quiet = false;
};

struct TriggerCommands {
  FeaturesArgs features_args;
  TrainTriggerArgs train_args;
  CLI::App* features = nullptr;
  CLI::App* train = nullptr;
};

// Registers both subcommands on `app`; their arguments land in the returned struct, which must
// outlive parsing.
void add_trigger_commands(CLI::App& app, TriggerCommands& commands);

int command_features(const FeaturesArgs& args);
int command_train_trigger(const TrainTriggerArgs& args);

}  // namespace parley::cli
