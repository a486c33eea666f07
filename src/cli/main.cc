// parley command line: run, report, compare, protocols, features, train-trigger, tune-sid-et,
// judge-reliability, maci-bins, diagnose, train-udpo, export-rl, view, serve. Uses only the public API in include/parley/.
// Exit codes: 0 success, 1 runtime failure, 2 bad usage or configuration, 3 debates failed,
// 130 interrupted (SIGINT or SIGTERM).
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <ctime>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/diagnose_command.h"
#include "cli/export_command.h"
#include "cli/udpo_commands.h"
#include "cli/serve_command.h"
#include "cli/view_command.h"
#include "cli/heap.h"
#include "core/files.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/run_files.h"
#include "cli/maci_commands.h"
#include "cli/trigger_commands.h"
#include "parley/config.h"
#include "parley/html_report.h"
#include "parley/protocol.h"
#include "parley/report.h"
#include "parley/runner.h"
#include "parley/version.h"

namespace parley::cli {
namespace {

constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;
constexpr int kExitDebatesFailed = 3;  // the run finished, but some debates ended `failed`
constexpr int kExitInterrupted = 130;

std::atomic<int> g_stop_signals{0};  // lock-free, so safe in a signal handler

// Writes a literal to stderr from a signal handler (write(2) is async-signal-safe).
template <std::size_t N>
void signal_safe_say(const char (&text)[N]) {
  const ssize_t written = ::write(STDERR_FILENO, text, N - 1);
  (void)written;  // nothing to do about a closed stderr here
}

// SIGINT and SIGTERM: the first stops the run (calls in flight are cancelled), a second exits
// at once. Either way the store stays consistent: SQLite commits are atomic.
void on_stop_signal(int) {
  const int saved_errno = errno;
  if (g_stop_signals.fetch_add(1) >= 1) {
    signal_safe_say("\nparley: stopped at once; debates committed so far are kept\n");
    _exit(kExitInterrupted);
  }
  signal_safe_say("\nparley: stopping: cancelling the calls in flight (Ctrl-C again to quit at once)\n");
  request_stop();
  errno = saved_errno;
}

void install_stop_handlers() {
  struct sigaction action{};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // file and SQLite I/O resume; the event loop polls the stop flag
  for (int signal : {SIGINT, SIGTERM}) sigaction(signal, &action, nullptr);
}

std::string default_out_dir(const std::string& experiment) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  return fmt::format("runs/{}-{}", experiment, stamp);
}

struct RunArgs {
  std::string experiment;
  std::string out;
  std::vector<std::string> overrides;
  bool resume = false;
  bool retry_failed = false;
  std::string cache;
  bool quiet = false;
};

// A word as the shell reads it back: bare when it is plainly safe, else in single quotes.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                               "0123456789_-./=:,+@%") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The command that continues this run: the same experiment, overrides and cache, so that its
// fingerprint matches.
std::string resume_command(const RunArgs& args, const std::filesystem::path& out_dir, bool retry_failed) {
  std::string command = "parley run " + shell_word(args.experiment) + " --out " + shell_word(out_dir.string());
  for (const auto& assignment : args.overrides) command += " --set " + shell_word(assignment);
  if (!args.cache.empty()) command += " --cache " + shell_word(args.cache);
  return command + " --resume" + (retry_failed ? " --retry-failed" : "");
}

int command_run(const RunArgs& args) {
  auto config = load_experiment(args.experiment, args.overrides);
  if (!config) {
    fmt::print(stderr, "parley: {}\n", config.error().message);
    return kExitUsage;
  }
  RunOptions options;
  options.out_dir = args.out.empty() ? default_out_dir(config->name) : args.out;
  options.resume = args.resume;
  options.retry_failed = args.retry_failed;
  if (!args.cache.empty()) options.cache_dir = args.cache;
  ProgressBar bar(!args.quiet);
  options.on_progress = [&bar](const RunProgress& p) { bar.update(p); };

  install_stop_handlers();
  auto outcome = run_experiment(*config, options);
  bar.finish();
  if (!outcome) {
    fmt::print(stderr, "parley: {}\n", outcome.error().message);
    return kExitUsage;
  }
  const std::string resume_hint =
      fmt::format("parley: continue with: {}\n", resume_command(args, options.out_dir, false));
  if (outcome->failure) {
    fmt::print(stderr, "parley: {}\nparley: finished debates are kept\n{}", outcome->failure->message, resume_hint);
    return kExitRuntime;
  }
  for (const auto& issue : outcome->dataset_issues) {
    fmt::print(stderr, "parley: {}:{}: skipped row: {}\n", config->dataset.path.string(), issue.line, issue.message);
  }
  std::int64_t failed = 0, debates = 0;
  for (const ProtocolSummary& p : outcome->summary.protocols) {
    failed += p.failed;
    debates += p.n;
  }
  const auto exit_code = [&] {
    if (outcome->interrupted) {
      const RunProgress& p = outcome->progress;
      fmt::print(stderr, "parley: stopped: {} debates are stored; {} cut short and {} not started run on --resume\n{}",
                 p.skipped + p.done, p.cancelled, p.total - p.done - p.cancelled, resume_hint);
      return kExitInterrupted;
    }
    if (failed > 0) {
      fmt::print(stderr,
                 "parley: {} of {} debates failed (status failed; each transcript gives its reason); once the cause "
                 "is fixed, run them again with: {}\n",
                 failed, debates, resume_command(args, options.out_dir, true));
      return kExitDebatesFailed;
    }
    return 0;
  };
  if (args.quiet) return exit_code();
  print_out("{}", render_table(outcome->summary));
  const std::string again =
      args.retry_failed ? fmt::format(" ({} failed ones again)", outcome->failed_removed) : std::string();
  print_out("\n{} debates run{}, {} resumed from the store; outputs in {}\n", outcome->progress.done, again,
             outcome->progress.skipped, options.out_dir.string());
  return exit_code();
}

// `parley report DIR --html FILE`: the self-contained HTML report, written atomically.
int command_report_html(const std::string& dir, const std::string& html_path) {
  if (html_path.empty()) {
    fmt::print(stderr, "parley: --html needs a file name\n");
    return kExitUsage;
  }
  if (is_a_run_file(html_path, dir)) {
    fmt::print(stderr, "parley: {}: is one of the run's own files; write the report elsewhere (e.g. {}/report.html)\n",
               html_path, dir);
    return kExitUsage;
  }
  auto run = read_run(dir);
  if (!run) {
    fmt::print(stderr, "parley: {}\n", run.error().message);
    return kExitUsage;
  }
  HtmlReportOptions options;
  const std::filesystem::path run_dir(dir);
  options.title = run_dir.filename().empty() ? run_dir.parent_path().filename().string() : run_dir.filename().string();
  auto html = render_html_report(run->transcripts, run->protocol_order, run->simulated, options);
  if (!html) {
    fmt::print(stderr, "parley: {}: {}\n", dir, html.error().message);
    return kExitUsage;
  }
  if (auto ok = write_output_file(html_path, *html); !ok) {
    fmt::print(stderr, "parley: {}: {}\n", html_path, ok.error().message);
    return kExitRuntime;
  }
  print_out("wrote {}{}\n", html_path, run->simulated ? " (SIMULATED run)" : "");
  return 0;
}

int command_report(const std::string& dir, bool json) {
  auto summary = summarize_run(dir);
  if (!summary) {
    fmt::print(stderr, "parley: {}\n", summary.error().message);
    return kExitUsage;
  }
  print_out("{}", (json ? summary_to_json(*summary) + "\n" : render_table(*summary)));
  return 0;
}

struct CompareArgs {
  std::string dir;
  std::string baseline;
  std::vector<std::string> pairs;  // "first:second"
  bool all_pairs = false;
  std::vector<std::string> metrics;
  std::string family = "pair";
  bool json = false;
};

// The pairs a compare command asks for: --pairs, --all-pairs, or each protocol against the
// baseline (default "single" when the run has it, else the first protocol).
Result<std::vector<ProtocolPair>> requested_pairs(const CompareArgs& args, const std::vector<std::string>& protocols) {
  if (args.all_pairs) return all_pairs(protocols);
  if (args.pairs.empty()) {
    std::string baseline = args.baseline;
    if (baseline.empty() && !protocols.empty())
      baseline = std::find(protocols.begin(), protocols.end(), "single") != protocols.end() ? "single" : protocols.front();
    return pairs_against(protocols, baseline);  // compare_protocols refuses an unknown baseline
  }
  std::vector<ProtocolPair> pairs;
  for (const auto& item : args.pairs) {
    const auto colon = item.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size() ||
        item.find(':', colon + 1) != std::string::npos)
      return Error{fmt::format("--pairs: '{}' is not FIRST:SECOND", item)};
    pairs.push_back({item.substr(0, colon), item.substr(colon + 1)});
  }
  return pairs;
}

