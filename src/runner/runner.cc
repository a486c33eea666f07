// run_experiment: plan (tasks × protocols × seeds, minus units already stored) → bounded pool
// of worker coroutines → store → exports. The store is the source of truth for the outputs,
// so an interrupted-and-resumed run exports exactly what an uninterrupted one would.
#include "parley/runner.h"

#include <atomic>
#include <future>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "core/hash.h"
#include "parley/evidence.h"
#include "parley/html_report.h"
#include "parley/metrics.h"
#include "parley/store.h"
#include "parley/version.h"
#include "runner/backends.h"
#include "runner/protocol_plan.h"
#include "runner/run_store.h"
#include "runner/run_lock.h"

namespace parley {
namespace {

// A resume hands each protocol that keeps state across debates (Protocol::keeps_state) its
// stored debates in plan order, before any new debate starts.
template <class Planned>
Result<Ok> replay_stored(Store& store, const std::set<UnitKey>& finished, const ExperimentConfig& config,
                         const std::vector<Task>& tasks, const std::vector<Planned>& protocols) {
  const bool any = std::any_of(protocols.begin(), protocols.end(),
                               [](const Planned& p) { return p.protocol->keeps_state(); });
  if (!any || finished.empty()) return Ok{};
  auto stored = store.load_all();
  if (!stored) return stored.error();
  std::map<UnitKey, const Transcript*> by_unit;
  for (const Transcript& t : *stored) by_unit[UnitKey{t.task_id, t.protocol, t.seed}] = &t;
  for (auto seed : config.seeds) {
    for (const auto& task : tasks) {
      for (const auto& p : protocols) {
        if (!p.protocol->keeps_state()) continue;
        const auto found = by_unit.find(UnitKey{task.id, p.config->label, seed});
        if (found != by_unit.end()) p.protocol->replay(*found->second);
      }
    }
  }
  return Ok{};
}

std::atomic<bool> g_stop{false};

struct Unit {
  std::shared_ptr<const Task> task;
  PlannedProtocol* protocol;
  std::uint64_t seed;
};

Result<Ok> write_summary(const std::filesystem::path& dir, const Summary& summary) {
  const auto summary_path = dir / "summary.json";
  if (auto ok = write_output_file(summary_path, summary_to_json(summary) + '\n'); !ok)
    return Error{fmt::format("{}: {}", summary_path.string(), ok.error().message)};
  return Ok{};
}

// DIR/report.html beside summary.json; a run with no debate stored yet has no report.
Result<Ok> write_html_report(const std::filesystem::path& dir, const std::vector<Transcript>& transcripts,
                             const std::vector<std::string>& order, bool simulated) {
  if (transcripts.empty()) return Ok{};
  HtmlReportOptions report_options;
  report_options.title = dir.filename().empty() ? dir.parent_path().filename().string() : dir.filename().string();
  auto html = render_html_report(transcripts, order, simulated, report_options);
  if (!html) return html.error();
  const auto path = dir / "report.html";
  if (auto ok = write_output_file(path, *html); !ok) return Error{fmt::format("{}: {}", path.string(), ok.error().message)};
  return Ok{};
}

// The dataset with what its tasks share: the label set, and the evidence corpus indexed once.
Result<Dataset> load_tasks(const DatasetConfig& config) {
  std::shared_ptr<const LabelSet> labels;
  if (!config.labels.empty()) {
    auto loaded = load_label_set(config.labels);
    if (!loaded) return loaded.error();
    labels = std::move(*loaded);
  }
  auto dataset = load_dataset(config.path, config.format, config.limit, std::move(labels));
  if (!dataset) return dataset;
  const bool any_label_task = std::any_of(dataset->tasks.begin(), dataset->tasks.end(),
                                          [](const Task& task) { return task.answer_type == AnswerType::kLabel; });
  if (!config.labels.empty() && !any_label_task) {
    return Error{fmt::format("dataset.labels is given, but no task of {} is a label task (answer_type: label)",
                             config.path.string())};
  }
  if (config.evidence.empty()) return dataset;
  auto corpus = load_evidence_corpus(config.evidence);
  if (!corpus) return corpus.error();
  auto index = EvidenceIndex::build(std::move(*corpus));
  if (!index) return Error{fmt::format("{}: {}", config.evidence.string(), index.error().message)};
  const auto shared = std::make_shared<const EvidenceIndex>(std::move(*index));
  for (Task& task : dataset->tasks) task.evidence = shared;
  return dataset;
}

}  // namespace

void request_stop() { g_stop.store(true); }

Result<RunOutcome> run_experiment(const ExperimentConfig& config, const RunOptions& options) {
  RunOutcome outcome;
  if (config.dataset.path.empty() || config.protocols.empty()) {
    return Error{fmt::format("{} has no dataset and protocols to run: it is a serve file (parley serve {})",
                             config.source.string(), config.source.string())};
  }
  auto dataset = load_tasks(config.dataset);
  if (!dataset) return dataset.error();
  outcome.dataset_issues = dataset->issues;

  // Backends before the output directory: a missing API key must not leave an empty run behind.
  EventLoop loop;
  auto backends = make_backends(loop, config, options.cache_dir);
  if (!backends) return backends.error();
  auto record = StoreRecord::of(config);
  if (!record) return record.error();

  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) return Error{fmt::format("{}: cannot create output directory: {}", options.out_dir.string(), ec.message())};
  const StoreClaim claim{.resume = options.resume, .elsewhere = "choose another --out", .source = "run"};
  // Held until the exports are written: a second writer would interleave with this one.
  auto lock = RunLock::acquire(options.out_dir, claim.elsewhere);
  if (!lock) return lock.error();
  auto opened = Store::open(options.out_dir / "results.sqlite");
  if (!opened) return opened.error();
  Store& store = **opened;

