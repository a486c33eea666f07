#include <gtest/gtest.h>
#include <unistd.h>

#include <coroutine>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "llm/wait_list.h"
#include "parley/llm_client.h"

namespace parley {
namespace {

namespace fs = std::filesystem;

// Answers with whatever `reply` says and counts the calls.
class CountingClient final : public LlmClient {
 public:
  explicit CountingClient(std::function<ChatResult(const ChatRequest&)> reply, bool simulated = false)
      : reply_(std::move(reply)), simulated_(simulated) {}
  Async<ChatResult> chat(ChatRequest request) override {
    ++calls;
    co_return reply_(request);
  }
  bool simulated() const override { return simulated_; }
  int calls = 0;

 private:
  std::function<ChatResult(const ChatRequest&)> reply_;
  bool simulated_;
};

// Holds every call until open(): lets a test start calls that overlap in time. Each call
// answers with chat_reply / embed_reply, evaluated when the gate lets it through.
class GatedClient final : public LlmClient {
 public:
  explicit GatedClient(bool open = false) : open_(open) {}
  Async<ChatResult> chat(ChatRequest request) override {
    ++chat_calls;
    co_await Gate{this};
    co_return chat_reply(request);
  }
  Async<EmbeddingResult> embed(EmbeddingRequest request) override {
    ++embed_calls;
    co_await Gate{this};
    co_return embed_reply(request);
  }
  // One call answering every sample with chat_reply, as a server honouring "n" does; each
  // call's first sample and count are kept in `batches`.
  Async<std::vector<ChatResult>> chat_n(ChatRequest request, int n) override {
    batches.emplace_back(request.note.sample, n);
    co_await Gate{this};
    std::vector<ChatResult> results;
    for (int i = 0; i < n; ++i) {
      ChatRequest sample = request;
      sample.note.sample += i;
      results.push_back(chat_reply(sample));
    }
    co_return results;
  }
  bool simulated() const override { return false; }

  std::size_t held() const { return held_.size(); }
  // Lets the held calls go on the loop's next turn, and every later call straight through.
  void open(EventLoop& loop) {
    open_ = true;
    for (std::coroutine_handle<> call : std::exchange(held_, {})) loop.post(call);
  }

  std::function<ChatResult(const ChatRequest&)> chat_reply;
  std::function<EmbeddingResult(const EmbeddingRequest&)> embed_reply;
  int chat_calls = 0;
  int embed_calls = 0;
  std::vector<std::pair<int, int>> batches;

 private:
  struct Gate {
    GatedClient* client;
    bool await_ready() const noexcept { return client->open_; }
    void await_suspend(std::coroutine_handle<> call) { client->held_.push_back(call); }
    void await_resume() const noexcept {}
  };
  bool open_;
  std::vector<std::coroutine_handle<>> held_;
};

// Implements chat only, so embed() is the LlmClient default.
class ChatOnlyClient final : public LlmClient {
 public:
  Async<ChatResult> chat(ChatRequest /*request*/) override { co_return ChatResponse{}; }
  bool simulated() const override { return false; }
};

ChatResult call(EventLoop& loop, LlmClient& client, const ChatRequest& request) {
  std::optional<ChatResult> result;
  auto task = [&]() -> Async<void> { result = co_await client.chat(request); };
  loop.spawn(task());
  loop.run();
  return std::move(*result);
}

EmbeddingResult call(EventLoop& loop, LlmClient& client, const EmbeddingRequest& request) {
  std::optional<EmbeddingResult> result;
  auto task = [&]() -> Async<void> { result = co_await client.embed(request); };
  loop.spawn(task());
  loop.run();
  return std::move(*result);
}

// What callers started together on one loop got, once all of them had reached the gate.
template <class Result>
struct Overlapped {
  std::vector<Result> results;
  std::size_t held = 0;  // inner calls waiting at the gate when it opened
};

// Starts `start(0)` .. `start(callers - 1)` on one loop and opens `gated` only after every
// caller has started; no caller may finish before that.
template <class Result>
Overlapped<Result> overlap(EventLoop& loop, GatedClient& gated, std::size_t callers,
                           const std::function<Async<Result>(std::size_t)>& start) {
  std::vector<std::optional<Result>> results(callers);
  Overlapped<Result> out;
  auto caller = [&](std::size_t i) -> Async<void> { results[i] = co_await start(i); };
  auto opener = [&]() -> Async<void> {
    co_await loop.yield();
    for (const auto& result : results)
      EXPECT_FALSE(result.has_value()) << "a caller finished before the gate opened";
    out.held = gated.held();
    gated.open(loop);
  };
  for (std::size_t i = 0; i < callers; ++i) loop.spawn(caller(i));
  loop.spawn(opener());
  loop.run();
  for (auto& result : results) out.results.push_back(std::move(*result));
  return out;
}

ChatResponse rich_response() {
  ChatResponse response;
  response.text = "Let me think.\nAnswer: C\n\"quoted\" \xC3\xA9";
  response.reasoning = "step 1\nstep 2";
  response.usage = Usage{1234, 56, 1024, true};
  response.logprobs = LogprobStats{-3.0000000000000004, 0.1 + 0.2, 17};
  response.latency_ms = 123.456789012345;
  response.attempts = 3;
  response.finish_reason = "length";
  response.warnings = {"logprobs dropped: token 3 has no finite logprob (null)", "invalid UTF-8 replaced"};
  return response;
}

void expect_same(const ChatResponse& a, const ChatResponse& b) {
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.reasoning, b.reasoning);
  EXPECT_EQ(a.usage.prompt_tokens, b.usage.prompt_tokens);
  EXPECT_EQ(a.usage.completion_tokens, b.usage.completion_tokens);
  EXPECT_EQ(a.usage.cached_tokens, b.usage.cached_tokens);
  EXPECT_EQ(a.usage.estimated, b.usage.estimated);
  ASSERT_EQ(a.logprobs.has_value(), b.logprobs.has_value());
  if (a.logprobs) {
    EXPECT_EQ(a.logprobs->min_token_logprob, b.logprobs->min_token_logprob);  // bit-exact
    EXPECT_EQ(a.logprobs->perplexity, b.logprobs->perplexity);
    EXPECT_EQ(a.logprobs->tokens, b.logprobs->tokens);
  }
  EXPECT_EQ(a.latency_ms, b.latency_ms);
  EXPECT_EQ(a.attempts, b.attempts);
  EXPECT_EQ(a.finish_reason, b.finish_reason);
  EXPECT_EQ(a.warnings, b.warnings);
}

ChatRequest sample_request() {
  ChatRequest request;
  request.model = "qwen3-8b";
  request.messages = {{"system", "Be brief."}, {"user", "What is 2+2?"}};
  request.sampling.temperature = 0.7;
  request.sampling.seed = 99;
  request.note.agent = "a1";
  request.note.sample = 0;
  request.note.seed = 1;
  return request;
}

EmbeddingRequest sample_embedding_request() {
  EmbeddingRequest request;
  request.model = "bge-m3";
  request.inputs = {"Answer: B, since 2+2=4.", "Answer: C"};
  request.note.agent = "a1";
  request.note.seed = 1;
  return request;
}

// Values whose shortest decimal forms are long: replay must give back the same bits.
EmbeddingResponse sample_embedding() {
  EmbeddingResponse response;
  response.vectors = {{0.1 + 0.2, -1.0 / 3.0, 5e-324, 1.7976931348623157e308},
                      {-0.0, 2.0 / 3.0, 1e-300, 123456.789012345678}};
  response.usage = Usage{14, 0, 0, true};
  response.latency_ms = 12.345678901234567;
  response.attempts = 2;
  response.warnings = {"usage not believed, tokens estimated: usage.prompt_tokens -3 is negative"};
  return response;
}

void expect_same(const EmbeddingResponse& a, const EmbeddingResponse& b) {
  ASSERT_EQ(a.vectors.size(), b.vectors.size());
  for (std::size_t i = 0; i < a.vectors.size(); ++i) {
    ASSERT_EQ(a.vectors[i].size(), b.vectors[i].size());
    for (std::size_t j = 0; j < a.vectors[i].size(); ++j) {
      EXPECT_EQ(std::signbit(a.vectors[i][j]), std::signbit(b.vectors[i][j])) << i << "," << j;
      EXPECT_EQ(a.vectors[i][j], b.vectors[i][j]) << i << "," << j;  // bit-exact
    }
  }
  EXPECT_EQ(a.usage.prompt_tokens, b.usage.prompt_tokens);
  EXPECT_EQ(a.usage.completion_tokens, b.usage.completion_tokens);
  EXPECT_EQ(a.usage.estimated, b.usage.estimated);
  EXPECT_EQ(a.latency_ms, b.latency_ms);
  EXPECT_EQ(a.attempts, b.attempts);
  EXPECT_EQ(a.warnings, b.warnings);
}

class CachingClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("parley-cache-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path entry_path(const ChatRequest& request) const { return entry_path(cache_key(request)); }
  fs::path entry_path(const EmbeddingRequest& request) const {
    return entry_path(embedding_cache_key(request));
  }
  fs::path entry_path(const std::string& key) const { return dir_ / key.substr(0, 2) / (key + ".json"); }
  int files() const {
    int count = 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir_)) count += entry.is_regular_file() ? 1 : 0;
    return count;
  }

  EventLoop loop_;  // the clients' loop: every call here runs on it
  fs::path dir_;
};

