#pragma once
// What openai_client_test and openai_batching_test share: the OpenAI client against
// FakeOpenAiServer on loopback, over libcurl's transport and the routing one a run uses (which
// serves http://127.0.0.1 URLs natively and sends a URL with credentials to libcurl).

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "parley/llm_client.h"
#include "support/fake_openai_server.h"

namespace parley::openai_test {

using namespace parley::testing;
using Clock = std::chrono::steady_clock;

// Requests the handler saw, recorded from the server thread.
class Recorder {
 public:
  void add(const FakeRequest& request) {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
    arrivals_.push_back(Clock::now());
  }
  std::vector<FakeRequest> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  std::vector<Clock::time_point> arrivals() const {
    std::lock_guard lock(mutex_);
    return arrivals_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<FakeRequest> requests_;
  std::vector<Clock::time_point> arrivals_;
};

// Replies by arrival order: replies[i] for request i, the last one for all later requests.
inline Handler scripted(std::shared_ptr<Recorder> recorder, std::vector<FakeResponse> replies) {
  return [recorder, replies](const FakeRequest& request) {
    recorder->add(request);
    return replies[std::min<std::size_t>(request.index, replies.size() - 1)];
  };
}

inline CompletionSpec answer_spec(std::string content = "Answer: B") {
  CompletionSpec spec;
  spec.content = std::move(content);
  return spec;
}

template <class Server>
inline EndpointOptions options_for(const Server& server) {
  EndpointOptions options;
  options.base_url = server.base_url();
  options.model = "fake-model";
  options.max_concurrency = 8;
  options.timeout_s = 10.0;
  options.connect_timeout_s = 5.0;
  options.retry.max_retries = 3;
  options.retry.base_delay_s = 0.01;  // keeps the suite fast
  options.retry.max_delay_s = 1.0;
  return options;
}

inline ChatRequest question(const std::string& text = "What is 2+2?") {
  ChatRequest request;
  request.model = "fake-model";
  request.messages = {{"system", "Answer briefly."}, {"user", text}};
  request.sampling.temperature = 0.2;
  request.sampling.max_tokens = 64;
  return request;
}

enum class TransportKind { kCurl, kRouted };

// One event loop with an HTTP transport as its I/O driver.
class Harness {
 public:
  explicit Harness(TransportKind kind)
      : transport_(kind == TransportKind::kCurl ? make_curl_transport(loop_) : make_http_transport(loop_)) {
    loop_.add_io(transport_.get());
  }
  ~Harness() { loop_.remove_io(transport_.get()); }
  EventLoop& loop() { return loop_; }

  // A client whose API key is `key`, set in an environment variable only while the client is
  // made (the key is read once, at construction).
  std::unique_ptr<LlmClient> client_with_key(EndpointOptions options, const std::string& key) {
    static constexpr const char* kVariable = "PARLEY_OPENAI_CLIENT_TEST_KEY";
    ::setenv(kVariable, key.c_str(), 1);
    options.api_key_env = kVariable;
    try {
      auto made = client(std::move(options));
      ::unsetenv(kVariable);
      return made;
    } catch (...) {
      ::unsetenv(kVariable);
      throw;
    }
  }
  std::unique_ptr<LlmClient> client(EndpointOptions options) {
    return make_openai_client(loop_, *transport_, std::move(options));
  }

  std::vector<ChatResult> run(LlmClient& client, const std::vector<ChatRequest>& requests) {
    std::vector<std::optional<ChatResult>> results(requests.size());
    auto one = [&](std::size_t i) -> Async<void> { results[i] = co_await client.chat(requests[i]); };
    for (std::size_t i = 0; i < requests.size(); ++i) loop_.spawn(one(i));
    loop_.run();
    std::vector<ChatResult> out;
    for (auto& result : results) out.push_back(std::move(*result));
    EXPECT_EQ(transport_->in_flight(), 0u);
    return out;
  }
  ChatResult run_one(LlmClient& client, const ChatRequest& request) { return run(client, {request})[0]; }

  EmbeddingResult embed_one(LlmClient& client, const EmbeddingRequest& request) {
    std::optional<EmbeddingResult> result;
    auto one = [&]() -> Async<void> { result = co_await client.embed(request); };
    loop_.spawn(one());
    loop_.run();
    EXPECT_EQ(transport_->in_flight(), 0u);
    return std::move(*result);
  }

 private:
  EventLoop loop_;
  std::unique_ptr<HttpTransport> transport_;
};

inline std::string transport_name(const ::testing::TestParamInfo<TransportKind>& param) {
  return param.param == TransportKind::kCurl ? "Curl" : "Routed";
}

// By value: callers pass temporaries.
inline ChatResponse ok(const ChatResult& result) {
  if (const auto* error = std::get_if<CallError>(&result)) {
    ADD_FAILURE() << call_error_kind_name(error->kind) << ": " << error->message;
    return {};
  }
  return std::get<ChatResponse>(result);
}

inline CallError failed(const ChatResult& result) {
  if (!std::holds_alternative<CallError>(result)) {
    ADD_FAILURE() << "expected a CallError, got: " << std::get<ChatResponse>(result).text;
    return {};
  }
  return std::get<CallError>(result);
}

}  // namespace parley::openai_test
