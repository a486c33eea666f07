// run_gateway: parley serve's requests → admission → one debate each → store → response, all on
// one event loop (gateway.h). The wire format is chat_api's; the HTTP server is src/serve's.
#include "parley/gateway.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "gateway/admission.h"
#include "gateway/chat_api.h"
#include "gateway/chunk_queue.h"
#include "gateway/request_checks.h"
#include "gateway/tasks_in_flight.h"
#include "parley/metrics.h"
#include "parley/store.h"
#include "runner/backends.h"
#include "runner/protocol_plan.h"
#include "runner/run_lock.h"
#include "runner/run_store.h"
#include "serve/http_server.h"

namespace parley {
namespace {

std::atomic<int> g_stop_requests{0};

using gateway::ApiError;
using serve::Exchange;
using serve::Headers;
using Clock = EventLoop::Clock;

const Headers& json_headers() {
  static const Headers headers{{"Content-Type", "application/json"}, {"Cache-Control", "no-store"}};
  return headers;
}

// One SSE event.
std::string sse(std::string_view data) { return fmt::format("data: {}\n\n", data); }

std::int64_t unix_seconds() { return static_cast<std::int64_t>(std::time(nullptr)); }

class Gateway {
 public:
  Gateway(EventLoop& loop, const ExperimentConfig& served, const ServeConfig& serve, std::vector<PlannedProtocol> models,
          Store& store, std::set<UnitKey> units, std::string api_key, bool simulated, const GatewayOptions& options)
      : loop_(loop),
        served_(served),
        serve_(serve),
        models_(std::move(models)),
        store_(store),
        units_(std::move(units)),
        api_key_(std::move(api_key)),
        simulated_(simulated),
        options_(options),
        admission_(serve.max_debates, serve.max_waiting),
        id_prefix_(fmt::format("{:08x}", std::random_device{}())) {}

  Async<void> handle(Exchange& exchange);
  // Stops the server at the first stop request, cancels everything at the second; returns once
  // the server is stopped and no debate is left.
  Async<void> watch_stop(serve::HttpServer& server);

  GatewayOutcome outcome;

 private:
  Async<void> chat_completion(Exchange& exchange, Clock::time_point arrival);
  enum class Admitted { kYes, kClientLeft, kDeadlinePassed };
  // Waits for a debate slot (Admitted::kYes: the caller holds it and must release it), until the
  // client leaves or the request's deadline passes: a queued request ends at its deadline too.
  Async<Admitted> wait_for_slot(Exchange& exchange, Clock::time_point deadline);
  // Each with extra headers, or without (GCC 12 must not see a braced list passed to a coroutine).
  Async<void> reply(Exchange& exchange, int status, std::string body, Headers headers);
  Async<void> reply(Exchange& exchange, int status, std::string body);
  Async<void> reply_error(Exchange& exchange, const ApiError& error, Headers headers);
  Async<void> reply_error(Exchange& exchange, const ApiError& error);
  bool authorised(const serve::IncomingRequest& request) const;
  // Retry-After for a 429 or a 503 of the queue: retry_after_s, in whole seconds, at least 1.
  Headers retry_after() const;
  // The task known under `id`, which a request reusing the id must ask again: the task of a
  // debate in flight, else of one stored (read from the store, which has every finished debate
  // before its request's gateway::TasksInFlight::Hold ends); nullopt when none.
  Result<std::optional<Task>> known_task(const std::string& id);
  const PlannedProtocol* served_model(const std::string& name) const;
  std::vector<std::string> model_names() const;
  // Metrics, then the store (its transaction; committed by flush()). False when it could not be
  // stored: the gateway then stops taking requests.
  bool record(Transcript& transcript, const Task& task);
  // Commits what record() put since the last flush; false (and the gateway stops) on failure.
  bool flush();
  void log(const serve::IncomingRequest& request, int status, std::string_view detail, Clock::time_point arrival);

