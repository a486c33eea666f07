// CachingClient: record/replay of successful chat and embedding responses on disk, keyed by
// cache_key / embedding_cache_key, and one shared inner call for identical requests in flight,
// which each caller's CancelSignal can leave. The file format is documented in docs/formats.md
// ("Record/replay cache").

#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cmath>
#include <coroutine>
#include <exception>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "core/hash.h"
#include "llm/http_support.h"
#include "llm/wait_list.h"
#include "parley/llm_client.h"

namespace parley {
namespace {

using nlohmann::json;

constexpr std::string_view kFormat = "parley-cache-v1";

// Length-prefixed fields, so no choice of contents can make two requests serialise alike.
class Canonical {
 public:
  explicit Canonical(std::string_view format) { text_ += format; }
  void add(std::string_view name, std::string_view value) {
    text_ += '\n';
    text_ += name;
    text_ += '=';
    text_ += std::to_string(value.size());
    text_ += ':';
    text_ += value;
  }
  void add(std::string_view name, double value) {
    char buffer[64];
    auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;  // shortest exact form
    add(name, std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
  }
  void add(std::string_view name, std::int64_t value) { add(name, std::string_view(std::to_string(value))); }
  void add(std::string_view name, std::uint64_t value) { add(name, std::string_view(std::to_string(value))); }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// JSON has no infinities (a perplexity can overflow); keep them as strings so replay is exact.
json encode_double(double value) {
  if (std::isfinite(value)) return value;
  if (std::isnan(value)) return "nan";
  return value > 0 ? "inf" : "-inf";
}

double decode_double(const json& value) {
  if (value.is_number()) return value.get<double>();
  const auto text = value.get<std::string>();  // throws on anything else: a corrupt entry
  if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  throw std::invalid_argument("not a number");
}

json encode_usage(const Usage& usage) {
  return {{"prompt_tokens", usage.prompt_tokens},
          {"completion_tokens", usage.completion_tokens},
          {"cached_tokens", usage.cached_tokens},
          {"estimated", usage.estimated}};
}

Usage decode_usage(const json& usage) {
  return Usage{usage.at("prompt_tokens").get<std::int64_t>(),
               usage.at("completion_tokens").get<std::int64_t>(),
               usage.at("cached_tokens").get<std::int64_t>(), usage.at("estimated").get<bool>()};
}

json encode_response(const ChatResponse& response) {
  json logprobs = nullptr;
  if (response.logprobs) {
    logprobs = {{"min_token_logprob", encode_double(response.logprobs->min_token_logprob)},
                {"perplexity", encode_double(response.logprobs->perplexity)},
                {"tokens", response.logprobs->tokens}};
  }
  return {{"text", response.text},
          {"reasoning", response.reasoning},
          {"finish_reason", response.finish_reason},
          {"usage", encode_usage(response.usage)},
          {"logprobs", std::move(logprobs)},
          {"latency_ms", encode_double(response.latency_ms)},
          {"attempts", response.attempts},
          {"warnings", response.warnings}};
}

json encode_response(const EmbeddingResponse& response) {
  json vectors = json::array();
  for (const auto& vector : response.vectors) {
    json values = json::array();
    for (double value : vector) values.push_back(encode_double(value));
    vectors.push_back(std::move(values));
  }
  return {{"vectors", std::move(vectors)},
          {"usage", encode_usage(response.usage)},
          {"latency_ms", encode_double(response.latency_ms)},
          {"attempts", response.attempts},
          {"warnings", response.warnings}};
}

// Entries recorded before warnings existed have none.
std::vector<std::string> decode_warnings(const json& r) {
  const auto found = r.find("warnings");
  return found == r.end() ? std::vector<std::string>{} : found->get<std::vector<std::string>>();
}

// The decoders throw (json type errors, invalid_argument) on anything but a complete record.
ChatResponse decode_chat_response(const json& r) {
  ChatResponse response;
  response.text = r.at("text").get<std::string>();
  response.reasoning = r.at("reasoning").get<std::string>();
  response.finish_reason = r.at("finish_reason").get<std::string>();
  response.usage = decode_usage(r.at("usage"));
  const json& logprobs = r.at("logprobs");
  if (!logprobs.is_null()) {
    LogprobStats stats;
    stats.min_token_logprob = decode_double(logprobs.at("min_token_logprob"));
    stats.perplexity = decode_double(logprobs.at("perplexity"));
    stats.tokens = logprobs.at("tokens").get<int>();
    response.logprobs = stats;
  }
  response.latency_ms = decode_double(r.at("latency_ms"));
  response.attempts = r.at("attempts").get<int>();
  response.warnings = decode_warnings(r);
  return response;
}

// `inputs`: how many texts the request embeds; a record with another count is corrupt.
EmbeddingResponse decode_embedding_response(const json& r, std::size_t inputs) {
  EmbeddingResponse response;
  const json& vectors = r.at("vectors");
  if (!vectors.is_array() || vectors.size() != inputs) throw std::invalid_argument("wrong number of vectors");
  for (const json& values : vectors) {
    if (!values.is_array() || values.empty()) throw std::invalid_argument("not a vector");
    std::vector<double>& vector = response.vectors.emplace_back();
    for (const json& value : values) vector.push_back(decode_double(value));
    if (vector.size() != response.vectors.front().size()) throw std::invalid_argument("ragged vectors");
  }
  response.usage = decode_usage(r.at("usage"));
  response.latency_ms = decode_double(r.at("latency_ms"));
  response.attempts = r.at("attempts").get<int>();
  response.warnings = decode_warnings(r);
  return response;
}

// Identical requests in flight at once share one call: the first caller with a key makes it,
// and callers arriving before it finishes wait for its result, a failure included. So two
// protocols asking the same question at the same moment get one reply, not two samples.
// Waiters resume through the loop once the result is known; one whose own CancelSignal fires
// stops waiting at once, and the call goes on for the others.
template <class Result>
class Coalescer {
 public:
  struct Shared;  // one call in flight: its result once known, and who waits for it
  // A key in flight: later callers of the key join it until it is settled.
  class Claim {
   public:
    Claim(Coalescer* owner, std::string key, std::shared_ptr<Shared> shared)
        : owner_(owner), key_(std::move(key)), shared_(std::move(shared)) {}
    // Hands `result` (or `failure`, an exception of the call) to every caller that joined.
    void settle(std::optional<Result> result, std::exception_ptr failure = nullptr) {
      shared_->result = std::move(result);
      shared_->failure = failure;
      shared_->settled = true;
      // Out of the map before anyone resumes: a waiter may ask again, and that is a new call.
      owner_->in_flight_.erase(key_);
      shared_->waiters.notify_all();
    }
    // The settled result, for the caller that made the call: moved out once no caller that
    // joined still has to read it.
    Result take() { return shared_->unread == 0 ? std::move(*shared_->result) : *shared_->result; }

   private:
    Coalescer* owner_;
    std::string key_;
    std::shared_ptr<Shared> shared_;
  };

  explicit Coalescer(EventLoop& loop) : loop_(loop) {}

  // The call in flight for `key`, to wait for; or, when there is none, a claim on `key`: the
  // caller makes the call and settles the claim.
  std::variant<std::shared_ptr<Shared>, Claim> join_or_claim(const std::string& key) {
    if (auto found = in_flight_.find(key); found != in_flight_.end()) {
      ++found->second->unread;
      return found->second;
    }
    const auto shared = std::make_shared<Shared>();
    in_flight_.emplace(key, shared);
    return Claim(this, key, shared);
  }

  // The result of the call `shared` joined (at once when it is settled already, as for chat_n,
  // which waits after its own calls); nullopt when `*cancel` fired first.
  Async<std::optional<Result>> wait(std::shared_ptr<Shared> shared,
                                    CancelSignal* cancel) {  // outlives the map entry
    if (!shared->settled) {
      const bool notified = co_await shared->waiters.wait(loop_, cancel);
      if (!notified) {
        --shared->unread;
        co_return std::nullopt;
      }
    }
    --shared->unread;
    if (shared->failure) std::rethrow_exception(shared->failure);
    co_return *shared->result;
  }

  struct Shared {
    std::optional<Result> result;
    std::exception_ptr failure;
    bool settled = false;
    int unread = 0;  // callers that joined and have not read the result (nor left) yet
    WaitList waiters;
  };

 private:
  EventLoop& loop_;
  std::unordered_map<std::string, std::shared_ptr<Shared>> in_flight_;
};

// The answer to a caller whose own signal `cancel` ended its call before anything was sent for it.
CallError cancelled(const CancelSignal& cancel) {
  return CallError{CallErrorKind::kCancelled, 0, http::cancelled_message(cancel), 0};
}

class CachingClient final : public LlmClient {
 public:
  CachingClient(EventLoop& loop, std::unique_ptr<LlmClient> inner, std::filesystem::path dir)
      : loop_(loop),
        inner_(std::move(inner)),
        dir_(std::move(dir)),
        chats_in_flight_(loop),
        embeddings_in_flight_(loop) {}

  bool simulated() const override { return inner_->simulated(); }

  Async<ChatResult> chat(ChatRequest request) override {
    if (request.cancel != nullptr && request.cancel->fired()) co_return cancelled(*request.cancel);
    const std::string key = cache_key(request);
    CancelSignal* const cancel = request.cancel;
    const auto ask_inner = [&] { return inner_->chat(std::move(request)); };
    co_return co_await replay_or_call<ChatResponse>(key, decode_chat_response, ask_inner, chats_in_flight_,
                                                    cancel);
  }

  // Each sample is replayed, joined or recorded under its own key (as chat() would), and the
  // runs of consecutive samples that are none of these go to `inner` as one chat_n each.
  Async<std::vector<ChatResult>> chat_n(ChatRequest request, int n) override {
    using Shared = Coalescer<ChatResult>::Shared;
    using Claim = Coalescer<ChatResult>::Claim;
    const auto count = static_cast<std::size_t>(std::max(n, 0));
    if (request.cancel != nullptr && request.cancel->fired())
      co_return std::vector<ChatResult>(count, ChatResult(cancelled(*request.cancel)));
    const int first = request.note.sample;
    std::vector<std::optional<ChatResult>> results(count);
    std::vector<std::string> keys(count);
    std::vector<std::shared_ptr<Shared>> joined(count);
    std::vector<std::optional<Claim>> claims(count);
    for (std::size_t i = 0; i < count; ++i) {
      request.note.sample = first + static_cast<int>(i);
      keys[i] = cache_key(request);
      if (auto recorded = read_entry<ChatResponse>(entry_path(keys[i]), keys[i], decode_chat_response)) {
        results[i] = std::move(*recorded);
        continue;
      }
      auto in_flight = chats_in_flight_.join_or_claim(keys[i]);
      if (auto* shared = std::get_if<std::shared_ptr<Shared>>(&in_flight)) {
        joined[i] = std::move(*shared);
      } else {
        claims[i].emplace(std::move(std::get<Claim>(in_flight)));
      }
    }

    std::vector<std::pair<std::size_t, std::size_t>> runs;  // first sample, samples
    std::vector<Async<std::vector<ChatResult>>> calls;
    for (std::size_t i = 0; i < count;) {
      std::size_t end = i;
      while (end < count && claims[end]) ++end;
      if (end == i) {
        ++i;
        continue;
      }
      ChatRequest run = request;
      run.note.sample = first + static_cast<int>(i);
      calls.push_back(inner_->chat_n(std::move(run), static_cast<int>(end - i)));
      runs.emplace_back(i, end - i);
      i = end;
    }
    std::vector<std::vector<ChatResult>> answers;
    std::exception_ptr failure;
    try {
      answers = co_await when_all(std::move(calls));
    } catch (...) {
      failure = std::current_exception();
    }
    if (failure) {
      for (auto& claim : claims) {
        if (claim) claim->settle(std::nullopt, failure);
      }
      std::rethrow_exception(failure);
    }
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const auto [start, length] = runs[r];
      for (std::size_t k = 0; k < length; ++k) {
        results[start + k] = k < answers[r].size()
                                 ? std::move(answers[r][k])
                                 : ChatResult(CallError{CallErrorKind::kBadResponse, 0,
                                                        "the backend answered fewer samples than asked"});
      }
    }
    // All entries are written before any waiter runs, so a run killed in between is unlikely
    // to leave part of a batch recorded.
    for (std::size_t i = 0; i < count; ++i) {
      const auto* response = claims[i] ? std::get_if<ChatResponse>(&*results[i]) : nullptr;
      if (response != nullptr) write_entry(entry_path(keys[i]), keys[i], encode_response(*response));
    }
    for (std::size_t i = 0; i < count; ++i) {
      if (!claims[i]) continue;
      claims[i]->settle(std::move(results[i]));
      results[i] = claims[i]->take();
    }
    for (std::size_t i = 0; i < count; ++i) {
      if (!joined[i]) continue;
      std::optional<ChatResult> shared = co_await chats_in_flight_.wait(joined[i], request.cancel);
      if (!shared) {
        results[i] = cancelled(*request.cancel);
      } else if (inherited_cancellation(*shared, request.cancel)) {
        ChatRequest sample = request;  // asked again, as chat() asks it
        sample.note.sample = first + static_cast<int>(i);
        results[i] = co_await chat(std::move(sample));
      } else {
        results[i] = std::move(*shared);
      }
    }
    std::vector<ChatResult> out;
    out.reserve(count);
    for (auto& result : results) out.push_back(std::move(*result));
    co_return out;
  }

  Async<EmbeddingResult> embed(EmbeddingRequest request) override {
    const std::string key = embedding_cache_key(request);
    const std::size_t inputs = request.inputs.size();
    const auto decode = [inputs](const json& recorded) {
      return decode_embedding_response(recorded, inputs);
    };
    CancelSignal* const cancel = request.cancel;
    if (cancel != nullptr && cancel->fired()) co_return cancelled(*cancel);
    const auto ask_inner = [&] { return inner_->embed(std::move(request)); };
    co_return co_await replay_or_call<EmbeddingResponse>(key, decode, ask_inner, embeddings_in_flight_,
                                                         cancel);
  }

 private:
  // Whether `result` is a cancellation the caller with signal `cancel` did not ask for: the
  // shared call it joined was made with the first caller's request, whose signal fired. Not
  // when its own signal fired, nor when the loop was cancelled (which ends every call).
  template <class Result>
  bool inherited_cancellation(const Result& result, const CancelSignal* cancel) const {
    const auto* error = std::get_if<CallError>(&result);
    return error != nullptr && error->kind == CallErrorKind::kCancelled &&
           !(cancel != nullptr && cancel->fired()) && !loop_.cancelled();
  }

  // The recorded response of `key`; else the result of an identical call in flight; else that
  // of `ask_inner`, recorded when it succeeds. A caller waiting for an identical call leaves
  // when its `cancel` fires (kCancelled), and asks again when that call was cancelled by the
  // signal of the caller that made it (inherited_cancellation). Callers await it at once, so
  // the arguments may be references into their frames.
  template <class Response, class Decode, class AskInner>
  Async<std::variant<Response, CallError>> replay_or_call(
      const std::string& key, const Decode& decode, const AskInner& ask_inner,
      Coalescer<std::variant<Response, CallError>>& in_flight, CancelSignal* cancel) {
    using Result = std::variant<Response, CallError>;
    using Shared = typename Coalescer<Result>::Shared;
    using Claim = typename Coalescer<Result>::Claim;
    const std::filesystem::path path = entry_path(key);
    while (true) {
      if (auto recorded = read_entry<Response>(path, key, decode)) co_return std::move(*recorded);
      auto joined = in_flight.join_or_claim(key);
      if (auto* shared = std::get_if<std::shared_ptr<Shared>>(&joined)) {
        std::optional<Result> result = co_await in_flight.wait(*shared, cancel);
        if (!result) co_return cancelled(*cancel);
        if (inherited_cancellation(*result, cancel)) continue;
        co_return std::move(*result);
      }
      Claim& claim = std::get<Claim>(joined);
      std::optional<Result> result;
      std::exception_ptr failure;
      try {
        result.emplace(co_await ask_inner());
        if (const auto* response = std::get_if<Response>(&*result))
          write_entry(path, key, encode_response(*response));
      } catch (...) {
        failure = std::current_exception();
      }
      claim.settle(std::move(result), failure);
      if (failure) std::rethrow_exception(failure);
      co_return claim.take();
    }
  }

  std::filesystem::path entry_path(const std::string& key) const {
    return dir_ / key.substr(0, 2) / (key + ".json");
  }

  // Any problem reading the entry makes it a miss; the fresh response then replaces it.
  template <class Response, class Decode>
  static std::optional<Response> read_entry(const std::filesystem::path& path, const std::string& key,
                                            const Decode& decode) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return std::nullopt;
    json entry = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (entry.is_discarded()) return std::nullopt;
    try {
      if (entry.at("format").get<std::string>() != kFormat || entry.at("key").get<std::string>() != key)
        return std::nullopt;
      return decode(entry.at("response"));
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  // Best effort: a cache that cannot be written must not fail the call. The temporary file
  // sits in the entry's directory so that rename() is atomic (same file system).
  static void write_entry(const std::filesystem::path& path, const std::string& key, json response) {
    static std::atomic<std::uint64_t> counter{0};
    std::error_code error;
    std::filesystem::create_directories(path.parent_path(), error);
    if (error) return;
    const std::filesystem::path temporary =
        path.parent_path() /
        ("." + key + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1)));
    try {
      const json entry = {{"format", kFormat}, {"key", key}, {"response", std::move(response)}};
      const std::string text = entry.dump(-1, ' ', false, json::error_handler_t::replace);
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out << text << '\n';
      out.close();
      if (!out) throw std::runtime_error("write failed");
      std::filesystem::rename(temporary, path, error);
      if (error) throw std::runtime_error("rename failed");
    } catch (const std::exception&) {
      std::filesystem::remove(temporary, error);
    }
  }

