// `parley judge-reliability` (MACI App. E.7, Table 10) and `parley maci-bins` (App. F's
// dev-run percentile bins) over a stored run.
#include "cli/maci_commands.h"

#include <fmt/format.h>

#include <optional>

#include "cli/output.h"
#include "parley/maci_report.h"
#include "parley/runner.h"

namespace parley::cli {
namespace {

constexpr int kExitUsage = 2;

// The run, or nothing with its problem printed.
std::optional<StoredRun> stored_run(const std::string& dir) {
  auto run = read_run(dir);
  if (run) return std::move(run.value());
  fmt::print(stderr, "parley: {}\n", run.error().message);
  return std::nullopt;
}

// Whether an analysis failed, its problem then printed.
template <class T>
bool failed(const Result<T>& result) {
  if (result) return false;
  fmt::print(stderr, "parley: {}\n", result.error().message);
  return true;
}

}  // namespace

void add_maci_commands(CLI::App& app, MaciCommands& commands) {
  commands.reliability = app.add_subcommand(
      "judge-reliability", "MACI's CRIT panel reliability over a run (App. E.7): alpha, correlations, winner flips");
  commands.bins =
      app.add_subcommand("maci-bins", "MACI's first-contentiousness bins from a development run (App. F percentiles)");
  for (CLI::App* command : {commands.reliability, commands.bins}) {
    command->add_option("dir", commands.run_dir, "Run directory")->required();
    command->add_option("--protocol", commands.protocol, "Label of the maci entry")->capture_default_str();
  }
  commands.reliability->add_flag("--json", commands.json, "Print JSON instead of the table");
}

int command_judge_reliability(const MaciCommands& commands) {
  const auto run = stored_run(commands.run_dir);
  if (!run) return kExitUsage;
  const auto reliability = judge_reliability(run->transcripts, commands.protocol);
  if (failed(reliability)) return kExitUsage;
  if (commands.json) {
    print_out("{}\n", judge_reliability_to_json(*reliability));
    return 0;
  }
  if (run->simulated) print_out("SIMULATED: these numbers come from parley's built-in simulator.\n");
  print_out("{}", render_judge_reliability(*reliability));
  return 0;
}

int command_maci_bins(const MaciCommands& commands) {
  const auto run = stored_run(commands.run_dir);
  if (!run) return kExitUsage;
  const auto bins = percentile_bins(run->transcripts, commands.protocol);
  if (failed(bins)) return kExitUsage;
  if (run->simulated) print_out("# SIMULATED: from a run on parley's built-in simulator.\n");
  print_out("{}", render_percentile_bins(*bins));
  return 0;
}

}  // namespace parley::cli