TEST_F(CachingClientTest, MissRecordsThenHitReplaysExactly) {
  const ChatRequest request = sample_request();
  auto first_inner = std::make_unique<CountingClient>([](const ChatRequest&) { return rich_response(); });
  CountingClient* first = first_inner.get();
  auto recorder = make_caching_client(loop_, std::move(first_inner), dir_);
  expect_same(std::get<ChatResponse>(call(loop_, *recorder, request)), rich_response());
  EXPECT_EQ(first->calls, 1);
  EXPECT_TRUE(fs::is_regular_file(entry_path(request)));

  // A fresh client over the same directory replays without asking its backend.
  auto second_inner = std::make_unique<CountingClient>([](const ChatRequest&) {
    ChatResponse other;
    other.text = "different";
    return other;
  });
  CountingClient* second = second_inner.get();
  auto replayer = make_caching_client(loop_, std::move(second_inner), dir_);
  expect_same(std::get<ChatResponse>(call(loop_, *replayer, request)), rich_response());
  expect_same(std::get<ChatResponse>(call(loop_, *replayer, request)), rich_response());
  EXPECT_EQ(second->calls, 0);

  // A different request is a miss.
  ChatRequest other = request;
  other.note.sample = 1;
  EXPECT_EQ(std::get<ChatResponse>(call(loop_, *replayer, other)).text, "different");
  EXPECT_EQ(second->calls, 1);
}

TEST_F(CachingClientTest, EntryRecordedBeforeWarningsExistedReplaysWithNone) {
  const ChatRequest request = sample_request();
  auto recorder = make_caching_client(
      loop_, std::make_unique<CountingClient>([](const ChatRequest&) { return rich_response(); }), dir_);
  call(loop_, *recorder, request);
  auto entry = nlohmann::json::parse(std::ifstream(entry_path(request)));
  ASSERT_EQ(entry["response"].erase("warnings"), 1u);
  std::ofstream(entry_path(request), std::ios::trunc) << entry.dump();

  auto inner = std::make_unique<CountingClient>([](const ChatRequest&) { return ChatResponse{}; });
  CountingClient* counter = inner.get();
  auto replayer = make_caching_client(loop_, std::move(inner), dir_);
  ChatResponse expected = rich_response();
  expected.warnings.clear();
  expect_same(std::get<ChatResponse>(call(loop_, *replayer, request)), expected);
  EXPECT_EQ(counter->calls, 0);
}

TEST_F(CachingClientTest, ReplaysResponsesWithoutLogprobsAndNonFiniteNumbers) {
  ChatResponse plain;
  plain.text = "";
  plain.usage = Usage{3, 0, 0, false};
  ChatResponse overflowing = rich_response();
  overflowing.logprobs->perplexity = std::numeric_limits<double>::infinity();
  for (const ChatResponse& recorded : {plain, overflowing}) {
    fs::remove_all(dir_);
    auto inner = std::make_unique<CountingClient>([&](const ChatRequest&) { return recorded; });
    CountingClient* counter = inner.get();
    auto client = make_caching_client(loop_, std::move(inner), dir_);
    call(loop_, *client, sample_request());
    expect_same(std::get<ChatResponse>(call(loop_, *client, sample_request())), recorded);
    EXPECT_EQ(counter->calls, 1);
  }
}

