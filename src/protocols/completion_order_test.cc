// The order in which concurrent calls complete never changes a debate: every registered
// protocol, on simulated replies that complete inline (as record/replay cache hits do), in
// issue order, or in scrambled orders, makes the same requests (the same cache keys) and ends
// with the same transcript and metrics. Nor does batching: a backend answering identical calls
// of a turn (LlmClient::chat_n) in one call gives the transcript of one answering each alone.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "llm/simulator_embedding.h"
#include "llm/simulator_params.h"
#include "llm/simulator_reply.h"
#include "parley/metrics.h"
#include "parley/protocol.h"
#include "parley/simulator.h"
#include "parley/store.h"

namespace parley {
namespace {

using Json = nlohmann::json;

enum class Completion {
  kInline,        // before the call returns to its caller, like a cache hit
  kIssueOrder,    // one loop turn later each, so in the order issued
  kScrambled,     // after 0-7 loop turns drawn per call: an arbitrary interleaving
};

// The simulator's replies (a pure function of the request, with frequent malformed replies so
// that re-asks happen), completing as `completion` says. Records every request's cache key in
// the order the calls were made. With `batches`, chat_n answers all its samples in one call, as
// the simulator does; otherwise it is the default, one chat() per sample.
class OrderingClient final : public LlmClient {
 public:
  OrderingClient(EventLoop& loop, Completion completion, std::uint64_t scramble_seed, bool batches)
      : loop_(loop), completion_(completion), scramble_seed_(scramble_seed), batches_(batches) {
    params_.format_error_rate = 0.3;
  }

  Async<std::vector<ChatResult>> chat_n(ChatRequest request, int n) override {
    if (!batches_) co_return co_await LlmClient::chat_n(std::move(request), n);
    ++batched_calls;
    std::vector<ChatResult> results;
    const int first = request.note.sample;
    for (int i = 0; i < n; ++i) {
      request.note.sample = first + i;
      keys.push_back(cache_key(request));
      results.push_back(sim::simulate_reply(params_, params_.profiles.at("default"), request));
    }
    co_await complete();
    co_return results;
  }

  Async<ChatResult> chat(ChatRequest request) override {
    keys.push_back(cache_key(request));
    ChatResponse response = sim::simulate_reply(params_, params_.profiles.at("default"), request);
    co_await complete();
    co_return response;
  }

  Async<EmbeddingResult> embed(EmbeddingRequest request) override {
    keys.push_back(embedding_cache_key(request));
    EmbeddingResponse response;
    for (const auto& text : request.inputs) {
      response.vectors.push_back(sim::simulate_embedding(request.note.task.get(), text));
      response.usage.prompt_tokens += estimate_tokens(text);
    }
    co_await complete();
    co_return response;
  }

  bool simulated() const override { return true; }

  std::vector<std::string> keys;
  int batched_calls = 0;

 private:
  Async<void> complete() {
    if (completion_ == Completion::kInline) co_return;
    std::uint64_t turns = 1;
    if (completion_ == Completion::kScrambled) turns = Rng(HashBuilder().add(scramble_seed_).add(keys.size()).value()).below(8);
    for (std::uint64_t i = 0; i < turns; ++i) co_await loop_.yield();
  }