int command_compare(const CompareArgs& args) {
  auto run = read_run(args.dir);
  if (!run) {
    fmt::print(stderr, "parley: {}\n", run.error().message);
    return kExitUsage;
  }
  auto pairs = requested_pairs(args, protocols_in_order(run->transcripts, run->protocol_order));
  if (!pairs) {
    fmt::print(stderr, "parley: {}\n", pairs.error().message);
    return kExitUsage;
  }
  const std::vector<std::string> metrics =
      args.metrics.empty() ? std::vector<std::string>{"accuracy", "tokens", "calls"} : args.metrics;
  const AdjustmentFamily family = args.family == "all" ? AdjustmentFamily::kAll : AdjustmentFamily::kPair;
  auto comparison = compare_protocols(run->transcripts, *pairs, metrics, family, run->simulated);
  if (!comparison) {
    fmt::print(stderr, "parley: {}\n", comparison.error().message);
    return kExitUsage;
  }
  print_out("{}", (args.json ? comparison_to_json(*comparison) + "\n" : render_comparison(*comparison)));
  return 0;
}

int command_tune_sid_et(const std::string& dir, const std::string& sid_et, const std::string& reference) {
  auto run = read_run(dir);
  if (!run) {
    fmt::print(stderr, "parley: {}\n", run.error().message);
    return kExitUsage;
  }
  auto tuning = tune_skip_rate(run->transcripts, sid_et, reference);
  if (!tuning) {
    fmt::print(stderr, "parley: {}\n", tuning.error().message);
    return kExitUsage;
  }
  if (run->simulated) print_out("SIMULATED: these numbers come from parley's built-in simulator.\n");
  print_out("{}", render_skip_rate(*tuning, sid_et, reference));
  return 0;
}

