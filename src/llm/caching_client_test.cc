#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <variant>

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

ChatResult call(LlmClient& client, const ChatRequest& request) {
  EventLoop loop;
  std::optional<ChatResult> result;
  auto task = [&]() -> Async<void> { result = co_await client.chat(request); };
  loop.spawn(task());
  loop.run();
  return std::move(*result);
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

class CachingClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("parley-cache-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path entry_path(const ChatRequest& request) const {
    const std::string key = cache_key(request);
    return dir_ / key.substr(0, 2) / (key + ".json");
  }

  fs::path dir_;
};

TEST_F(CachingClientTest, MissRecordsThenHitReplaysExactly) {
  const ChatRequest request = sample_request();
  auto first_inner = std::make_unique<CountingClient>([](const ChatRequest&) { return rich_response(); });
  CountingClient* first = first_inner.get();
  auto recorder = make_caching_client(std::move(first_inner), dir_);
  expect_same(std::get<ChatResponse>(call(*recorder, request)), rich_response());
  EXPECT_EQ(first->calls, 1);
  EXPECT_TRUE(fs::is_regular_file(entry_path(request)));

  // A fresh client over the same directory replays without asking its backend.
  auto second_inner = std::make_unique<CountingClient>([](const ChatRequest&) {
    ChatResponse other;
    other.text = "different";
    return other;
  });
  CountingClient* second = second_inner.get();
  auto replayer = make_caching_client(std::move(second_inner), dir_);
  expect_same(std::get<ChatResponse>(call(*replayer, request)), rich_response());
  expect_same(std::get<ChatResponse>(call(*replayer, request)), rich_response());
  EXPECT_EQ(second->calls, 0);

  // A different request is a miss.
  ChatRequest other = request;
  other.note.sample = 1;
  EXPECT_EQ(std::get<ChatResponse>(call(*replayer, other)).text, "different");
  EXPECT_EQ(second->calls, 1);
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
    auto client = make_caching_client(std::move(inner), dir_);
    call(*client, sample_request());
    expect_same(std::get<ChatResponse>(call(*client, sample_request())), recorded);
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
    auto client = make_caching_client(std::move(inner), dir_);
    expect_same(std::get<ChatResponse>(call(*client, request)), rich_response());
    EXPECT_EQ(counter->calls, 1) << corrupt;
    expect_same(std::get<ChatResponse>(call(*client, request)), rich_response());
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
  auto client = make_caching_client(std::move(inner), dir_);
  const ChatRequest request = sample_request();
  for (int i = 0; i < 2; ++i) {
    ChatResult result = call(*client, request);
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
  auto client = make_caching_client(std::move(inner), dir_ / "blocker" / "cache");
  for (int i = 0; i < 2; ++i) expect_same(std::get<ChatResponse>(call(*client, sample_request())), rich_response());
  EXPECT_EQ(counter->calls, 2);
}

TEST_F(CachingClientTest, SimulatedForwardsToInner) {
  auto simulated = make_caching_client(
      std::make_unique<CountingClient>([](const ChatRequest&) { return ChatResponse{}; }, true), dir_);
  auto real = make_caching_client(
      std::make_unique<CountingClient>([](const ChatRequest&) { return ChatResponse{}; }, false), dir_);
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
        r.messages[0].content += "W";
        r.messages[1].content.erase(0, 1);
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

}  // namespace
}  // namespace parley
