// `parley diagnose` (UDPO §3.2, §5.5, App. C.4): failed vs successful debates, correlations,
// selective prediction and difficulty strata over a stored run.
#include "cli/diagnose_command.h"

#include <fmt/format.h>

#include "cli/output.h"
#include "parley/diagnosis.h"
#include "parley/runner.h"

namespace parley::cli {
namespace {

constexpr int kExitUsage = 2;

}  // namespace

void add_diagnose_command(CLI::App& app, DiagnoseCommand& diagnose) {
  diagnose.command = app.add_subcommand(
      "diagnose",
      "UDPO's diagnosis of debate collapse over a run: U of failed vs successful debates (t-tests, Cohen's d), "
      "correlations, selective prediction, difficulty strata");
  diagnose.command->add_option("dir", diagnose.run_dir, "Run directory")->required();
  diagnose.command->add_option("--protocol", diagnose.protocol, "Diagnose this protocol only (default: all)");
  diagnose.command->add_option("--baseline", diagnose.baseline,
                               "Protocol whose U defines the difficulty strata (default: debate, else the first)");
  diagnose.command->add_flag("--json", diagnose.json, "Print JSON instead of the tables");
}

int command_diagnose(const DiagnoseCommand& diagnose) {
  const auto run = read_run(diagnose.run_dir);
  if (!run) {
    fmt::print(stderr, "parley: {}\n", run.error().message);
    return kExitUsage;
  }
  const auto diagnosis = parley::diagnose(run->transcripts, run->protocol_order,
                                          {.protocol = diagnose.protocol,
                                           .baseline = diagnose.baseline,
                                           .simulated = run->simulated});
  if (!diagnosis) {
    fmt::print(stderr, "parley: {}\n", diagnosis.error().message);
    return kExitUsage;
  }
  print_out("{}", diagnose.json ? diagnosis_to_json(*diagnosis) + "\n" : render_diagnosis(*diagnosis));
  return 0;
}

}  // namespace parley::cli
