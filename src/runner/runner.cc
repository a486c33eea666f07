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

struct PlannedProtocol {
  const ProtocolConfig* config;
  std::unique_ptr<Protocol> protocol;
  std::vector<Agent> pool;
  std::vector<Agent> judges;
  std::optional<Embedder> embedder;
};

struct Unit {
  std::shared_ptr<const Task> task;
  PlannedProtocol* protocol;
  std::uint64_t seed;
};

// The model name a backend is sent: the server's name for an endpoint, the config name otherwise.
std::string backend_model_name(const ModelConfig& model) {
  return model.backend == Backend::kOpenAi ? model.endpoint.model : model.name;
}

std::vector<Agent> make_agents(const ExperimentConfig& config, const std::vector<std::string>& names,
                               Backends& backends) {
  std::vector<Agent> agents;
  for (const auto& name : names) {
    const AgentConfig& a = *config.agent(name);
    agents.push_back(Agent{a.name, backends.clients.at(a.model).get(), backend_model_name(*config.model(a.model)),
                           a.sampling, a.system_prompt});
  }
  return agents;
}

std::optional<Embedder> make_embedder(const ExperimentConfig& config, const ProtocolConfig& protocol,
                                      Backends& backends) {
  if (protocol.embedding_model.empty()) return std::nullopt;
  const ModelConfig& model = *config.model(protocol.embedding_model);
  return Embedder{model.name, backends.clients.at(model.name).get(), backend_model_name(model)};
}

std::vector<Agent> agent_pool(const ExperimentConfig& config, const ProtocolConfig& protocol, Backends& backends) {
  if (!protocol.agents.empty()) return make_agents(config, protocol.agents, backends);
  std::vector<std::string> everyone;
  for (const auto& a : config.agents) everyone.push_back(a.name);
  return make_agents(config, everyone, backends);
}

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

std::vector<std::string> protocol_order(const std::string& meta_value) {
  std::vector<std::string> order;
  std::size_t start = 0;
  while (start <= meta_value.size() && !meta_value.empty()) {
    const auto end = meta_value.find('\n', start);
    order.push_back(meta_value.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return order;
}

// The content hash of each input file, keyed by what it is: the store's `input_files` row.
Result<nlohmann::json> hash_input_files(const std::vector<InputFile>& files) {
  nlohmann::json hashes = nlohmann::json::object();
  for (const InputFile& file : files) {
    Result<std::string> bytes = read_input_file(file.path);
    if (!bytes) return Error{fmt::format("{} ({}): {}", file.what, file.path.string(), bytes.error().message)};
    hashes[file.what] = hash_hex128(*bytes);
  }
  return hashes;
}

// Whether this experiment may write into `store`: never next to debates of another experiment
// (settings or input file contents changed), nor next to debates whose experiment the store
// does not record — so deleting metadata cannot make a resume accept anything.
Result<Ok> check_store_matches(Store& store, const std::string& fingerprint, const std::vector<InputFile>& files,
                               const nlohmann::json& hashes, const RunOptions& options) {
  const std::string dir = options.out_dir.string();
  const auto stored = store.meta("fingerprint");
  const std::int64_t debates = store.count();
  if (!stored && debates == 0) return Ok{};  // a new store
  if (!stored) {
    return Error{fmt::format("{} holds {} debates but no record of the experiment that ran them (its metadata "
                             "was removed or damaged); it cannot be continued: choose another --out",
                             dir, debates)};
  }
  if (!options.resume) {
    return Error{fmt::format("{} already holds a run; pass --resume to continue it, or choose another --out", dir)};
  }
  if (*stored != fingerprint) {
    return Error{fmt::format("{} holds a run of a different experiment (models, agents, dataset, protocols, "
                             "seeds or budget changed); it cannot be resumed with this one",
                             dir)};
  }
  const auto stored_hashes = nlohmann::json::parse(store.meta("input_files").value_or(""), nullptr, false);
  for (const InputFile& file : files) {
    const auto at = stored_hashes.is_object() ? stored_hashes.find(file.what) : stored_hashes.end();
    if (at == stored_hashes.end() || !at->is_string()) {
      return Error{fmt::format("{} does not record the content of {} (it was written by an older parley, or its "
                               "metadata was damaged), so it cannot be resumed safely: choose another --out",
                               dir, file.what)};
    }
    if (*at != hashes.at(file.what)) {
      return Error{fmt::format("{} ({}) changed since the run in {} began; resuming would mix results of both "
                               "versions: restore it, or choose another --out",
                               file.what, file.path.string(), dir)};
    }
  }
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
  auto dataset = load_tasks(config.dataset);
  if (!dataset) return dataset.error();
  outcome.dataset_issues = dataset->issues;

  // Backends before the output directory: a missing API key must not leave an empty run behind.
  EventLoop loop;
  auto backends = make_backends(loop, config, options.cache_dir);
  if (!backends) return backends.error();
  const std::vector<InputFile> inputs = config.input_files();
  auto input_hashes = hash_input_files(inputs);
  if (!input_hashes) return input_hashes.error();

  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) return Error{fmt::format("{}: cannot create output directory: {}", options.out_dir.string(), ec.message())};
  // Held until the exports are written: a second writer would interleave with this one.
  auto lock = RunLock::acquire(options.out_dir);
  if (!lock) return lock.error();
  auto opened = Store::open(options.out_dir / "results.sqlite");
  if (!opened) return opened.error();
  Store& store = **opened;

  const std::string fingerprint = config.fingerprint();
  if (auto ok = check_store_matches(store, fingerprint, inputs, *input_hashes, options); !ok) return ok.error();

  std::string order;
  for (const auto& p : config.protocols) order += (order.empty() ? "" : "\n") + p.label;
  for (auto [key, value] : {std::pair{"fingerprint", fingerprint}, {"input_files", input_hashes->dump()},
                            {"protocol_order", order},
                            {"simulated", backends->simulated ? "1" : "0"}, {"parley_version", PARLEY_VERSION},
                            {"experiment", config.name}}) {
    if (auto ok = store.set_meta(key, value); !ok) return ok.error();
  }

  std::vector<PlannedProtocol> protocols;
  for (const auto& p : config.protocols) {
    protocols.push_back({&p, find_protocol(p.name)->make(p.params), agent_pool(config, p, *backends),
                         make_agents(config, p.judges, *backends), make_embedder(config, p, *backends)});
  }

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
      DebateSetup setup;
      setup.loop = &loop;
      setup.task = unit.task;
      setup.protocol_label = unit.protocol->config->label;
      setup.seed = unit.seed;
      setup.params = &unit.protocol->config->params;
      setup.agent_pool = unit.protocol->pool;
      setup.budget_tokens = config.budget_tokens_per_task;
      setup.reask_unparsed = config.reask_unparsed;
      setup.judge_panel = unit.protocol->judges;
      setup.judging = unit.protocol->config->judging;
      setup.best_of = unit.protocol->config->best_of;
      setup.best_of_jitter = unit.protocol->config->best_of_jitter;
      setup.embedder = unit.protocol->embedder;
      setup.attack = unit.protocol->config->attack;
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
  Summary summary = summarize(*transcripts, protocol_order(order), backends->simulated);
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
  if (auto ok = write_html_report(options.out_dir, *transcripts, protocol_order(order), backends->simulated); !ok)
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