  EventLoop& loop_;
  std::unique_ptr<LlmClient> inner_;
  std::filesystem::path dir_;
  Coalescer<ChatResult> chats_in_flight_;
  Coalescer<EmbeddingResult> embeddings_in_flight_;
};

}  // namespace

std::string cache_key(const ChatRequest& request) {
  Canonical canonical(kFormat);
  canonical.add("model", request.model);
  canonical.add("messages", static_cast<std::uint64_t>(request.messages.size()));
  for (const auto& message : request.messages) {
    canonical.add("role", message.role);
    canonical.add("content", message.content);
  }
  const Sampling& sampling = request.sampling;
  canonical.add("temperature", sampling.temperature);
  canonical.add("top_p", sampling.top_p);
  canonical.add("max_tokens", static_cast<std::int64_t>(sampling.max_tokens));
  canonical.add("seed", sampling.seed ? std::to_string(*sampling.seed) : std::string("none"));
  canonical.add("logprobs", std::string_view(sampling.logprobs ? "true" : "false"));
  canonical.add("agent", request.note.agent);
  canonical.add("sample", static_cast<std::int64_t>(request.note.sample));
  canonical.add("debate_seed", request.note.seed);
  return hash_hex128(canonical.text());
}

std::string embedding_cache_key(const EmbeddingRequest& request) {
  Canonical canonical(kFormat);
  // A chat key's first field is "model", so no embedding key can equal one.
  canonical.add("request", std::string_view("embedding"));
  canonical.add("model", request.model);
  canonical.add("inputs", static_cast<std::uint64_t>(request.inputs.size()));
  for (const auto& input : request.inputs) canonical.add("input", input);
  return hash_hex128(canonical.text());
}

std::unique_ptr<LlmClient> make_caching_client(EventLoop& loop, std::unique_ptr<LlmClient> inner,
                                               std::filesystem::path dir) {
  return std::make_unique<CachingClient>(loop, std::move(inner), std::move(dir));
}

}  // namespace parley
