#pragma once
// `parley serve CONFIG`: the serve file's models behind an OpenAI-compatible endpoint
// (include/parley/gateway.h) until Ctrl-C.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace parley::cli {

struct ServeCommand {
  std::string config;
  std::vector<std::string> overrides;
  std::optional<std::string> host;
  std::optional<int> port;
  std::optional<std::string> store;
  std::optional<std::string> api_key_env;
  bool quiet = false;
  CLI::App* command = nullptr;
};

// Registers the subcommand on `app`; its arguments land in `serve`, which must outlive parsing.
void add_serve_command(CLI::App& app, ServeCommand& serve);

// 0 when stopped by SIGINT or SIGTERM; 2 when the file is not a serve file; 1 when the gateway
// cannot start (backends, store, address) or the store could not be written.
int command_serve(const ServeCommand& serve);

}  // namespace parley::cli
