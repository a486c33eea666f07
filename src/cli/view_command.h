#pragma once
// `parley view DIR`: the run's local web viewer (include/parley/viewer.h) until Ctrl-C.

#include <CLI/CLI.hpp>
#include <string>

#include "parley/viewer.h"

namespace parley::cli {

struct ViewCommand {
  std::string run_dir;
  int port = Viewer::kDefaultPort;
  std::string host = "127.0.0.1";
  CLI::App* command = nullptr;
};

// Registers the subcommand on `app`; its arguments land in `view`, which must outlive parsing.
void add_view_command(CLI::App& app, ViewCommand& view);

// 0 when stopped by SIGINT or SIGTERM; 2 when DIR is not a run; 1 when the address cannot be
// listened on (a port in use).
int command_view(const ViewCommand& view);

}  // namespace parley::cli