TEST_F(CachingClientTest, CorruptFileIsAMissAndIsRewritten) {
  const ChatRequest request = sample_request();
  const fs::path path = entry_path(request);
  for (const char* corrupt : {"{not json", "", R"({"format": "parley-cache-v1", "key": "x", "response": {}})"}) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::trunc) << corrupt;
    auto inner = std::make_unique<CountingClient>([](const ChatRequest&) { return rich_response(); });
    CountingClient* counter = inner.get();
    auto client = make_caching_client(loop_, std::move(inner), dir_);
    expect_same(std::get<ChatResponse>(call(loop_, *client, request)), rich_response());
    EXPECT_EQ(counter->calls, 1) << corrupt;
    expect_same(std::get<ChatResponse>(call(loop_, *client, request)), rich_response());
    EXPECT_EQ(counter->calls, 1) << "rewritten entry is a hit: " << corrupt;
  }
  // No temporary files are left behind.
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir_)) files += entry.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1);
}

TEST_F(CachingClientTest, FailuresAreNotRecorded) {
  auto inner = std::make_unique<CountingClient>([](const ChatRequest&) -> ChatResult {
    return CallError{CallErrorKind::kHttpStatus, 503, "HTTP 503", 5};
  });
  CountingClient* counter = inner.get();
  auto client = make_caching_client(loop_, std::move(inner), dir_);
  const ChatRequest request = sample_request();
  for (int i = 0; i < 2; ++i) {
    ChatResult result = call(loop_, *client, request);
    ASSERT_TRUE(std::holds_alternative<CallError>(result));
    EXPECT_EQ(std::get<CallError>(result).http_status, 503);
    EXPECT_EQ(std::get<CallError>(result).attempts, 5);
  }
  EXPECT_EQ(counter->calls, 2);
  EXPECT_FALSE(fs::exists(entry_path(request)));
}

TEST_F(CachingClientTest, UnwritableDirectoryDoesNotFailTheCall) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "blocker") << "a file where a directory should be";
  auto inner = std::make_unique<CountingClient>([](const ChatRequest&) { return rich_response(); });
  CountingClient* counter = inner.get();
  auto client = make_caching_client(loop_, std::move(inner), dir_ / "blocker" / "cache");
  for (int i = 0; i < 2; ++i)
    expect_same(std::get<ChatResponse>(call(loop_, *client, sample_request())), rich_response());
  EXPECT_EQ(counter->calls, 2);
}

TEST_F(CachingClientTest, SimulatedForwardsToInner) {
  auto simulated = make_caching_client(
      loop_, std::make_unique<CountingClient>([](const ChatRequest&) { return ChatResponse{}; }, true), dir_);
  auto real = make_caching_client(
      loop_, std::make_unique<CountingClient>([](const ChatRequest&) { return ChatResponse{}; }, false),
      dir_);
  EXPECT_TRUE(simulated->simulated());
  EXPECT_FALSE(real->simulated());
}

TEST(CacheKey, CoversEveryIdentifyingFieldAndNothingElse) {
  const ChatRequest base = sample_request();
  const std::string key = cache_key(base);
  ASSERT_EQ(key.size(), 32u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(cache_key(sample_request()), key);

  std::vector<std::function<void(ChatRequest&)>> changes = {
      [](ChatRequest& r) { r.model = "qwen3-14b"; },
      [](ChatRequest& r) { r.messages[1].content = "What is 2+3?"; },
      [](ChatRequest& r) { r.messages[0].role = "user"; },
      [](ChatRequest& r) { r.messages.push_back({"assistant", ""}); },
      [](ChatRequest& r) { r.messages.pop_back(); },
      [](ChatRequest& r) { r.sampling.temperature = 0.8; },
      [](ChatRequest& r) { r.sampling.top_p = 0.95; },
      [](ChatRequest& r) { r.sampling.max_tokens = 512; },
      [](ChatRequest& r) { r.sampling.seed = 100; },
      [](ChatRequest& r) { r.sampling.seed.reset(); },
      [](ChatRequest& r) { r.sampling.logprobs = true; },
      [](ChatRequest& r) { r.note.agent = "a2"; },
      [](ChatRequest& r) { r.note.sample = 1; },
      [](ChatRequest& r) { r.note.seed = 2; },
      // Field boundaries: moving text between two messages changes the key.
      [](ChatRequest& r) {
        r.messages[0].content = r.messages[0].content.str() + "W";
        r.messages[1].content = r.messages[1].content.str().substr(1);
      },
  };
  std::set<std::string> keys = {key};
  for (std::size_t i = 0; i < changes.size(); ++i) {
    ChatRequest changed = base;
    changes[i](changed);
    EXPECT_NE(cache_key(changed), key) << "change " << i;
    keys.insert(cache_key(changed));
  }
  EXPECT_EQ(keys.size(), changes.size() + 1);

  // Annotations that never reach the server and do not identify the request are ignored.
  ChatRequest same = base;
  same.note.round = 3;
  same.note.turn = "revise";
  same.note.protocol = "debate";
  same.note.shown.push_back(PeerView{"a2", "B", 0.5});
  EXPECT_EQ(cache_key(same), key);
}

// A recorded cache is replayed by later runs and other builds: keys are pinned values, never
// a per-process hash, a counter or anything that depends on when a request was made.
TEST(CacheKey, IsTheSameValueInEveryRun) {
  EXPECT_EQ(cache_key(sample_request()), "7225c645c57630ffb889f032e1fff90c");
  EXPECT_EQ(embedding_cache_key(sample_embedding_request()), "b110506adefe6b78269f0c7f62509cc3");
}

TEST_F(CachingClientTest, EmbeddingMissRecordsThenHitReplaysExactly) {
  const EmbeddingRequest request = sample_embedding_request();
  auto first_inner = std::make_unique<GatedClient>(/*open=*/true);
  GatedClient* first = first_inner.get();
  first->embed_reply = [](const EmbeddingRequest&) { return sample_embedding(); };
  auto recorder = make_caching_client(loop_, std::move(first_inner), dir_);
  expect_same(std::get<EmbeddingResponse>(call(loop_, *recorder, request)), sample_embedding());
  EXPECT_EQ(first->embed_calls, 1);
  EXPECT_EQ(first->chat_calls, 0);
  ASSERT_TRUE(fs::is_regular_file(entry_path(request)));
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(entry_path(request)))["response"]["vectors"].size(), 2u);

  // A fresh client over the same directory replays without asking its backend, whoever asks.
  auto second_inner = std::make_unique<GatedClient>(/*open=*/true);
  GatedClient* second = second_inner.get();
  second->embed_reply = [](const EmbeddingRequest& r) {
    EmbeddingResponse other;
    other.vectors.assign(r.inputs.size(), std::vector<double>{9.0, 9.0});
    return other;
  };
  auto replayer = make_caching_client(loop_, std::move(second_inner), dir_);
  EmbeddingRequest other_agent = request;
  other_agent.note.agent = "a2";
  other_agent.note.seed = 7;
  other_agent.note.round = 2;
  expect_same(std::get<EmbeddingResponse>(call(loop_, *replayer, other_agent)), sample_embedding());
  EXPECT_EQ(second->embed_calls, 0);

  // A different input is a miss.
  EmbeddingRequest changed = request;
  changed.inputs[1] = "Answer: D";
  EXPECT_EQ(std::get<EmbeddingResponse>(call(loop_, *replayer, changed)).vectors[1],
            (std::vector<double>{9.0, 9.0}));
  EXPECT_EQ(second->embed_calls, 1);
  EXPECT_EQ(files(), 2);
}