  EventLoop& loop_;
  Completion completion_;
  std::uint64_t scramble_seed_;
  bool batches_;
  SimulatorParams params_ = *default_simulator_params();
};

std::shared_ptr<const Task> task(int index) {
  auto t = std::make_shared<Task>();
  t->id = "order-" + std::to_string(index);
  t->question = "Question " + std::to_string(index) + ": which property of a pendulum sets its period?";
  t->options = {"its length", "its mass", "the release angle", "the colour of the bob"};
  t->answer_type = AnswerType::kChoice;
  t->answer = option_letter(static_cast<std::size_t>(index % 4));
  return t;
}

struct Setting {
  int best_of = 1;
  std::optional<std::int64_t> budget;
  double best_of_jitter = kPaperBestOfJitter;
};

struct Outcome {
  Json transcript;                // with metrics, without timings
  std::vector<std::string> keys;  // of every request, in the order made
  int batched_calls = 0;          // chat_n calls answered at once
};

Outcome run_once(const ProtocolInfo& info, const ProtocolParams& params, const Protocol& protocol,
                 int task_index, std::uint64_t seed, const Setting& setting, Completion completion,
                 std::uint64_t scramble_seed, bool batches = false) {
  EventLoop loop;
  OrderingClient client(loop, completion, scramble_seed, batches);
  DebateSetup setup;
  setup.loop = &loop;
  setup.task = task(task_index);
  setup.protocol_label = info.name;
  setup.seed = seed;
  setup.params = &params;
  for (const char* name : {"a1", "a2", "a3"}) setup.agent_pool.push_back(Agent{name, &client, "m", Sampling{}, ""});
  setup.budget_tokens = setting.budget;
  setup.best_of = setting.best_of;
  setup.best_of_jitter = setting.best_of_jitter;
  if (info.uses_embeddings) setup.embedder = Embedder{"e", &client, "em"};
  Transcript transcript;
  auto body = [&]() -> Async<void> { transcript = co_await run_debate(protocol, std::move(setup)); };
  loop.spawn(body());
  loop.run();
  add_debate_metrics(transcript, {.answer_type = AnswerType::kChoice});

  Json json = Json::parse(transcript_to_json(transcript));
  json.erase("wall_ms");
  json.erase("latency_ms");
  for (auto& message : json["messages"]) message.erase("latency_ms");
  return Outcome{std::move(json), std::move(client.keys), client.batched_calls};
}

std::string describe(Completion completion, std::uint64_t scramble_seed) {
  switch (completion) {
    case Completion::kInline: return "inline";
    case Completion::kIssueOrder: return "issue order";
    case Completion::kScrambled: return "scrambled #" + std::to_string(scramble_seed);
  }
  return "?";
}

TEST(CompletionOrder, EveryProtocolMakesTheSameRequestsAndTranscriptWhateverOrderRepliesArriveIn) {
  const std::vector<Setting> settings = {
      {1, std::nullopt}, {1, 2500}, {2, std::nullopt}, {2, std::nullopt, 0.0}};
  int reasks = 0, budget_stops = 0, batched_calls = 0;
  for (const ProtocolInfo& info : protocol_registry()) {
    ProtocolParams params;
    for (const auto& spec : info.params) params.set(spec.name, spec.default_value);
    if (info.name == "imad") params.set("trigger_model", std::string(PARLEY_SOURCE_DIR) + "/examples/imad-trigger.json");
    const auto protocol = info.make(params);
    for (const Setting& setting : settings) {
      for (int task_index = 0; task_index < 3; ++task_index) {
        const std::uint64_t seed = 11 + static_cast<std::uint64_t>(task_index);
        const Outcome expected =
            run_once(info, params, *protocol, task_index, seed, setting, Completion::kIssueOrder, 0);
        int position = 0;
        for (const auto& m : expected.transcript["messages"]) {
          EXPECT_EQ(m["id"], position++) << info.name << ": a call's id is its place in issue order";
          reasks += m.contains("repeats");
        }
        budget_stops += expected.transcript["status"] == "budget";
        if (info.name == "self_consistency") {
          // Its samples are one prompt asked k times: each sample index is a request of its own.
          EXPECT_EQ(std::set<std::string>(expected.keys.begin(), expected.keys.end()).size(), expected.keys.size());
        }
        struct Order {
          Completion completion;
          std::uint64_t scramble_seed;
          bool batches;
        };
        std::vector<Order> orders = {{Completion::kInline, 0, false}};
        for (std::uint64_t s = 1; s <= 3; ++s) orders.push_back({Completion::kScrambled, s, false});
        orders.push_back({Completion::kIssueOrder, 0, true});
        orders.push_back({Completion::kScrambled, 1, true});
        for (const auto& [completion, scramble_seed, batches] : orders) {
          const Outcome got = run_once(info, params, *protocol, task_index, seed, setting, completion,
                                       scramble_seed, batches);
          batched_calls += got.batched_calls;
          const std::string where = info.name + ", task " + std::to_string(task_index) + ", best_of " +
                                    std::to_string(setting.best_of) + ", jitter " +
                                    std::to_string(setting.best_of_jitter) + ", budget " +
                                    std::to_string(setting.budget.value_or(0)) + ", " +
                                    describe(completion, scramble_seed) + (batches ? ", batched" : "");
          EXPECT_EQ(got.keys, expected.keys) << where;
          EXPECT_EQ(got.transcript, expected.transcript)
              << where << "\n" << Json::diff(expected.transcript, got.transcript).dump().substr(0, 2000);
        }
      }
    }
  }
  // The runs did exercise what completion order could change: re-asks and budget stops; and
  // calls were batched.
  EXPECT_GT(reasks, 10);
  EXPECT_GT(budget_stops, 5);
  EXPECT_GT(batched_calls, 100);
}

TEST(CompletionOrder, ADebateWithoutItsLoopIsRefused) {
  ProtocolParams params;
  DebateSetup setup;
  setup.task = task(0);
  setup.params = &params;
  EXPECT_THROW(Debate{setup}, std::invalid_argument);
}

}  // namespace
}  // namespace parley