  EventLoop& loop_;
  const ExperimentConfig& served_;
  const ServeConfig& serve_;
  std::vector<PlannedProtocol> models_;
  Store& store_;
  std::set<UnitKey> units_;  // stored or in flight: a unit is debated once
  gateway::TasksInFlight tasks_in_flight_;
  std::string api_key_;
  bool simulated_;
  const GatewayOptions& options_;
  gateway::Admission admission_;
  std::uint64_t next_id_ = 0;
  std::string id_prefix_;
  bool stopping_ = false;
  bool unflushed_ = false;
  serve::HttpServer* server_ = nullptr;
};

Async<void> Gateway::reply(Exchange& exchange, int status, std::string body, Headers headers) {
  for (const auto& header : json_headers()) headers.push_back(header);
  co_await exchange.respond(status, std::move(headers), std::move(body));
}

Async<void> Gateway::reply(Exchange& exchange, int status, std::string body) {
  co_await reply(exchange, status, std::move(body), Headers());
}

Async<void> Gateway::reply_error(Exchange& exchange, const ApiError& error, Headers headers) {
  co_await reply(exchange, error.status, gateway::error_json(error), std::move(headers));
}

Async<void> Gateway::reply_error(Exchange& exchange, const ApiError& error) {
  co_await reply_error(exchange, error, Headers());
}

bool Gateway::authorised(const serve::IncomingRequest& request) const {
  if (api_key_.empty()) return true;
  const auto header = request.header("authorization");
  return header && request.header_count("authorization") == 1 && gateway::bearer_key_matches(*header, api_key_);
}

Headers Gateway::retry_after() const {
  return {{"Retry-After", fmt::format("{}", static_cast<long>(std::max(1.0, std::ceil(serve_.retry_after_s))))}};
}

const PlannedProtocol* Gateway::served_model(const std::string& name) const {
  for (const auto& model : models_) {
    if (model.config->label == name) return &model;
  }
  return nullptr;
}

std::vector<std::string> Gateway::model_names() const {
  std::vector<std::string> names;
  for (const auto& model : models_) names.push_back(model.config->label);
  return names;
}

void Gateway::log(const serve::IncomingRequest& request, int status, std::string_view detail, Clock::time_point arrival) {
  ++outcome.requests;
  if (!options_.log) return;
  const double seconds = std::chrono::duration<double>(Clock::now() - arrival).count();
  options_.log(fmt::format("{} {} {} {:.3f}s{}{}", request.method, request.target.substr(0, 200), status, seconds,
                           detail.empty() ? "" : " ", detail));
}

Async<void> Gateway::handle(Exchange& exchange) {
  const Clock::time_point arrival = Clock::now();
  const serve::IncomingRequest& request = exchange.request();
  const std::string_view target = request.target;
  const std::string path(target.substr(0, target.find('?')));
  const bool read = request.method == "GET" || request.method == "HEAD";
  if (gateway::is_loopback_name(serve_.host) && !gateway::host_allowed(request)) {
    const ApiError error{421, "the Host header must name this machine (localhost, 127.x.x.x or [::1])",
                         "invalid_request_error", "", "misdirected_request"};
    co_await reply_error(exchange, error);
    log(request, 421, "", arrival);
    co_return;
  }
  if (path == "/health" && !read) {
    const ApiError error{405, "use GET for /health", "invalid_request_error", "", "method_not_allowed"};
    Headers allow{{"Allow", "GET, HEAD"}};
    co_await reply_error(exchange, error, std::move(allow));
    log(request, 405, "", arrival);
    co_return;
  }
  if (path == "/health") {
    const nlohmann::json health = {{"status", stopping_ ? "stopping" : "ok"},
                                   {"models", model_names()},
                                   {"debates_in_flight", admission_.in_flight()},
                                   {"waiting", admission_.waiting()},
                                   {"max_debates", serve_.max_debates},
                                   {"max_waiting", serve_.max_waiting},
                                   {"debates_stored", outcome.debates},
                                   {"simulated", simulated_}};
    co_await reply(exchange, 200, health.dump());
    log(request, 200, "", arrival);
    co_return;
  }
  const bool api = path == "/v1/models" || path.rfind("/v1/models/", 0) == 0 || path == "/v1/chat/completions";
  if (!api) {
    const ApiError error{404, fmt::format("no route {} {}: parley serve answers POST /v1/chat/completions, "
                                          "GET /v1/models and GET /health", request.method, path.substr(0, 200)),
                         "invalid_request_error", "", "not_found"};
    co_await reply_error(exchange, error);
    log(request, 404, "", arrival);
    co_return;
  }
  if (!authorised(request)) {
    const ApiError error{401, "Incorrect or missing API key: send Authorization: Bearer <key>", "invalid_request_error",
                         "", "invalid_api_key"};
    Headers challenge{{"WWW-Authenticate", "Bearer"}};
    co_await reply_error(exchange, error, std::move(challenge));
    log(request, 401, "", arrival);
    co_return;
  }
  if (path == "/v1/chat/completions") {
    if (request.method != "POST") {
      const ApiError error{405, "use POST for /v1/chat/completions", "invalid_request_error", "", "method_not_allowed"};
      Headers allow{{"Allow", "POST"}};
      co_await reply_error(exchange, error, std::move(allow));
      log(request, 405, "", arrival);
      co_return;
    }
    co_await chat_completion(exchange, arrival);
    co_return;
  }
  if (!read) {
    const ApiError error{405, "use GET for " + path, "invalid_request_error", "", "method_not_allowed"};
    Headers allow{{"Allow", "GET, HEAD"}};
    co_await reply_error(exchange, error, std::move(allow));
    log(request, 405, "", arrival);
    co_return;
  }
  if (path == "/v1/models") {
    co_await reply(exchange, 200, gateway::models_json(model_names(), unix_seconds()));
    log(request, 200, "", arrival);
    co_return;
  }
  const std::string escaped = path.substr(std::string_view("/v1/models/").size());
  const std::string name = percent_decoded(escaped);  // a client library escapes "org/model"; a malformed escape stays
  if (served_model(name) == nullptr) {
    const ApiError error{404, fmt::format("The model '{}' does not exist", name.substr(0, 200)), "invalid_request_error",
                         "model", "model_not_found"};
    co_await reply_error(exchange, error);
    log(request, 404, "", arrival);
    co_return;
  }
  const nlohmann::json model = {{"id", name}, {"object", "model"}, {"created", unix_seconds()}, {"owned_by", "parley"}};
  co_await reply(exchange, 200, model.dump());
  log(request, 200, "", arrival);
}

Result<std::optional<Task>> Gateway::known_task(const std::string& id) {
  if (const Task* in_flight = tasks_in_flight_.find(id)) return std::optional<Task>(*in_flight);
  return store_.stored_task(id);
}

bool Gateway::record(Transcript& transcript, const Task& task) {
  add_debate_metrics(transcript, {.u_intra_lambda = served_.metrics.u_intra_lambda,
                                  .answer_type = task.answer_type,
                                  .labels = task.labels});
  // Committed with the next flush, within EventLoop::kStopCheckInterval (watch_stop), as a run's
  // debates are in batches: a commit per request would cost more CPU than the request.
  const Result<Ok> stored = store_.put(transcript);
  unflushed_ = true;
  if (!stored) {
    outcome.failure = stored.error();
    stopping_ = true;
    if (server_ != nullptr) server_->stop();
    return false;
  }
  ++outcome.debates;
  if (transcript.status == DebateStatus::kFailed) ++outcome.failed;
  return true;
}

bool Gateway::flush() {
  if (!unflushed_) return true;
  unflushed_ = false;
  if (auto ok = store_.flush(); !ok) {
    if (!outcome.failure) outcome.failure = ok.error();
    stopping_ = true;
    if (server_ != nullptr) server_->stop();
    return false;
  }
  return true;
}

Async<Gateway::Admitted> Gateway::wait_for_slot(Exchange& exchange, Clock::time_point deadline) {
  if (!admission_.must_wait()) {
    co_return co_await admission_.acquire(loop_, &exchange.disconnected()) ? Admitted::kYes : Admitted::kClientLeft;
  }
  // The wait ends with a slot, the client's leaving, or the deadline: a timer beside the wait
  // fires `give_up` at the deadline unless the wait ended first (`waited`).
  CancelSignal give_up;
  const CancelSignal::Subscription client_gone =
      exchange.disconnected().subscribe([&give_up, &exchange] { give_up.fire(exchange.disconnected().reason()); });
  CancelSignal waited;
  bool holds_slot = false;
  auto wait = [&]() -> Async<bool> {
    holds_slot = co_await admission_.acquire(loop_, &give_up);
    waited.fire("admitted or left");
    co_return true;
  };
  auto timer = [&]() -> Async<bool> {
    co_await loop_.sleep_until(deadline, &waited);
    if (!waited.fired()) give_up.fire("deadline");
    co_return true;
  };
  std::vector<Async<bool>> both;
  both.push_back(wait());
  both.push_back(timer());
  co_await when_all(std::move(both));
  if (holds_slot) co_return Admitted::kYes;
  co_return exchange.disconnected().fired() ? Admitted::kClientLeft : Admitted::kDeadlinePassed;
}

Async<void> Gateway::chat_completion(Exchange& exchange, Clock::time_point arrival) {
  const serve::IncomingRequest& http = exchange.request();
  const auto content_type = http.header("content-type");
  if (!content_type || !gateway::is_json_media_type(*content_type)) {
    // Also what keeps a web page from starting debates with a form post (no CORS preflight).
    const ApiError error{415, "the body must be JSON, sent with Content-Type: application/json",
                         "invalid_request_error", "", "unsupported_media_type"};
    co_await reply_error(exchange, error);
    log(http, 415, "", arrival);
    co_return;
  }
  auto parsed = gateway::parse_completion_request(http.body);
  if (auto* error = std::get_if<ApiError>(&parsed)) {
    co_await reply_error(exchange, *error);
    log(http, error->status, "", arrival);
    co_return;
  }
  const gateway::CompletionRequest& request = std::get<gateway::CompletionRequest>(parsed);
  const PlannedProtocol* model = served_model(request.model);
  if (model == nullptr) {
    const ApiError error{404, fmt::format("The model '{}' does not exist; served: {}", request.model.substr(0, 200),
                                          fmt::join(model_names(), ", ")),
                         "invalid_request_error", "model", "model_not_found"};
    co_await reply_error(exchange, error);
    log(http, 404, "", arrival);
    co_return;
  }
  if (stopping_) {
    const ApiError error{503, "parley serve is stopping", "server_error", "", "shutting_down"};
    co_await reply_error(exchange, error);
    log(http, 503, "", arrival);
    co_return;
  }
  const std::string id = fmt::format("chatcmpl-{}-{}", id_prefix_, next_id_++);
  const UnitKey unit{request.task_id.value_or(id), model->config->label, request.seed.value_or(0)};
  auto task = std::make_shared<Task>();
  task->id = unit.task_id;
  task->question = request.question;
  task->options = request.options;
  task->answer_type = request.answer_type;
  task->answer = request.gold.value_or("");
  task->tolerance = request.tolerance;
  const auto known = known_task(unit.task_id);
  if (!known) {
    if (options_.log) options_.log(fmt::format("cannot read the store: {}", known.error().message));
    const ApiError unread{500, "the store could not be read", "server_error", "", "store_failed"};
    co_await reply_error(exchange, unread);
    log(http, 500, "store unreadable", arrival);
    co_return;
  }
  if (const auto field = *known ? gateway::task_difference(**known, *task) : std::nullopt) {
    const ApiError error{409,
                         fmt::format("task id '{}' names another task (different {}) from the one stored or being "
                                     "debated under it; send another parley.task_id",
                                     unit.task_id, *field),
                         "invalid_request_error", "parley.task_id", "task_conflict"};
    co_await reply_error(exchange, error);
    log(http, 409, "", arrival);
    co_return;
  }
  if (units_.count(unit) != 0) {
    const ApiError error{409, fmt::format("task '{}' was already debated by {} with seed {}; send another seed or "
                                          "parley.task_id", unit.task_id, unit.protocol, unit.seed),
                         "invalid_request_error", "parley.task_id", "duplicate_task"};
    co_await reply_error(exchange, error);
    log(http, 409, "", arrival);
    co_return;
  }
  // Admission: a free slot, else a place in the queue, else 429.
  if (admission_.full()) {
    ++outcome.rejected;
    const ApiError error{429, fmt::format("parley serve is saturated: {} debates in flight and {} waiting; retry later",
                                          admission_.in_flight(), admission_.waiting()),
                         "rate_limit_error", "", "rate_limit_exceeded"};
    Headers retry = retry_after();
    co_await reply_error(exchange, error, std::move(retry));
    log(http, 429, "", arrival);
    co_return;
  }
  units_.insert(unit);
  const gateway::TasksInFlight::Hold in_flight = tasks_in_flight_.hold(*task);  // until the debate is stored, or not
  const double deadline_s = std::min(request.deadline_s.value_or(serve_.deadline_s), serve_.deadline_s);
  const Clock::time_point deadline =
      arrival + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(deadline_s));
  const Admitted admitted = co_await wait_for_slot(exchange, deadline);
  if (admitted == Admitted::kClientLeft) {  // the client left (or half-closed) while queued: nothing ran, nothing to store
    units_.erase(unit);
    log(http, 499, "client left before its debate started", arrival);
    co_return;
  }
  if (admitted == Admitted::kDeadlinePassed) {  // nothing ran, nothing to store
    units_.erase(unit);
    const ApiError error{503,
                         fmt::format("the request's deadline ({} s) passed while it waited for a debate slot; retry "
                                     "later or with a longer parley.deadline_s",
                                     deadline_s),
                         "server_error", "", "deadline_in_queue"};
    Headers retry = retry_after();
    co_await reply_error(exchange, error, std::move(retry));
    log(http, 503, "deadline passed while queued", arrival);
    co_return;
  }
  gateway::Admission::Slot slot(admission_, loop_);