TEST_F(CachingClientTest, CorruptOrForeignEmbeddingEntryIsAMiss) {
  const EmbeddingRequest request = sample_embedding_request();
  const std::string key = embedding_cache_key(request);
  const auto entry_with_vectors = [&key](const std::string& vectors) {
    return R"({"format": "parley-cache-v1", "key": ")" + key + R"(", "response": {"vectors": )" + vectors +
           R"(, "usage": {"prompt_tokens": 1, "completion_tokens": 0, "cached_tokens": 0, "estimated": false},
               "latency_ms": 1.0, "attempts": 1}})";
  };
  const std::string one_vector_for_two_inputs = entry_with_vectors("[[1.0]]");
  const std::string ragged = entry_with_vectors("[[1.0], [2.0, 3.0]]");
  const std::string not_numbers = entry_with_vectors(R"([[1.0], ["x"]])");
  // A chat entry recorded under this name is another request's.
  const std::string chat_entry = R"({"format": "parley-cache-v1", "key": ")" + cache_key(sample_request()) +
                                 R"(", "response": {"text": "x"}})";
  for (const std::string& corrupt :
       {std::string("{not json"), one_vector_for_two_inputs, ragged, not_numbers, chat_entry}) {
    fs::create_directories(entry_path(request).parent_path());
    std::ofstream(entry_path(request), std::ios::trunc) << corrupt;
    auto inner = std::make_unique<GatedClient>(/*open=*/true);
    GatedClient* counter = inner.get();
    counter->embed_reply = [](const EmbeddingRequest&) { return sample_embedding(); };
    auto client = make_caching_client(loop_, std::move(inner), dir_);
    expect_same(std::get<EmbeddingResponse>(call(loop_, *client, request)), sample_embedding());
    expect_same(std::get<EmbeddingResponse>(call(loop_, *client, request)), sample_embedding());
    EXPECT_EQ(counter->embed_calls, 1) << "a miss, then the rewritten entry is a hit: " << corrupt;
  }
}

TEST_F(CachingClientTest, ConcurrentIdenticalChatsShareOneInnerCall) {
  auto inner = std::make_unique<GatedClient>();
  GatedClient* gated = inner.get();
  int samples = 0;
  gated->chat_reply = [&samples](const ChatRequest&) {
    ChatResponse response = rich_response();
    response.text = "sample " + std::to_string(++samples);  // a second call would differ
    return response;
  };
  auto client = make_caching_client(loop_, std::move(inner), dir_);
  const ChatRequest request = sample_request();
  std::function<Async<ChatResult>(std::size_t)> start = [&](std::size_t) { return client->chat(request); };
  Overlapped<ChatResult> run = overlap(loop_, *gated, 3, start);
  EXPECT_EQ(run.held, 1u);
  EXPECT_EQ(gated->chat_calls, 1);
  ASSERT_EQ(run.results.size(), 3u);
  for (const ChatResult& result : run.results) {
    EXPECT_EQ(std::get<ChatResponse>(result).text, "sample 1");
    expect_same(std::get<ChatResponse>(result), std::get<ChatResponse>(run.results[0]));
  }
  EXPECT_TRUE(fs::is_regular_file(entry_path(request)));
  EXPECT_EQ(files(), 1);

  // Once it has finished, the next identical request is a replay, not a join.
  EXPECT_EQ(std::get<ChatResponse>(call(loop_, *client, request)).text, "sample 1");
  EXPECT_EQ(gated->chat_calls, 1);
}

TEST_F(CachingClientTest, ConcurrentDifferentChatsAreNotCoalesced) {
  auto inner = std::make_unique<GatedClient>();
  GatedClient* gated = inner.get();
  gated->chat_reply = [](const ChatRequest& r) {
    ChatResponse response;
    response.text = "sample index " + std::to_string(r.note.sample);
    return response;
  };
  auto client = make_caching_client(loop_, std::move(inner), dir_);
  std::vector<ChatRequest> requests = {sample_request(), sample_request()};
  requests[1].note.sample = 1;  // same prompt, another sample: another call
  std::function<Async<ChatResult>(std::size_t)> start = [&](std::size_t i) {
    return client->chat(requests[i]);
  };
  Overlapped<ChatResult> run = overlap(loop_, *gated, 2, start);
  EXPECT_EQ(run.held, 2u);
  EXPECT_EQ(gated->chat_calls, 2);
  EXPECT_EQ(std::get<ChatResponse>(run.results[0]).text, "sample index 0");
  EXPECT_EQ(std::get<ChatResponse>(run.results[1]).text, "sample index 1");
  EXPECT_EQ(files(), 2);
}

TEST_F(CachingClientTest, FailedInFlightCallReachesEveryWaiterAndIsNotRecorded) {
  auto inner = std::make_unique<GatedClient>();
  GatedClient* gated = inner.get();
  gated->chat_reply = [](const ChatRequest&) -> ChatResult {
    return CallError{CallErrorKind::kHttpStatus, 503, "HTTP 503", 5};
  };
  auto client = make_caching_client(loop_, std::move(inner), dir_);
  const ChatRequest request = sample_request();
  std::function<Async<ChatResult>(std::size_t)> start = [&](std::size_t) { return client->chat(request); };
  Overlapped<ChatResult> run = overlap(loop_, *gated, 2, start);
  EXPECT_EQ(run.held, 1u);
  EXPECT_EQ(gated->chat_calls, 1);
  for (const ChatResult& result : run.results) {
    ASSERT_TRUE(std::holds_alternative<CallError>(result));
    EXPECT_EQ(std::get<CallError>(result).http_status, 503);
    EXPECT_EQ(std::get<CallError>(result).attempts, 5);
  }
  EXPECT_FALSE(fs::exists(entry_path(request)));

  // Nothing was left in flight: asking again is a new inner call.
  gated->chat_reply = [](const ChatRequest&) -> ChatResult { return rich_response(); };
  expect_same(std::get<ChatResponse>(call(loop_, *client, request)), rich_response());
  EXPECT_EQ(gated->chat_calls, 2);
}

