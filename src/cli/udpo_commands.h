#pragma once
// `parley train-udpo`: UDPO's reference trainer on the simulator (include/parley/udpo_trainer.h).

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace parley::cli {

struct UdpoCommands {
  std::string experiment;
  std::string out;
  std::vector<std::string> overrides;
  CLI::App* train = nullptr;
};

// Registers the subcommand on `app`; its arguments land in `commands`, which must outlive parsing.
void add_udpo_commands(CLI::App& app, UdpoCommands& commands);

int command_train_udpo(const UdpoCommands& commands);

}  // namespace parley::cli