  DebateSetup setup = debate_setup(*model, served_, loop_, task, unit.seed);
  if (request.budget_tokens) {
    setup.budget_tokens = std::min(*request.budget_tokens, setup.budget_tokens.value_or(*request.budget_tokens));
  }
  setup.deadline = deadline;
  setup.cancel = &exchange.disconnected();
  const gateway::DebateSummary summary{id, model->config->label, model->config->name, simulated_};
  const std::int64_t created = unix_seconds();

  Transcript transcript;
  if (!request.stream) {
    transcript = co_await run_debate(*model->protocol, std::move(setup));
  } else {
    gateway::ChunkQueue queue(loop_);
    setup.on_progress = [&](const Transcript& so_far, const DebateProgress& progress) {
      queue.push(sse(progress.kind == DebateProgress::Kind::kCall
                         ? gateway::call_chunk_json(summary, created, so_far.messages[progress.index])
                         : gateway::event_chunk_json(summary, created, so_far.events[progress.index])));
    };
    Headers stream_headers{{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
    co_await exchange.begin_stream(200, std::move(stream_headers));
    queue.push(sse(gateway::role_chunk_json(summary, created)));
    auto debate = [&]() -> Async<bool> {
      transcript = co_await run_debate(*model->protocol, std::move(setup));
      queue.close();
      co_return true;
    };
    auto pump = [&]() -> Async<bool> {
      while (auto chunk = co_await queue.next()) co_await exchange.write(std::move(*chunk));
      co_return true;
    };
    std::vector<Async<bool>> both;
    both.push_back(debate());
    both.push_back(pump());
    co_await when_all(std::move(both));
  }

  if (transcript.status == DebateStatus::kCancelled && loop_.cancelled()) {
    units_.erase(unit);  // the gateway was stopped: not a result, as in a run
    log(http, 503, "hard stop: the debate was cancelled, its connection closed, nothing stored", arrival);
    co_return;
  }
  const bool client_left = transcript.status == DebateStatus::kCancelled;
  if (client_left) transcript.status = DebateStatus::kFailed;  // stored, so its tokens are accounted for
  if (!record(transcript, *task)) {
    units_.erase(unit);
    if (options_.log) options_.log(fmt::format("cannot store the debate: {}; parley serve stops", outcome.failure->message));
    if (client_left) co_return;
    const ApiError unstored{500, "the debate could not be stored; parley serve stops", "server_error", "", "store_failed"};
    if (request.stream) {
      co_await exchange.write(sse(gateway::error_json(unstored)) + sse("[DONE]"));
      co_await exchange.end_stream();
    } else {
      co_await reply_error(exchange, unstored);
    }
    log(http, 500, "store failed", arrival);
    co_return;
  }
  const gateway::DebateUsage usage = gateway::usage_of(transcript);
  // The reason in full (a backend's own error text: the client is told less, the log and the
  // store have it all).
  const std::string detail =
      fmt::format("model={} task={} status={} calls={} tokens={}{}{}", summary.model, unit.task_id,
                  debate_status_name(transcript.status), transcript.calls(), usage.prompt_tokens + usage.completion_tokens,
                  transcript.status_reason.empty() ? "" : " reason=", transcript.status_reason);
  if (client_left) {  // closed, or half-closed (shut down its sending side), during the debate
    log(http, 499, "client left during the debate: " + detail, arrival);
    co_return;
  }
  const bool failed = transcript.status == DebateStatus::kFailed;
  const ApiError failure{502, gateway::debate_failure_message(transcript), "server_error", "", "debate_failed"};
  if (!request.stream) {
    if (failed) {
      co_await reply_error(exchange, failure);
    } else {
      co_await reply(exchange, 200, gateway::completion_json(summary, transcript, created));
    }
    log(http, failed ? 502 : 200, detail, arrival);
    co_return;
  }
  std::string tail;
  if (failed) {
    tail = sse(gateway::error_json(failure));
  } else {
    tail = sse(gateway::content_chunk_json(summary, created, gateway::answer_text(transcript))) +
           sse(gateway::finish_chunk_json(summary, created, transcript));
    if (request.include_usage) tail += sse(gateway::usage_chunk_json(summary, created, transcript));
  }
  tail += sse("[DONE]");
  co_await exchange.write(std::move(tail));
  co_await exchange.end_stream();
  // The outcome, as for a request not streamed: the HTTP status went out as 200 before the
  // debate failed, the error as the stream's last event.
  log(http, failed ? 502 : 200, failed ? detail + " (streamed: HTTP 200, then the error)" : detail, arrival);
}

Async<void> Gateway::watch_stop(serve::HttpServer& server) {
  server_ = &server;
  bool cancelled = false;
  for (;;) {
    flush();
    const int requests = g_stop_requests.load();
    if ((requests >= 1 || outcome.failure) && !stopping_) {
      stopping_ = true;
      server.stop();
    }
    if (requests >= 2 && !cancelled) {
      cancelled = true;
      loop_.cancel();
    }
    if (stopping_ && admission_.in_flight() == 0 && admission_.waiting() == 0 && !server.busy()) co_return;
    if (loop_.cancelled()) co_return;
    co_await loop_.sleep_for(EventLoop::kStopCheckInterval);
  }
}

}  // namespace

void request_gateway_stop() { g_stop_requests.fetch_add(1); }

Result<GatewayOutcome> run_gateway(const ExperimentConfig& config, const GatewayOptions& options) {
  if (!config.serve) {
    return Error{fmt::format("{} has no serve: section naming the models to serve (docs/formats.md, \"Serve files\")",
                             config.source.string())};
  }
  g_stop_requests.store(0);  // a stop requested of an earlier gateway in this process is not this one's
  ServeConfig serve = *config.serve;
  if (options.host) serve.host = *options.host;
  if (options.port) serve.port = *options.port;
  if (options.store) serve.store = *options.store;
  if (options.api_key_env) serve.api_key_env = *options.api_key_env;
  std::string api_key;
  if (!serve.api_key_env.empty()) {
    const char* key = std::getenv(serve.api_key_env.c_str());
    if (key == nullptr || *key == '\0') {
      return Error{fmt::format("the gateway's key variable {} is not set in the environment", serve.api_key_env)};
    }
    api_key = key;
  }
  const ExperimentConfig served = config.served_experiment();

  EventLoop loop;
  auto backends = make_backends(loop, served, std::nullopt);
  if (!backends) return backends.error();
  auto record = StoreRecord::of(served);
  if (!record) return record.error();

  // Listens first, so that a gateway that cannot start (the address in use) leaves the store as
  // it was: not created, not locked, not claimed. No request is handled before loop.run(), by
  // which time the gateway exists.
  std::optional<Gateway> gateway;
  serve::HttpLimits limits;
  limits.max_body_bytes = static_cast<std::size_t>(serve.max_request_bytes);
  limits.max_connections = static_cast<std::size_t>(serve.max_connections);
  // Room for a few of the largest requests at once, however large max_request_bytes is.
  limits.max_buffered_input = std::max(limits.max_buffered_input, 4 * limits.max_body_bytes);
  auto server = serve::HttpServer::listen(
      loop, serve.host, static_cast<std::uint16_t>(serve.port),
      [&gateway](Exchange& exchange) { return gateway->handle(exchange); }, limits, [](int status, std::string_view message) {
        const char* type = status >= 500 ? "server_error" : "invalid_request_error";
        return gateway::error_json({status, std::string(message), type, "", ""});
      });
  if (!server) return server.error();

  const StoreClaim claim{.resume = true, .elsewhere = "choose another serve.store (or --store)", .source = "serve"};
  std::error_code ec;
  std::filesystem::create_directories(serve.store, ec);
  if (ec) return Error{fmt::format("{}: cannot create the store's directory: {}", serve.store.string(), ec.message())};
  auto lock = RunLock::acquire(serve.store, claim.elsewhere);
  if (!lock) return lock.error();
  auto opened = Store::open(serve.store / "results.sqlite");
  if (!opened) return opened.error();
  Store& store = **opened;
  if (auto ok = record->claim(store, serve.store, backends->simulated, claim); !ok) return ok.error();

  gateway.emplace(loop, served, serve, plan_protocols(served, *backends), store, store.finished(), api_key,
                  backends->simulated, options);
  if (options.on_listening) {
    const bool v6 = serve.host.find(':') != std::string::npos;
    const std::string host = v6 ? "[" + serve.host + "]" : serve.host;
    options.on_listening(fmt::format("{}:{}", host, (*server)->port()));
  }
  loop.spawn(gateway->watch_stop(**server));
  loop.run();

  GatewayOutcome outcome = gateway->outcome;
  if (auto ok = store.flush(); !ok && !outcome.failure) outcome.failure = ok.error();
  if (!outcome.failure) {
    if (auto ok = store.finish(); !ok) outcome.failure = ok.error();
  }
  return outcome;
}

}  // namespace parley
