#pragma once
// Runner: executes an experiment — tasks × protocols × seeds — with bounded concurrency on one
// event loop, writing each finished debate to the store, then exports transcripts.jsonl and
// summary.json. Resumable: units already in the store are skipped. Called by the CLI; one run
// at a time per process.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "parley/config.h"
#include "parley/dataset.h"
#include "parley/report.h"
#include "parley/result.h"
#include "parley/transcript.h"

namespace parley {

struct RunProgress {
  std::int64_t done = 0;     // units finished in this process
  std::int64_t total = 0;    // units to run in this process
  std::int64_t skipped = 0;  // units found finished in the store (resume)
  std::int64_t failed = 0;
  std::int64_t cancelled = 0;  // units cut short by a stop: not stored, a resume runs them
  // Debates running at once, now and at most so far: up to the experiment's `concurrency` while
  // debates wait on their calls; one on the zero-delay simulator, where nothing waits.
  std::int64_t in_flight = 0;
  std::int64_t peak_in_flight = 0;
};

struct RunOptions {
  std::filesystem::path out_dir;
  bool resume = false;
  // With resume: delete the stored debates that failed first, so they are run again.
  bool retry_failed = false;
  std::optional<std::filesystem::path> cache_dir;
  // Called on the loop thread after each finished debate.
  std::function<void(const RunProgress&)> on_progress;
};

struct RunOutcome {
  Summary summary;
  RunProgress progress;
  bool interrupted = false;
  std::int64_t failed_removed = 0;  // failed debates deleted from the store to run again (retry_failed)
  std::vector<DatasetIssue> dataset_issues;
  // Set when the run started but could not finish writing (store or export I/O). Debates
  // already committed stay in the store; --resume continues from them.
  std::optional<Error> failure;
};

// An Error means the run could not start (dataset, output directory, store, resume check,
// backends): nothing was run. Failures after the start are in RunOutcome::failure.
Result<RunOutcome> run_experiment(const ExperimentConfig& config, const RunOptions& options);

// What a run directory's store holds, for the report commands.
struct StoredRun {
  std::vector<Transcript> transcripts;      // ordered by (protocol, task_id, seed)
  std::vector<std::string> protocol_order;  // labels as the experiment listed them
  bool simulated = false;
};
Result<StoredRun> read_run(const std::filesystem::path& run_dir);

// Rebuilds summary.json-equivalent data from a run directory's store.
Result<Summary> summarize_run(const std::filesystem::path& run_dir);

// Stops a running experiment within about EventLoop::kStopCheckInterval: no new debate starts,
// calls in flight are cancelled, and the debates they cut short are not stored (a resume runs
// them); debates that finished are stored and exported. Async-signal-safe (sets an atomic
// flag), for SIGINT/SIGTERM handlers; once set it stays set for the process.
void request_stop();

}  // namespace parley
