#pragma once
// Runs protocols, or any coroutine over a Debate, against a ScriptedClient on one
// multiple-choice task, for control-flow tests: who was asked what, who saw whom, what the
// judges were shown. Every agent and judge of a harness shares one client, so a script tells
// them apart by the request's annotations (agent, round, turn).

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "parley/protocol.h"
#include "scripted_client.h"

namespace parley::testing {

// "Which planet is largest?" with options Mars, Jupiter, Venus, Earth; gold B.
inline std::shared_ptr<const Task> choice_task() {
  auto task = std::make_shared<Task>();
  task->id = "t1";
  task->question = "Which planet is largest?";
  task->options = {"Mars", "Jupiter", "Venus", "Earth"};
  task->answer_type = AnswerType::kChoice;
  task->answer = "B";
  return task;
}

// A well-formed reply naming `letter` with 80% confidence.
inline std::string reply(const std::string& letter) {
  return "Reasoning.\nAnswer: " + letter + "\nConfidence: 80%";
}

struct Harness {
  EventLoop loop;
  std::unique_ptr<ScriptedClient> client;
  ProtocolParams params;
  std::vector<Agent> pool;
  std::vector<Agent> judges;  // empty: the debate's default judge (Debate::judge_panel)
  JudgeSettings judging;
  int best_of = 1;
  double best_of_jitter = kPaperBestOfJitter;
  std::uint64_t seed = 1;
  std::shared_ptr<const Task> task = choice_task();
  std::optional<Embedder> embedder;  // set to give protocols an embedding model
  AttackSetup attack;                // compromised debaters (none by default)

  explicit Harness(ScriptedClient::Script script, std::size_t agents = 1, std::size_t judge_count = 0) {
    client = std::make_unique<ScriptedClient>(loop, std::move(script));
    for (std::size_t i = 0; i < agents; ++i) pool.push_back(Agent{"a" + std::to_string(i + 1), client.get(), "m", Sampling{}, ""});
    for (std::size_t i = 0; i < judge_count; ++i) judges.push_back(Agent{"j" + std::to_string(i + 1), client.get(), "jm", Sampling{}, ""});
  }

  DebateSetup setup(const std::string& label, std::optional<std::int64_t> budget = std::nullopt, int reask = 1) {
    DebateSetup s;
    s.loop = &loop;
    s.task = task;
    s.protocol_label = label;
    s.seed = seed;
    s.params = &params;
    s.agent_pool = pool;
    s.budget_tokens = budget;
    s.reask_unparsed = reask;
    s.judge_panel = judges;
    s.judging = judging;
    s.best_of = best_of;
    s.best_of_jitter = best_of_jitter;
    s.embedder = embedder;
    s.attack = attack;
    return s;
  }

  // Runs a registered protocol with its defaults, overridden by `overrides`.
  Transcript run(const std::string& protocol, std::map<std::string, ParamValue> overrides = {},
                 std::optional<std::int64_t> budget = std::nullopt, int reask = 1) {
    const ProtocolInfo* info = find_protocol(protocol);
    if (info == nullptr) throw std::invalid_argument("no protocol " + protocol);
    for (const auto& spec : info->params) params.set(spec.name, spec.default_value);
    for (auto& [k, v] : overrides) params.set(k, v);
    auto made = info->make(params);
    return run_protocol(*made, protocol, budget, reask);
  }

  Transcript run_protocol(const Protocol& protocol, const std::string& label,
                          std::optional<std::int64_t> budget = std::nullopt, int reask = 1) {
    Transcript out;
    DebateSetup s = setup(label, budget, reask);
    auto body = [&]() -> Async<void> { out = co_await run_debate(protocol, std::move(s)); };
    loop.spawn(body());
    loop.run();
    return out;
  }

  // Runs `body` on a fresh Debate (outside any protocol) and returns that debate's transcript.
  Transcript run_with(std::function<Async<void>(Debate&)> body) {
    Debate debate(setup("harness"));
    auto outer = [&]() -> Async<void> { co_await body(debate); };
    loop.spawn(outer());
    loop.run();
    return std::move(debate.transcript());
  }
};

}  // namespace parley::testing
