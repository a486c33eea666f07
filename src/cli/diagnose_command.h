#pragma once
// `parley diagnose`: UDPO's diagnosis of debate collapse over a stored run
// (include/parley/diagnosis.h).

#include <CLI/CLI.hpp>
#include <string>

namespace parley::cli {

struct DiagnoseCommand {
  std::string run_dir;
  std::string protocol;  // "" = every protocol
  std::string baseline;  // "" = debate, else the first protocol
  bool json = false;
  CLI::App* command = nullptr;
};

// Registers the subcommand on `app`; its arguments land in `diagnose`, which must outlive parsing.
void add_diagnose_command(CLI::App& app, DiagnoseCommand& diagnose);

int command_diagnose(const DiagnoseCommand& diagnose);

}  // namespace parley::cli