  if (auto ok = record->claim(store, options.out_dir, backends->simulated, claim); !ok) return ok.error();
  const std::vector<std::string> order = record->protocol_order;

  std::vector<PlannedProtocol> protocols = plan_protocols(config, *backends);

  if (options.retry_failed) {
    auto removed = store.remove_failed();
    if (!removed) return removed.error();
    outcome.failed_removed = *removed;
  }

  // Plan: seed-major, then task, then protocol, so that a partial run covers protocols evenly.
  const std::set<UnitKey> finished = store.finished();
  if (auto replayed = replay_stored(store, finished, config, dataset->tasks, protocols); !replayed) {
    return replayed.error();
  }
  std::vector<Unit> units;
  for (auto seed : config.seeds) {
    for (const auto& task : dataset->tasks) {
      auto shared_task = std::make_shared<const Task>(task);
      for (auto& p : protocols) {
        if (finished.count(UnitKey{task.id, p.config->label, seed})) {
          ++outcome.progress.skipped;
          continue;
        }
        units.push_back({shared_task, &p, seed});
      }
    }
  }
  outcome.progress.total = static_cast<std::int64_t>(units.size());

  // A stop request cancels the calls in flight; the debates they cut short are not stored.
  loop.cancel_when(&g_stop);
  std::size_t next = 0;
  std::optional<Error> store_error;
  auto worker = [&]() -> Async<void> {
    while (next < units.size() && !loop.cancelled() && !store_error) {
      const Unit& unit = units[next++];
      RunProgress& progress = outcome.progress;
      progress.peak_in_flight = std::max(progress.peak_in_flight, ++progress.in_flight);
      DebateSetup setup = debate_setup(*unit.protocol, config, loop, unit.task, unit.seed);
      Transcript transcript = co_await run_debate(*unit.protocol->protocol, std::move(setup));
      --progress.in_flight;
      if (transcript.status == DebateStatus::kCancelled) {
        ++outcome.progress.cancelled;
        continue;
      }
      add_debate_metrics(transcript, {.u_intra_lambda = config.metrics.u_intra_lambda,
                                      .answer_type = unit.task->answer_type,
                                      .labels = unit.task->labels});
      if (auto ok = store.put(transcript); !ok) {
        store_error = ok.error();
        loop.cancel();  // nothing more can be stored: end the other debates now
        co_return;
      }
      ++outcome.progress.done;
      if (transcript.status == DebateStatus::kFailed) ++outcome.progress.failed;
      if (options.on_progress) options.on_progress(outcome.progress);
    }
  };
  // Debates start whenever the loop would otherwise wait, up to `concurrency` in flight. Against a
  // server each debate soon waits on its calls, and they all start at once; on the zero-delay
  // simulator nothing waits, so one debate runs at a time and the run works in one debate's
  // memory instead of cycling through hundreds (a third less CPU at 256 in flight).
  const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(config.concurrency), units.size());
  auto start_workers = [&]() -> Async<void> {
    for (std::size_t started = 0; started < workers && next < units.size() && !loop.cancelled() && !store_error;
         ++started) {
      loop.spawn(worker());
      co_await loop.when_idle();
    }
  };
  loop.spawn(start_workers());
  loop.run();
  loop.remove_io(backends->transport.get());

  // From here on, failures are run-time failures of a run that did start: reported in the
  // outcome, with whatever the store holds left for --resume.
  outcome.interrupted = next < units.size() || outcome.progress.done < outcome.progress.total;
  if (auto ok = store.flush(); !ok && !store_error) store_error = ok.error();
  if (store_error) {
    outcome.failure = *store_error;
    return outcome;
  }
  // transcripts.jsonl is the store's rows as stored, one per line (they are transcript_to_json's
  // lines): copied while the transcripts are read back for the summary, not written again.
  const auto jsonl_path = options.out_dir / "transcripts.jsonl";
  OutputFile jsonl(jsonl_path);
  // The summary counts and never reads a call's text, so the texts are not copied out again.
  auto transcripts = store.load_all_and_copy(
      [&](std::string_view json) {
        jsonl.append(json);
        jsonl.append("\n");
      },
      CallTexts::kSkip);
  if (!transcripts) {
    outcome.failure = transcripts.error();
    return outcome;
  }
  // What is left of the store's work and the export's (the last checkpoint when the store
  // closes, the sync and rename) waits on the disk: it runs on helper threads while this one
  // computes the summary, and both are joined before the run returns.
  auto exported = std::async(std::launch::async, [&jsonl] { return jsonl.commit(); });
  // A run that went to its end also has the store build what the viewer reads and puts did not
  // keep up (Store::finish); a stopped one leaves that to the run that finishes it.
  auto closed = std::async(std::launch::async, [closing = std::move(*opened), finish = !outcome.interrupted]() mutable {
    Result<Ok> done = finish ? closing->finish() : Result<Ok>(Ok{});
    closing.reset();
    return done;
  });
  Summary summary = summarize(*transcripts, order, backends->simulated);
  if (auto ok = closed.get(); !ok) {
    outcome.failure = ok.error();
    return outcome;
  }
  if (auto ok = exported.get(); !ok) {
    outcome.failure = Error{fmt::format("{}: {}", jsonl_path.string(), ok.error().message)};
    return outcome;
  }
  outcome.summary = std::move(summary);
  if (auto ok = write_summary(options.out_dir, outcome.summary); !ok) {
    outcome.failure = ok.error();
    return outcome;
  }
  if (auto ok = write_html_report(options.out_dir, *transcripts, order, backends->simulated); !ok)
    outcome.failure = ok.error();
  return outcome;
}

Result<StoredRun> read_run(const std::filesystem::path& run_dir) {
  const auto path = run_dir / "results.sqlite";
  if (!std::filesystem::exists(path)) return Error{fmt::format("{}: no results.sqlite here", run_dir.string())};
  auto opened = Store::open(path);
  if (!opened) return opened.error();
  Store& store = **opened;
  auto transcripts = store.load_all();
  if (!transcripts) return transcripts.error();
  return StoredRun{std::move(*transcripts), protocol_order(store.meta("protocol_order").value_or("")),
                   store.meta("simulated").value_or("0") == "1"};
}

Result<Summary> summarize_run(const std::filesystem::path& run_dir) {
  auto run = read_run(run_dir);
  if (!run) return run.error();
  return summarize(run->transcripts, run->protocol_order, run->simulated);
}

}  // namespace parley
