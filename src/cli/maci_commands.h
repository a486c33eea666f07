#pragma once
// `parley judge-reliability` and `parley maci-bins`: MACI's analyses of a stored run
// (include/parley/maci_report.h).

#include <CLI/CLI.hpp>
#include <string>

namespace parley::cli {

struct MaciCommands {
  std::string run_dir;
  std::string protocol = "maci";
  bool json = false;
  CLI::App* reliability = nullptr;
  CLI::App* bins = nullptr;
};

// Registers both subcommands on `app`; their arguments land in `commands`, which must outlive
// parsing.
void add_maci_commands(CLI::App& app, MaciCommands& commands);

int command_judge_reliability(const MaciCommands& commands);
int command_maci_bins(const MaciCommands& commands);

}  // namespace parley::cli