const char* kind_name(ParamKind kind) {
  switch (kind) {
    case ParamKind::kBool: return "bool";
    case ParamKind::kInt: return "int";
    case ParamKind::kDouble: return "number";
    case ParamKind::kString: return "string";
    case ParamKind::kPath: return "file";
  }
  return "?";
}

int command_protocols() {
  for (const auto& info : protocol_registry()) {
    print_out("{:<18} {}\n{:<18} paper: {}\n", info.name, info.title, "", info.paper);
    for (const auto& spec : info.params) {
      std::string value;
      std::visit([&](const auto& v) { value = fmt::format("{}", v); }, spec.default_value);
      if (spec.required) {
        print_out("{:<18}   {} ({}, required): {}\n", "", spec.name, kind_name(spec.kind), spec.help);
        continue;
      }
      if (value.find('\n') == std::string::npos) {
        print_out("{:<18}   {} ({}, default {}): {}\n", "", spec.name, kind_name(spec.kind), value, spec.help);
        continue;
      }
      // A multi-line default (a prompt template) is printed as an indented block below.
      print_out("{:<18}   {} ({}, default below): {}\n", "", spec.name, kind_name(spec.kind), spec.help);
      for (std::size_t at = 0; at <= value.size();) {
        const std::size_t end = std::min(value.find('\n', at), value.size());
        print_out("{:<18}     | {}\n", "", std::string_view(value).substr(at, end - at));
        at = end + 1;
      }
    }
    if (info.default_best_of > 1) {
      print_out("{:<18}   best_of (int, default {}): drafts per turn kept by the judge (the paper's setting)\n", "",
                 info.default_best_of);
      print_out("{:<18}   best_of_jitter (number, default {}): temperature step between drafts (the paper's);\n"
                "{:<18}     0 makes the drafts identical requests, sent as one with n\n",
                "", kPaperBestOfJitter, "");
    }
  }
  return 0;
}

