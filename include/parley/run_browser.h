#pragma once
// RunBrowser: reads a run's debates page by page from DIR/results.sqlite, for the web viewer
// (`parley view`). It opens the store read-only (a run writing DIR is not blocked, and what it
// has committed shows) and answers from the store's debate index (docs/formats.md,
// "results.sqlite"): the run's facts, a filtered and sorted page of debates with the total, one
// debate's stored transcript, and the same task and seed under the other protocols. Every query
// reads only what it returns or counts, so memory does not grow with the store.
// Not thread-safe: one RunBrowser per thread (each is one SQLite connection).

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parley/result.h"
#include "parley/store.h"

namespace parley {

struct RunFacts {
  std::int64_t debates = 0;
  std::vector<std::string> protocols;   // the experiment's order; then any other stored, by name
  std::vector<std::uint64_t> seeds;     // ascending
  std::vector<std::string> metrics;     // names some debate has, by name
  std::vector<std::string> statuses;    // stored ones ("completed", "budget", "failed"), by name
  bool simulated = false;
};

// A metric's value within [min, max]; an absent bound is open.
struct MetricRange {
  std::string name;
  std::optional<double> min;
  std::optional<double> max;
};

enum class DebateSort { kTask, kProtocol, kSeed, kCorrect, kTokens, kCalls, kRounds, kLatency, kMetric };

// Every filter set must hold. Ties of the sort are broken by the debate's key (its row id in the
// store, the order it was stored in), in the sort's direction; sorting by task orders by (task,
// protocol, seed). Under a metric sort, debates without the metric come last either way.
struct DebateQuery {
  std::optional<std::string> protocol;
  std::optional<std::uint64_t> seed;
  std::optional<bool> correct;
  std::optional<DebateStatus> status;
  std::optional<bool> flipped;
  std::vector<MetricRange> ranges;  // a debate without the metric does not match
  // Case-insensitive (ASCII letters) substring of the task id, its question (its first 1,000
  // bytes), its gold or the final answer; "" matches all. Taken as literal text (% and _ too).
  // The replies' text is not searched: that would read every transcript.
  std::string text;
  DebateSort sort = DebateSort::kTask;
  std::string sort_metric;  // with kMetric
  bool descending = false;
  std::int64_t offset = 0;  // negative is taken as 0
  int limit = 50;           // clamped to [0, RunBrowser::kMaxLimit]
};

// One debate of a list, from the index.
struct DebateRow {
  std::string task_id;
  std::string protocol;
  std::uint64_t seed = 0;
  DebateStatus status = DebateStatus::kCompleted;
  bool correct = false;
  std::optional<bool> initially_correct;  // the first round's vote was right (metrics.h)
  bool flipped = false;                   // right → wrong (metrics.h, flipped_to_wrong)
  std::int64_t tokens = 0;                // prompt + completion
  std::int64_t calls = 0;
  std::int64_t rounds = 0;
  double latency_ms = 0.0;
  std::optional<std::string> final_answer;
  std::string gold;
  std::string question;                   // its first kListedQuestionChars characters
  std::map<std::string, double> metrics;  // those the query sorts or filters by, where defined
};

struct DebatePage {
  std::int64_t total = 0;  // debates matching the filters
  std::int64_t offset = 0;
  int limit = 0;
  std::vector<DebateRow> rows;
};

class RunBrowser {
 public:
  static constexpr int kMaxLimit = 200;
  static constexpr int kListedQuestionChars = 300;

  // Opens `run_dir`'s store read-only. An Error says why `run_dir` is not a run parley can show
  // (no such directory, no results.sqlite, not a parley store, a version this parley does not
  // read). A store of schema version 2 (an older parley's) is indexed first, once, through
  // Store::open, reporting to `progress` — the one write the viewer makes.
  static Result<std::unique_ptr<RunBrowser>> open(const std::filesystem::path& run_dir,
                                                  const IndexProgress& progress = nullptr);
  virtual ~RunBrowser() = default;

  virtual Result<RunFacts> facts() = 0;
  // Whether some debate of the run has the metric `name`.
  virtual Result<bool> has_metric(const std::string& name) = 0;
  virtual Result<DebatePage> list(const DebateQuery& query) = 0;
  // The debate's transcript as stored (its transcripts.jsonl line); nullopt when there is none.
  virtual Result<std::optional<std::string>> transcript_json(const UnitKey& unit) = 0;
  // The debates of `unit`'s task and seed under the other protocols, in RunFacts::protocols'
  // order.
  virtual Result<std::vector<DebateRow>> others(const UnitKey& unit) = 0;
};

}  // namespace parley