TEST_F(CachingClientTest, WaiterAskingAgainAfterASharedFailureStartsANewCall) {
  auto inner = std::make_unique<GatedClient>();
  GatedClient* gated = inner.get();
  gated->chat_reply = [gated](const ChatRequest&) -> ChatResult {
    if (gated->chat_calls == 1) return CallError{CallErrorKind::kTimeout, 0, "timed out", 1};
    return rich_response();
  };
  auto client = make_caching_client(loop_, std::move(inner), dir_);
  const ChatRequest request = sample_request();
  std::optional<ChatResult> waiters_first;
  // The second caller is resumed with the failure while the first is still finishing its call,
  // and asks again at once.
  std::function<Async<ChatResult>(std::size_t)> start = [&](std::size_t i) -> Async<ChatResult> {
    ChatResult result = co_await client->chat(request);
    if (i == 0) co_return result;
    waiters_first = std::move(result);
    co_return co_await client->chat(request);
  };
  Overlapped<ChatResult> run = overlap(loop_, *gated, 2, start);
  EXPECT_EQ(run.held, 1u);
  EXPECT_EQ(gated->chat_calls, 2);
  EXPECT_EQ(std::get<CallError>(run.results[0]).kind, CallErrorKind::kTimeout);
  ASSERT_TRUE(waiters_first.has_value());
  EXPECT_EQ(std::get<CallError>(*waiters_first).kind, CallErrorKind::kTimeout);
  expect_same(std::get<ChatResponse>(run.results[1]), rich_response());
  EXPECT_TRUE(fs::is_regular_file(entry_path(request)));
}

TEST_F(CachingClientTest, ConcurrentEmbeddingsCoalesceOnModelAndInputsOnly) {
  auto inner = std::make_unique<GatedClient>();
  GatedClient* gated = inner.get();
  int samples = 0;
  gated->embed_reply = [&samples](const EmbeddingRequest& r) {
    EmbeddingResponse response = sample_embedding();
    response.vectors.assign(r.inputs.size(), std::vector<double>{0.5, static_cast<double>(++samples)});
    return response;
  };
  auto client = make_caching_client(loop_, std::move(inner), dir_);
  std::vector<EmbeddingRequest> requests(3, sample_embedding_request());
  requests[1].note.agent = "a2";  // not part of what is embedded: joins the first call
  requests[2].inputs.pop_back();  // other texts: a call of its own
  std::function<Async<EmbeddingResult>(std::size_t)> start = [&](std::size_t i) {
    return client->embed(requests[i]);
  };
  Overlapped<EmbeddingResult> run = overlap(loop_, *gated, 3, start);
  EXPECT_EQ(run.held, 2u);
  EXPECT_EQ(gated->embed_calls, 2);
  expect_same(std::get<EmbeddingResponse>(run.results[1]), std::get<EmbeddingResponse>(run.results[0]));
  EXPECT_EQ(std::get<EmbeddingResponse>(run.results[0]).vectors,
            (std::vector<std::vector<double>>{{0.5, 1.0}, {0.5, 1.0}}));
  EXPECT_EQ(std::get<EmbeddingResponse>(run.results[2]).vectors,
            (std::vector<std::vector<double>>{{0.5, 2.0}}));
  EXPECT_EQ(files(), 2);
}

TEST_F(CachingClientTest, EmbedOfAChatOnlyBackendIsUnsupportedAndNotRecorded) {
  ChatOnlyClient chat_only;
  const EmbeddingResult direct = call(loop_, chat_only, sample_embedding_request());
  ASSERT_TRUE(std::holds_alternative<CallError>(direct));
  EXPECT_EQ(std::get<CallError>(direct).kind, CallErrorKind::kUnsupported);
  EXPECT_EQ(std::get<CallError>(direct).attempts, 1);

  auto client = make_caching_client(loop_, std::make_unique<ChatOnlyClient>(), dir_);
  const EmbeddingResult cached = call(loop_, *client, sample_embedding_request());
  ASSERT_TRUE(std::holds_alternative<CallError>(cached));
  EXPECT_EQ(std::get<CallError>(cached).kind, CallErrorKind::kUnsupported);
  EXPECT_FALSE(fs::exists(dir_));
}