int main_impl(int argc, char** argv) {
  CLI::App app{"parley — multi-agent LLM debate engine"};
  app.set_version_flag("--version", std::string("parley ") + PARLEY_VERSION);
  app.require_subcommand(1);

  RunArgs run_args;
  auto* run = app.add_subcommand("run", "Run an experiment: tasks x protocols x seeds, then print the comparison table");
  run->add_option("experiment", run_args.experiment, "Experiment file (YAML)")->required();
  run->add_option("--out", run_args.out, "Output directory (default: runs/<name>-<timestamp>)");
  run->add_option("--set", run_args.overrides, "Override a key of the experiment file, e.g. --set dataset.limit=10")
      ->take_all();
  auto* resume_flag = run->add_flag("--resume", run_args.resume, "Continue the run in --out, skipping finished debates");
  run->add_flag("--retry-failed", run_args.retry_failed,
                "With --resume: run the debates that failed (status failed) again; the others are kept")
      ->needs(resume_flag);
  run->add_option("--cache", run_args.cache, "Record/replay cache directory for LLM responses");
  run->add_flag("--quiet", run_args.quiet, "No progress bar and no table (outputs are still written)");

  std::string report_dir;
  bool report_json = false;
  auto* report = app.add_subcommand("report", "Print the comparison table of a finished (or partial) run");
  report->add_option("dir", report_dir, "Run directory (holds results.sqlite)")->required();
  std::string report_html;
  auto* json_flag = report->add_flag("--json", report_json, "Print summary.json instead of the table");
  report->add_option("--html", report_html,
                     "Write the HTML report (tables and plots, one self-contained file that opens offline) to FILE")
      ->excludes(json_flag);

  CompareArgs compare_args;
  auto* compare = app.add_subcommand(
      "compare", "Paired comparison of protocols over matched (task, seed) units: bootstrap CIs, permutation and "
                 "Wilcoxon tests, Holm and Benjamini-Hochberg adjustment");
  compare->add_option("dir", compare_args.dir, "Run directory (holds results.sqlite)")->required();
  auto* baseline_option = compare->add_option(
      "--baseline", compare_args.baseline,
      "Compare every other protocol with this one (the default pairs; baseline default: single, else the first)");
  auto* pairs_option =
      compare->add_option("--pairs", compare_args.pairs,
                          "Compare these pairs instead, FIRST:SECOND (difference = FIRST - SECOND), comma-separated "
                          "or repeated, e.g. --pairs wr:cr,cr:ra_cr")
          ->delimiter(',')
          ->excludes(baseline_option);
  compare->add_flag("--all-pairs", compare_args.all_pairs,
                    "Compare every pair of protocols, the earlier in the experiment first")
      ->excludes(baseline_option)
      ->excludes(pairs_option);
  compare->add_option("--metric", compare_args.metrics,
                      "Metric(s) to compare: accuracy, tokens, tokens_in, tokens_out, calls, latency_ms, unparsed, "
                      "or a per-debate metric name (default: accuracy tokens calls)");
  compare->add_option("--family", compare_args.family,
                      "Holm/BH family: pair = each pair across its metrics (the protocols paper), all = every row")
      ->check(CLI::IsMember({"pair", "all"}))
      ->capture_default_str();
  compare->add_flag("--json", compare_args.json, "Print JSON instead of the table");

  auto* protocols = app.add_subcommand("protocols", "List the protocols with their parameters and defaults");

  std::string tune_dir, tune_protocol = "sid_et", tune_reference = "svr_mad";
  auto* tune = app.add_subcommand("tune-sid-et", "Choose SID-ET's skip rate against SVR-MAD (SVR-MAD App. A, Algorithm 2)");
  tune->add_option("dir", tune_dir, "Run directory where sid_et debated every unit (threshold: 0) beside svr_mad")
      ->required();
  tune->add_option("--protocol", tune_protocol, "Label of the sid_et entry")->capture_default_str();
  tune->add_option("--reference", tune_reference, "Label of the reference (SVR-MAD) entry")->capture_default_str();

  TriggerCommands trigger;
  add_trigger_commands(app, trigger);
  MaciCommands maci;
  add_maci_commands(app, maci);
  DiagnoseCommand diagnose;
  add_diagnose_command(app, diagnose);
  UdpoCommands udpo;
  add_udpo_commands(app, udpo);
  ExportRlCommand export_rl;
  add_export_rl_command(app, export_rl);
  ViewCommand view;
  add_view_command(app, view);
  ServeCommand serve;
  add_serve_command(app, serve);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  if (run->parsed()) return command_run(run_args);
  if (report->parsed()) {
    return report->count("--html") == 0 ? command_report(report_dir, report_json)
                                        : command_report_html(report_dir, report_html);
  }
  if (compare->parsed()) return command_compare(compare_args);
  if (protocols->parsed()) return command_protocols();
  if (tune->parsed()) return command_tune_sid_et(tune_dir, tune_protocol, tune_reference);
  if (trigger.features->parsed()) return command_features(trigger.features_args);
  if (trigger.train->parsed()) return command_train_trigger(trigger.train_args);
  if (maci.reliability->parsed()) return command_judge_reliability(maci);
  if (maci.bins->parsed()) return command_maci_bins(maci);
  if (diagnose.command->parsed()) return command_diagnose(diagnose);
  if (udpo.train->parsed()) return command_train_udpo(udpo);
  if (export_rl.command->parsed()) return command_export_rl(export_rl);
  if (view.command->parsed()) return command_view(view);
  if (serve.command->parsed()) return command_serve(serve);
  return kExitUsage;
}

}  // namespace
}  // namespace parley::cli

int main(int argc, char** argv) {
  parley::cli::reserve_heap_in_huge_pages();
  try {
    return parley::cli::finish_output(parley::cli::main_impl(argc, argv));
  } catch (const parley::cli::OutputFailed& failure) {
    return parley::cli::output_failed(failure);
  } catch (const std::exception& e) {
    // Reaching here is a bug; say so plainly rather than aborting.
    std::fprintf(stderr, "parley: internal error: %s\n", e.what());
    return 1;
  }
}
