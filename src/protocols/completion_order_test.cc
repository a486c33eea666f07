// The order in which concurrent calls complete never changes a debate: every registered
// protocol, on simulated replies that complete inline (as record/replay cache hits do), in
// issue order, or in scrambled orders, makes the same requests (the same cache keys) and ends
// with the same transcript and metrics.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "llm/simulator_params.h"
#include "parley/metrics.h"
#include "parley/protocol.h"
#include "parley/simulator.h"
#include "parley/store.h"
#include "protocols/simulated_runs.h"

namespace parley {
namespace {

using Json = nlohmann::json;

using simulated::Completion;

struct Outcome {
  Json transcript;                // with metrics, without timings
  std::vector<std::string> keys;  // of every request, in the order made
  int batched_calls = 0;          // chat_n calls answered at once
};

// The simulator's replies with frequent malformed ones, so that re-asks happen.
SimulatorParams frequent_reasks() {
  SimulatorParams params = *default_simulator_params();
  params.format_error_rate = 0.3;
  return params;
}

Outcome run_once(const ProtocolInfo& info, const ProtocolParams& params, const Protocol& protocol, int task_index,
                 std::uint64_t seed, const simulated::RunSetting& setting, Completion completion,
                 std::uint64_t scramble_seed, bool batches = false) {
  EventLoop loop;
  simulated::RecordingSimulator client(loop, frequent_reasks(), completion, scramble_seed, batches);
  Transcript transcript =
      simulated::run_on(client, loop, info, params, protocol, simulated::generated_task(task_index), seed, setting);
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
  const std::vector<simulated::RunSetting> settings = {
      {1, std::nullopt}, {1, 2500}, {2, std::nullopt}, {2, std::nullopt, 0.0}};
  int reasks = 0, budget_stops = 0, batched_calls = 0;
  for (const ProtocolInfo& info : protocol_registry()) {
    const ProtocolParams params =
        simulated::default_params(info, simulated::bundled_trigger_model(PARLEY_SOURCE_DIR));
    const auto protocol = info.make(params);
    for (const simulated::RunSetting& setting : settings) {
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
          const Outcome got =
              run_once(info, params, *protocol, task_index, seed, setting, completion, scramble_seed, batches);
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
  setup.task = simulated::generated_task(0);
  setup.params = &params;
  EXPECT_THROW(Debate{setup}, std::invalid_argument);
}

// protocol_debaters, which the attack's config checks rely on, is what a debate seats: with every
// seat compromised, the agents giving answers are all compromised and, over a few tasks (the
// selective protocols debate only on some), exactly as many as declared.
TEST(Debaters, EveryProtocolSeatsAsManyDebatersAsItDeclares) {
  for (const ProtocolInfo& info : protocol_registry()) {
    const ProtocolParams params =
        simulated::default_params(info, simulated::bundled_trigger_model(PARLEY_SOURCE_DIR));
    const auto protocol = info.make(params);
    const std::size_t declared = protocol_debaters(info, params);
    simulated::RunSetting setting;
    setting.compromised = static_cast<int>(declared);
    std::size_t most_seated = 0;
    for (int task_index = 0; task_index < 8; ++task_index) {
      EventLoop loop;
      simulated::RecordingSimulator client(loop, *default_simulator_params());
      const Transcript t = simulated::run_on(client, loop, info, params, *protocol,
                                             simulated::generated_task(task_index), 5, setting);
      std::set<std::string> answering;
      for (const simulated::Exchange& call : client.chats) {
        if (!is_agent_answer_role(call.request.note.turn)) continue;
        answering.insert(call.request.note.agent);
        EXPECT_TRUE(call.request.note.compromised) << info.name << ": " << call.request.note.agent;
      }
      most_seated = std::max(most_seated, answering.size());
    }
    EXPECT_EQ(most_seated, declared) << info.name;
  }
}

}  // namespace
}  // namespace parley