TEST(EmbeddingCacheKey, CoversModelAndEveryInputAndNothingElse) {
  const EmbeddingRequest base = sample_embedding_request();
  const std::string key = embedding_cache_key(base);
  ASSERT_EQ(key.size(), 32u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(embedding_cache_key(sample_embedding_request()), key);

  std::vector<std::function<void(EmbeddingRequest&)>> changes = {
      [](EmbeddingRequest& r) { r.model = "text-embedding-3-small"; },
      [](EmbeddingRequest& r) { r.inputs[1] = "Answer: D"; },
      [](EmbeddingRequest& r) { r.inputs.push_back(""); },
      [](EmbeddingRequest& r) { r.inputs.pop_back(); },
      [](EmbeddingRequest& r) { std::swap(r.inputs[0], r.inputs[1]); },
      [](EmbeddingRequest& r) { r.inputs = {r.inputs[0] + r.inputs[1]}; },
      // Field boundaries: moving text between two inputs changes the key.
      [](EmbeddingRequest& r) {
        r.inputs[0] += "A";
        r.inputs[1].erase(0, 1);
      },
  };
  std::set<std::string> keys = {key};
  for (std::size_t i = 0; i < changes.size(); ++i) {
    EmbeddingRequest changed = base;
    changes[i](changed);
    EXPECT_NE(embedding_cache_key(changed), key) << "change " << i;
    keys.insert(embedding_cache_key(changed));
  }
  EXPECT_EQ(keys.size(), changes.size() + 1);

  // Who asks, and when, does not change what a text embeds to.
  EmbeddingRequest same = base;
  same.note.agent = "a9";
  same.note.seed = 42;
  same.note.sample = 3;
  same.note.round = 2;
  same.note.protocol = "s2_mad";
  EXPECT_EQ(embedding_cache_key(same), key);

  // Never the key of a chat request, even one whose single message is the same text.
  ChatRequest chat;
  chat.model = base.model;
  chat.messages = {{"user", base.inputs[0]}};
  EXPECT_NE(cache_key(chat), embedding_cache_key(EmbeddingRequest{base.model, {base.inputs[0]}, {}}));
}

// ---- chat_n: samples recorded and replayed one by one, sent in runs ------------------------

std::vector<ChatResult> call_n(EventLoop& loop, LlmClient& client, const ChatRequest& request, int n) {
  std::vector<ChatResult> results;
  auto task = [&]() -> Async<void> { results = co_await client.chat_n(request, n); };
  loop.spawn(task());
  loop.run();
  return results;
}

ChatResult text_of_sample(const ChatRequest& request) {
  ChatResponse response;
  response.text = "sample index " + std::to_string(request.note.sample);
  response.usage = Usage{request.note.sample == 0 ? 30 : 0, 7, 0, false};
  return response;
}

std::vector<std::string> texts(const std::vector<ChatResult>& results) {
  std::vector<std::string> out;
  for (const ChatResult& result : results) {
    out.push_back(std::holds_alternative<ChatResponse>(result)
                      ? std::get<ChatResponse>(result).text
                      : "error: " + std::get<CallError>(result).message);
  }
  return out;
}

TEST_F(CachingClientTest, ChatNRecordsEachSampleUnderItsOwnKeyAndReplaysThem) {
  auto inner = std::make_unique<GatedClient>(/*open=*/true);
  GatedClient* gated = inner.get();
  gated->chat_reply = text_of_sample;
  auto client = make_caching_client(loop_, std::move(inner), dir_);
  const std::vector<std::string> expected = {"sample index 0", "sample index 1", "sample index 2"};
  EXPECT_EQ(texts(call_n(loop_, *client, sample_request(), 3)), expected);
  EXPECT_EQ(gated->batches, (std::vector<std::pair<int, int>>{{0, 3}}));
  EXPECT_EQ(files(), 3);

  // Replayed, the batch's billing included (the prompt on the first sample only) ...
  const std::vector<ChatResult> replayed = call_n(loop_, *client, sample_request(), 3);
  EXPECT_EQ(texts(replayed), expected);
  EXPECT_EQ(std::get<ChatResponse>(replayed[0]).usage.prompt_tokens, 30);
  EXPECT_EQ(std::get<ChatResponse>(replayed[2]).usage.prompt_tokens, 0);
  // ... and so is each sample asked alone: a batched recording replays unbatched.
  ChatRequest second = sample_request();
  second.note.sample = 1;
  EXPECT_EQ(std::get<ChatResponse>(call(loop_, *client, second)).text, "sample index 1");
  EXPECT_EQ(gated->batches.size(), 1u);
  EXPECT_EQ(gated->chat_calls, 0);
}

TEST_F(CachingClientTest, ChatNSendsOnlyTheRunsOfSamplesNotRecorded) {
  auto inner = std::make_unique<GatedClient>(/*open=*/true);
  GatedClient* gated = inner.get();
  gated->chat_reply = text_of_sample;
  auto client = make_caching_client(loop_, std::move(inner), dir_);
  ChatRequest second = sample_request();
  second.note.sample = 1;
  ASSERT_TRUE(std::holds_alternative<ChatResponse>(call(loop_, *client, second)));
  EXPECT_EQ(gated->chat_calls, 1);

  EXPECT_EQ(
      texts(call_n(loop_, *client, sample_request(), 4)),
      (std::vector<std::string>{"sample index 0", "sample index 1", "sample index 2", "sample index 3"}));
  EXPECT_EQ(gated->batches, (std::vector<std::pair<int, int>>{{0, 1}, {2, 2}}));
  EXPECT_EQ(files(), 4);
}

TEST_F(CachingClientTest, ChatNJoinsASampleInFlightAndSharesItsOwn) {
  auto inner = std::make_unique<GatedClient>();
  GatedClient* gated = inner.get();
  int replies = 0;
  gated->chat_reply = [&replies](const ChatRequest& r) -> ChatResult {
    ChatResponse response;
    response.text = "sample " + std::to_string(r.note.sample) + ", reply " + std::to_string(++replies);
    return response;
  };
  auto client = make_caching_client(loop_, std::move(inner), dir_);
  ChatRequest second = sample_request();
  second.note.sample = 1;
  ChatRequest third = sample_request();
  third.note.sample = 2;
  std::vector<std::vector<ChatResult>> batch(1);
  // Caller 0 asks sample 1 alone, caller 1 samples 0..2 together, caller 2 sample 2 alone.
  std::function<Async<ChatResult>(std::size_t)> start = [&](std::size_t i) -> Async<ChatResult> {
    if (i == 0) co_return co_await client->chat(second);
    if (i == 2) co_return co_await client->chat(third);
    batch[0] = co_await client->chat_n(sample_request(), 3);
    co_return batch[0][0];
  };
  Overlapped<ChatResult> run = overlap(loop_, *gated, 3, start);
  EXPECT_EQ(gated->chat_calls, 1);
  EXPECT_EQ(gated->batches, (std::vector<std::pair<int, int>>{{0, 1}, {2, 1}}));
  ASSERT_EQ(batch[0].size(), 3u);
  EXPECT_EQ(std::get<ChatResponse>(batch[0][1]).text, std::get<ChatResponse>(run.results[0]).text);
  EXPECT_EQ(std::get<ChatResponse>(batch[0][2]).text, std::get<ChatResponse>(run.results[2]).text);
  EXPECT_EQ(std::get<ChatResponse>(batch[0][0]).text.rfind("sample 0, reply ", 0), 0u);
  EXPECT_EQ(replies, 3);
  EXPECT_EQ(files(), 3);
}

TEST_F(CachingClientTest, ChatNFailuresReachTheirSamplesWaitersAndAreNotRecorded) {
  auto inner = std::make_unique<GatedClient>();
  GatedClient* gated = inner.get();
  gated->chat_reply = [](const ChatRequest& r) -> ChatResult {
    if (r.note.sample == 1) return CallError{CallErrorKind::kHttpStatus, 503, "HTTP 503", 5};
    return text_of_sample(r);
  };
  auto client = make_caching_client(loop_, std::move(inner), dir_);
  ChatRequest second = sample_request();
  second.note.sample = 1;
  std::vector<std::vector<ChatResult>> batch(1);
  std::function<Async<ChatResult>(std::size_t)> start = [&](std::size_t i) -> Async<ChatResult> {
    if (i == 1) co_return co_await client->chat(second);
    batch[0] = co_await client->chat_n(sample_request(), 2);
    co_return batch[0][0];
  };
  Overlapped<ChatResult> run = overlap(loop_, *gated, 2, start);
  EXPECT_EQ(gated->chat_calls, 0);
  EXPECT_EQ(texts(batch[0]), (std::vector<std::string>{"sample index 0", "error: HTTP 503"}));
  ASSERT_TRUE(std::holds_alternative<CallError>(run.results[1]));
  EXPECT_EQ(std::get<CallError>(run.results[1]).attempts, 5);
  EXPECT_EQ(files(), 1);
  EXPECT_FALSE(fs::exists(entry_path(second)));
}

// ---- Cancellation: each caller's own signal, never another's --------------------------------

// Holds every call until release(); a call whose request's signal fires first ends at once with
// kCancelled, as a real client's does (the backend sees it go). Replies are numbered in the
// order calls were made.
class HeldClient final : public LlmClient {
 public:
  explicit HeldClient(EventLoop& loop) : loop_(loop) {}
  Async<ChatResult> chat(ChatRequest request) override {
    const int call = ++calls;
    if (!co_await released_.wait(loop_, request.cancel))
      co_return CallError{CallErrorKind::kCancelled, 0, "inner cancelled", 1};
    ChatResponse response;
    response.text = "sample " + std::to_string(request.note.sample) + ", call " + std::to_string(call);
    co_return response;
  }
  Async<EmbeddingResult> embed(EmbeddingRequest request) override {
    const int call = ++calls;
    if (!co_await released_.wait(loop_, request.cancel))
      co_return CallError{CallErrorKind::kCancelled, 0, "inner cancelled", 1};
    EmbeddingResponse response;
    response.vectors.assign(request.inputs.size(), std::vector<double>{static_cast<double>(call)});
    co_return response;
  }
  bool simulated() const override { return false; }
  void release() { released_.notify_all(); }
  std::size_t held() const { return released_.size(); }
  int calls = 0;

 private:
  EventLoop& loop_;
  WaitList released_;
};

std::string text_of(const ChatResult& result) {
  if (const auto* error = std::get_if<CallError>(&result))
    return std::string("error ") + call_error_kind_name(error->kind) + ": " + error->message;
  return std::get<ChatResponse>(result).text;
}

class CachingClientCancelTest : public CachingClientTest {
 protected:
  void SetUp() override {
    CachingClientTest::SetUp();  // dir_ first
    auto inner = std::make_unique<HeldClient>(loop_);
    held_ = inner.get();
    client_ = make_caching_client(loop_, std::move(inner), dir_);
  }
  // Runs `callers` concurrently with `driver`, which acts once all of them are waiting.
  void run(const std::vector<std::function<Async<void>()>>& callers,
           const std::function<Async<void>()>& driver) {
    for (const auto& caller : callers) loop_.spawn(caller());
    loop_.spawn(driver());
    loop_.run();
  }
  // Lets every caller started so far run on to its next wait.
  Async<void> settle() {
    for (int i = 0; i < 4; ++i) co_await loop_.yield();
  }

  HeldClient* held_ = nullptr;
  std::unique_ptr<LlmClient> client_;
};

// A waiter whose own signal fires stops waiting at once; the shared call goes on for the caller
// that made it, and is recorded.
TEST_F(CachingClientCancelTest, AWaiterWhoseSignalFiresLeavesAndTheSharedCallGoesOn) {
  CancelSignal waiter_gone;
  ChatRequest waiter = sample_request();
  waiter.cancel = &waiter_gone;
  std::optional<ChatResult> first_result, waiter_result;
  auto first = [&]() -> Async<void> { first_result = co_await client_->chat(sample_request()); };
  auto second = [&]() -> Async<void> { waiter_result = co_await client_->chat(waiter); };
  auto driver = [&]() -> Async<void> {
    co_await settle();
    EXPECT_EQ(held_->calls, 1);  // one shared call
    waiter_gone.fire("client went away");
    co_await settle();
    EXPECT_TRUE(waiter_result.has_value());
    if (waiter_result) {
      EXPECT_EQ(text_of(*waiter_result), "error cancelled: client went away");
      EXPECT_EQ(std::get<CallError>(*waiter_result).attempts, 0);
    }
    EXPECT_FALSE(first_result.has_value());
    EXPECT_EQ(waiter_gone.subscribers(), 0u);
    held_->release();
  };
  run({first, second}, driver);
  EXPECT_EQ(text_of(*first_result), "sample 0, call 1");
  EXPECT_EQ(held_->calls, 1);
  EXPECT_TRUE(fs::exists(entry_path(sample_request())));
}

// The shared call carries the first caller's signal; when that fires, the call ends for the first
// caller, and a waiter whose own signal has not fired asks again instead of inheriting the
// cancellation. Its reply is recorded.
TEST_F(CachingClientCancelTest, TheFirstCallersCancellationIsNotInheritedTheWaiterAsksAgain) {
  CancelSignal first_gone;
  ChatRequest first_request = sample_request();
  first_request.cancel = &first_gone;
  std::optional<ChatResult> first_result, waiter_result;
  auto first = [&]() -> Async<void> { first_result = co_await client_->chat(first_request); };
  auto second = [&]() -> Async<void> { waiter_result = co_await client_->chat(sample_request()); };
  auto driver = [&]() -> Async<void> {
    co_await settle();
    EXPECT_EQ(held_->calls, 1);
    first_gone.fire();
    co_await settle();
    EXPECT_TRUE(first_result.has_value());
    if (first_result) {
      EXPECT_EQ(text_of(*first_result), "error cancelled: inner cancelled");
    }
    EXPECT_FALSE(waiter_result.has_value());
    EXPECT_EQ(held_->calls, 2);  // asked again, for the waiter
    held_->release();
  };
  run({first, second}, driver);
  EXPECT_EQ(text_of(*waiter_result), "sample 0, call 2");
  EXPECT_EQ(held_->calls, 2);
  EXPECT_TRUE(fs::exists(entry_path(sample_request())));
}

TEST_F(CachingClientCancelTest, WhenEveryCallerIsCancelledTheCallIsMadeOnceAndNothingRecorded) {
  CancelSignal first_gone, waiter_gone;
  ChatRequest first_request = sample_request();
  first_request.cancel = &first_gone;
  ChatRequest waiter = sample_request();
  waiter.cancel = &waiter_gone;
  std::optional<ChatResult> first_result, waiter_result;
  auto first = [&]() -> Async<void> { first_result = co_await client_->chat(first_request); };
  auto second = [&]() -> Async<void> { waiter_result = co_await client_->chat(waiter); };
  auto driver = [&]() -> Async<void> {
    co_await settle();
    waiter_gone.fire();
    first_gone.fire();
  };
  run({first, second}, driver);
  EXPECT_EQ(std::get<CallError>(*first_result).kind, CallErrorKind::kCancelled);
  EXPECT_EQ(text_of(*waiter_result), "error cancelled: cancelled");
  EXPECT_EQ(held_->calls, 1);
  EXPECT_EQ(held_->held(), 0u);
  EXPECT_FALSE(fs::exists(entry_path(sample_request())));
}

// A request whose signal fired before the call is answered kCancelled at once, even when its
// reply is recorded: nothing is asked, nothing read.
TEST_F(CachingClientCancelTest, AnAlreadyFiredSignalIsAnsweredCancelledEvenWhenRecorded) {
  std::optional<ChatResult> recorded;
  auto record = [&]() -> Async<void> { recorded = co_await client_->chat(sample_request()); };
  auto release = [&]() -> Async<void> {
    co_await settle();
    held_->release();
  };
  run({record}, release);
  ASSERT_EQ(text_of(*recorded), "sample 0, call 1");
  CancelSignal fired;
  fired.fire("deadline");
  ChatRequest late = sample_request();
  late.cancel = &fired;
  EXPECT_EQ(text_of(call(loop_, *client_, late)), "error cancelled: deadline");
  EmbeddingRequest embedding = sample_embedding_request();
  embedding.cancel = &fired;
  EXPECT_EQ(std::get<CallError>(call(loop_, *client_, embedding)).kind, CallErrorKind::kCancelled);
  std::vector<ChatResult> batch;
  auto batched = [&]() -> Async<void> { batch = co_await client_->chat_n(late, 2); };
  loop_.spawn(batched());
  loop_.run();
  ASSERT_EQ(batch.size(), 2u);
  for (const ChatResult& result : batch) EXPECT_EQ(text_of(result), "error cancelled: deadline");
  EXPECT_EQ(held_->calls, 1);
}

// chat_n: a sample it joined whose call the first caller's signal ended is asked again (once
// its own calls are done: it reads what it joined after them); when its own signal fires, the
// samples it asked itself end in the inner client, and the one it joined without waiting.
TEST_F(CachingClientCancelTest, ChatNAsksAJoinedSampleAgainButLeavesOnItsOwnSignal) {
  CancelSignal first_gone;
  ChatRequest single = sample_request();
  single.note.sample = 1;
  single.cancel = &first_gone;
  std::optional<ChatResult> single_result;
  std::vector<ChatResult> batch;
  auto first = [&]() -> Async<void> { single_result = co_await client_->chat(single); };
  auto batched = [&]() -> Async<void> { batch = co_await client_->chat_n(sample_request(), 3); };
  auto driver = [&]() -> Async<void> {
    co_await settle();
    EXPECT_EQ(held_->calls, 3);  // sample 1 alone; samples 0 and 2 for the batch
    first_gone.fire();
    co_await settle();
    held_->release();  // the batch's own calls: it then reads the sample it joined
    co_await settle();
    EXPECT_EQ(held_->calls, 4);  // sample 1 again, for the batch
    held_->release();
  };
  run({first, batched}, driver);
  EXPECT_EQ(std::get<CallError>(*single_result).kind, CallErrorKind::kCancelled);
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(text_of(batch[0]), "sample 0, call 2");
  EXPECT_EQ(text_of(batch[1]), "sample 1, call 4");
  EXPECT_EQ(text_of(batch[2]), "sample 2, call 3");

  // Now the batch is the one that goes: its own calls and the one it joined all end.
  fs::remove_all(dir_);
  CancelSignal batch_gone;
  ChatRequest leaving = sample_request();
  leaving.cancel = &batch_gone;
  single.cancel = nullptr;
  single_result.reset();
  batch.clear();
  held_->calls = 0;
  auto staying = [&]() -> Async<void> { single_result = co_await client_->chat(single); };
  auto going = [&]() -> Async<void> { batch = co_await client_->chat_n(leaving, 3); };
  auto second_driver = [&]() -> Async<void> {
    co_await settle();
    batch_gone.fire("gone");
    co_await settle();
    EXPECT_EQ(batch.size(), 3u);
    EXPECT_FALSE(single_result.has_value());
    held_->release();
  };
  run({staying, going}, second_driver);
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(text_of(batch[0]), "error cancelled: inner cancelled");
  EXPECT_EQ(text_of(batch[1]), "error cancelled: gone");
  EXPECT_EQ(text_of(batch[2]), "error cancelled: inner cancelled");
  EXPECT_EQ(text_of(*single_result), "sample 1, call 1");
  EXPECT_EQ(held_->calls, 3);
}

TEST_F(CachingClientCancelTest, AnEmbeddingWaiterAsksAgainWhenTheFirstCallersSignalEndsTheCall) {
  CancelSignal first_gone, waiter_gone;
  EmbeddingRequest first_request = sample_embedding_request();
  first_request.cancel = &first_gone;
  EmbeddingRequest leaver = sample_embedding_request();
  leaver.cancel = &waiter_gone;
  std::optional<EmbeddingResult> first_result, waiter_result, leaver_result;
  auto first = [&]() -> Async<void> { first_result = co_await client_->embed(first_request); };
  auto second = [&]() -> Async<void> { waiter_result = co_await client_->embed(sample_embedding_request()); };
  auto third = [&]() -> Async<void> { leaver_result = co_await client_->embed(leaver); };
  auto driver = [&]() -> Async<void> {
    co_await settle();
    EXPECT_EQ(held_->calls, 1);
    waiter_gone.fire();
    first_gone.fire();
    co_await settle();
    EXPECT_EQ(held_->calls, 2);
    held_->release();
  };
  run({first, second, third}, driver);
  EXPECT_EQ(std::get<CallError>(*first_result).kind, CallErrorKind::kCancelled);
  EXPECT_EQ(std::get<CallError>(*leaver_result).kind, CallErrorKind::kCancelled);
  ASSERT_TRUE(std::holds_alternative<EmbeddingResponse>(*waiter_result));
  EXPECT_EQ(std::get<EmbeddingResponse>(*waiter_result).vectors[0][0], 2.0);
  EXPECT_TRUE(fs::exists(entry_path(sample_embedding_request())));
}

}  // namespace
}  // namespace parley
