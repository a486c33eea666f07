#pragma once
// A hand-built run for `parley export-rl`'s tests: three `debate` debates of three agents over
// three rounds (t = 0, 1, 2) on choice tasks with gold A, whose every UDPO quantity is worked out
// by hand in rl_export_test.cc; a one-agent `single` debate (every uncertainty term undefined);
// and a failed and a budget-stopped debate, which are skipped. Each agent's conversation is
// append-only, as parley records it (MessageRecord::prompt_extends, prompt).
//
// Answers (confidence 0.8 unless given):
//   q1:  a1 A A A    a2 A A A                  a3 A A A               unanimous, correct
//   q2:  a1 A A A    a2 B (unparsed, re-ask) A A   a3 B B A          converges, correct
//   q3:  a1 A B B    a2 B B B                  a3 C C A (0.9 in t = 2)  ends B, B, A: wrong;
//        a judge call (excluded) after round 2
// a3 is compromised in each `debate` debate (an `attack` event).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parley/transcript.h"

namespace parley::testing {

// Builds one debate's calls, each agent's conversation growing by appending.
class HandDebate {
 public:
  HandDebate(std::string task_id, std::string protocol) {
    t_.task_id = std::move(task_id);
    t_.protocol = std::move(protocol);
    t_.seed = 1;
    t_.gold = "A";
    t_.answer_type = AnswerType::kChoice;
  }

  // A call of `agent` in `round` answering `answer` (nullopt: unparsed). It extends the agent's
  // previous call, adding its reply and `user` — or, for the agent's first call, is the system
  // message and the question.
  HandDebate& call(const std::string& agent, int round, std::optional<std::string> answer, double confidence = 0.8,
                   std::string role = "", std::optional<int> repeats = std::nullopt) {
    MessageRecord m;
    m.id = static_cast<int>(t_.messages.size());
    m.round = round;
    m.agent = agent;
    m.role = !role.empty() ? role : round == 0 ? "answer" : "revise";
    m.repeats = repeats;
    m.text = answer ? "Reasoning of " + agent + ".\nAnswer: " + *answer : "I am not sure.";
    m.answer = answer;
    if (answer) m.confidence = confidence;
    m.prompt_tokens = 100 + m.id;
    m.completion_tokens = 10 + m.id;
    std::optional<int> previous;
    for (const MessageRecord& earlier : t_.messages)
      if (earlier.agent == agent) previous = earlier.id;
    if (previous) {
      // The next turn continues from a re-asked turn's first call and the reply kept, not from
      // the correction exchange (docs/architecture.md, "Prompt layout").
      const MessageRecord& p = t_.messages[static_cast<std::size_t>(*previous)];
      m.prompt_extends = p.repeats && !repeats ? *p.repeats : *previous;
      m.prompt = std::vector<ChatMessage>{
          {"assistant", p.text},
          {"user", repeats ? "Please end with 'Answer: <letter>'." : "Round " + std::to_string(round) + ": peers said ..."}};
    } else {
      m.prompt = std::vector<ChatMessage>{{"system", "You are " + agent + "."}, {"user", "Question " + t_.task_id}};
    }
    t_.messages.push_back(std::move(m));
    return *this;
  }

  HandDebate& judge() {
    MessageRecord m;
    m.id = static_cast<int>(t_.messages.size());
    m.round = 2;
    m.agent = "j1";
    m.role = "judge";
    m.text = R"({"winner": "a1"})";
    m.prompt = std::vector<ChatMessage>{{"user", "Judge the debate."}};
    t_.messages.push_back(std::move(m));
    return *this;
  }

  HandDebate& compromised(const std::string& agent) {
    t_.events.push_back({0, "attack", R"({"compromised":[")" + agent + R"("],"count":1,"instruction":"x"})"});
    return *this;
  }

  Transcript done(std::optional<std::string> final_answer, DebateStatus status = DebateStatus::kCompleted) {
    t_.final_answer = std::move(final_answer);
    t_.correct = t_.final_answer == t_.gold;
    t_.status = status;
    if (status != DebateStatus::kCompleted) t_.status_reason = "stopped";
    return t_;
  }

 private:
  Transcript t_;
};

inline std::vector<Transcript> hand_built_run() {
  std::vector<Transcript> run;
  run.push_back(HandDebate("q1", "debate")
                    .compromised("a3")
                    .call("a1", 0, "A").call("a2", 0, "A").call("a3", 0, "A")
                    .call("a1", 1, "A").call("a2", 1, "A").call("a3", 1, "A")
                    .call("a1", 2, "A").call("a2", 2, "A").call("a3", 2, "A")
                    .done("A"));
  run.push_back(HandDebate("q2", "debate")
                    .compromised("a3")
                    .call("a1", 0, "A").call("a2", 0, "B").call("a3", 0, "B")
                    .call("a1", 1, "A").call("a2", 1, std::nullopt).call("a2", 1, "A", 0.8, "reask", 4)
                    .call("a3", 1, "B")
                    .call("a1", 2, "A").call("a2", 2, "A").call("a3", 2, "A")
                    .done("A"));
  run.push_back(HandDebate("q3", "debate")
                    .compromised("a3")
                    .call("a1", 0, "A").call("a2", 0, "B").call("a3", 0, "C")
                    .call("a1", 1, "B").call("a2", 1, "B").call("a3", 1, "C")
                    .call("a1", 2, "B").call("a2", 2, "B").call("a3", 2, "A", 0.9)
                    .judge()
                    .done("B"));
  run.push_back(HandDebate("q4", "debate").call("a1", 0, "A").done(std::nullopt, DebateStatus::kFailed));
  run.push_back(HandDebate("q5", "debate").call("a1", 0, "A").call("a2", 0, "A").done("A", DebateStatus::kBudget));
  run.push_back(HandDebate("q1", "single").call("a1", 0, "A").done("A"));
  return run;
}

}  // namespace parley::testing
