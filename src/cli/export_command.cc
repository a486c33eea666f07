// `parley export-rl DIR --out FILE`: every completed debate of a stored run as JSON lines of UDPO
// training data (include/parley/rl_export.h), written whole or not at all.
#include "cli/export_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <string_view>

#include "cli/output.h"
#include "cli/run_files.h"
#include "core/files.h"
#include "parley/rl_export.h"
#include "parley/runner.h"

namespace parley::cli {
namespace {

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 1;

int fail(int code, std::string_view message) {
  fmt::print(stderr, "parley: {}\n", message);
  return code;
}

udpo::ExportOptions options_of(const ExportRlCommand& args) {
  udpo::ExportOptions o;
  o.protocol = args.protocol;
  o.unit = args.per == "turn" ? udpo::ExportUnit::kTurn : udpo::ExportUnit::kTrajectory;
  o.kappa = args.kappa;
  o.bases = args.bases == "equal" ? udpo::BaseRule::kEqual : udpo::BaseRule::kCohensD;
  o.intra_reward = args.intra_reward == "all-transitions" ? udpo::IntraReward::kAllTransitions
                   : args.intra_reward == "literal"       ? udpo::IntraReward::kLiteral
                                                          : udpo::IntraReward::kOneMinusFlipRate;
  o.system_profile = args.system_profile == "trajectory-mean" ? udpo::SystemProfile::kTrajectoryMean
                     : args.system_profile == "mixed"         ? udpo::SystemProfile::kMixed
                                                              : udpo::SystemProfile::kLeaveOneOut;
  o.u_intra_lambda = args.u_intra_lambda;
  o.replay.priority_floor = args.replay_floor;
  o.replay.priority_exponent = args.replay_exponent;
  o.replay.correction_exponent = args.replay_correction;
  return o;
}

}  // namespace

void add_export_rl_command(CLI::App& app, ExportRlCommand& args) {
  args.command = app.add_subcommand(
      "export-rl",
      "Export a run's debates as UDPO training data for an RL trainer: one JSON line per agent trajectory (or turn) "
      "with its messages, rewards, coefficients, advantage and replay priority");
  auto* c = args.command;
  c->add_option("dir", args.run_dir, "Run directory (holds results.sqlite)")->required();
  c->add_option("--out", args.out, "Output file (JSON lines), replaced whole")->required();
  c->add_option("--protocol", args.protocol, "Export this protocol only (default: all)");
  c->add_option("--per", args.per, "One line per agent trajectory, or per agent turn (prompt-completion pairs)")
      ->check(CLI::IsMember({"trajectory", "turn"}))
      ->capture_default_str();
  c->add_option("--kappa", args.kappa, "κ of the agent-tailored coefficients, eqs. (10)-(14)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  c->add_option("--bases", args.bases,
                "α, β, γ bases: Cohen's d of each U over the exported debates (U-8 (a)), or 1/3 each")
      ->check(CLI::IsMember({"cohens-d", "equal"}))
      ->capture_default_str();
  c->add_option("--intra-reward", args.intra_reward, "Reading of r_intra, eq. (1) (U-1 (a), (b), (c))")
      ->check(CLI::IsMember({"one-minus-flip-rate", "all-transitions", "literal"}))
      ->capture_default_str();
  c->add_option("--system-profile", args.system_profile, "Reading of Ū_sys^(i) in eqs. (13)-(14) (U-7 (a), (b), (c))")
      ->check(CLI::IsMember({"leave-one-out", "trajectory-mean", "mixed"}))
      ->capture_default_str();
  c->add_option("--u-intra-lambda", args.u_intra_lambda, "λ of U_intra = λF + (1 - λ)M (the run's metrics.u_intra_lambda)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  c->add_option("--replay-floor", args.replay_floor, "ε_p of the replay priority p ∝ (U + ε_p)^η, eq. (15)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  c->add_option("--replay-exponent", args.replay_exponent, "η of eq. (15) (0: uniform)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  c->add_option("--replay-correction", args.replay_correction, "β_IS of the importance weights")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
}


int command_export_rl(const ExportRlCommand& args) {
  if (args.out.empty()) return fail(kExitUsage, "--out: an empty path");
  const std::filesystem::path out(args.out);
  if (is_a_run_file(out, args.run_dir))
    return fail(kExitUsage, fmt::format("{}: is one of the run's own files; write the export elsewhere", args.out));
  const std::filesystem::path parent = out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(parent))
    return fail(kExitUsage, fmt::format("{}: the directory {} does not exist", args.out, parent.string()));
  const auto run = read_run(args.run_dir);
  if (!run) return fail(kExitUsage, run.error().message);
  const auto exported = udpo::export_rl(run->transcripts, options_of(args));
  if (!exported) return fail(kExitUsage, fmt::format("{}: {}", args.run_dir, exported.error().message));

  OutputFile file(out);
  for (const std::string& line : exported->lines) {
    file.append(line);
    file.append("\n");
  }
  if (auto ok = file.commit(); !ok) return fail(kExitFailure, fmt::format("{}: {}", args.out, ok.error().message));

  std::size_t skipped = 0;
  std::string reasons;
  for (const auto& [reason, count] : exported->skipped) {
    skipped += count;
    reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", count, reason);
  }
  if (skipped > 0) fmt::print(stderr, "parley: skipped {} debate(s): {}\n", skipped, reasons);
  print_out("{}{}: {} line(s), one per agent {}, from {} debate(s)\n", run->simulated ? "SIMULATED: " : "", args.out,
            exported->lines.size(), args.per, exported->debates);
  for (const udpo::ExportBatch& batch : exported->batches) {
    print_out("  {} ({}): {} debate(s); bases α {:.4g}, β {:.4g}, γ {:.4g} ({})\n", batch.protocol,
              fmt::join(batch.agents, ", "), batch.debates, batch.bases.alpha, batch.bases.beta, batch.bases.gamma,
              batch.bases.rule == udpo::BaseRule::kCohensD ? "Cohen's d" : "equal");
  }
  return 0;
}

}  // namespace parley::cli
