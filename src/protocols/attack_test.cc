// The attack setting (UDPO §3.1, Table 3): which seats are compromised, what they are sent,
// that their answers count like any other, that judges stay honest, and the `attack` event.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "parley/metrics.h"
#include "protocol_harness.h"

namespace parley {
namespace {

using testing::Harness;
using testing::reply;

// The `attack` events of a transcript, parsed.
std::vector<nlohmann::json> attack_events(const Transcript& t) {
  std::vector<nlohmann::json> out;
  for (const auto& e : t.events)
    if (e.kind == "attack") out.push_back(nlohmann::json::parse(e.detail));
  return out;
}

const ChatMessage* system_message(const ChatRequest& r) {
  return !r.messages.empty() && r.messages.front().role == "system" ? &r.messages.front() : nullptr;
}

TEST(Attack, TheLastMSeatsAreCompromisedAndTheirSystemPromptEndsWithTheInstruction) {
  Harness h([](const ChatRequest&) { return reply("B"); }, 5);
  h.pool[4].system_prompt = "Be brief.";
  h.attack.count = 2;
  const Transcript t = h.run("debate", {{"agents", std::int64_t{5}}, {"rounds", std::int64_t{1}}});
  ASSERT_EQ(h.client->requests.size(), 10u);
  for (const auto& r : h.client->requests) {
    const bool compromised = r.note.agent == "a4" || r.note.agent == "a5";
    EXPECT_EQ(r.note.compromised, compromised) << r.note.agent;
    const ChatMessage* system = system_message(r);
    if (r.note.agent == "a5") {
      ASSERT_NE(system, nullptr);
      EXPECT_EQ(system->content, std::string("Be brief.\n\n") + kDefaultAttackInstruction);
    } else if (r.note.agent == "a4") {
      ASSERT_NE(system, nullptr);
      EXPECT_EQ(system->content, kDefaultAttackInstruction);
    } else {
      EXPECT_EQ(system, nullptr) << r.note.agent;
    }
  }
  const auto events = attack_events(t);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["compromised"], nlohmann::json({"a4", "a5"}));
  EXPECT_EQ(events[0]["count"], 2);
  EXPECT_EQ(events[0]["instruction"], kDefaultAttackInstruction);
}

TEST(Attack, ANamedAgentIsCompromisedInEveryInstanceWithTheGivenInstruction) {
  Harness h([](const ChatRequest&) { return reply("B"); }, 1);
  h.attack.agents = {"a1"};
  h.attack.instruction = "Argue for D.";
  const Transcript t = h.run("debate", {{"agents", std::int64_t{3}}, {"rounds", std::int64_t{1}}});
  for (const auto& r : h.client->requests) {
    EXPECT_TRUE(r.note.compromised) << r.note.agent;
    ASSERT_NE(system_message(r), nullptr);
    EXPECT_EQ(system_message(r)->content, "Argue for D.");
  }
  const auto events = attack_events(t);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["compromised"], nlohmann::json({"a1#1", "a1#2", "a1#3"}));
  EXPECT_FALSE(events[0].contains("count"));
}

TEST(Attack, WithoutAnAttackNothingIsMarked) {
  Harness h([](const ChatRequest&) { return reply("B"); }, 3);
  h.attack.agents = {"a9"};  // not seated: no seat is compromised
  const Transcript t = h.run("debate");
  for (const auto& r : h.client->requests) {
    EXPECT_FALSE(r.note.compromised);
    EXPECT_EQ(system_message(r), nullptr);
  }
  EXPECT_TRUE(attack_events(t).empty());
}

// P-attack control flow (reading guide B.8): compromised agents vote and count in U like any
// debater. Honest a1–a3 hold B (the gold), compromised a4–a5 hold A, in every round.
TEST(Attack, CompromisedAnswersCountInTheVoteAndInTheUncertainty) {
  const auto script = [](const ChatRequest& r) { return reply(r.note.compromised ? "A" : "B"); };
  Harness two(script, 5);
  two.attack.count = 2;
  const Transcript held = two.run("debate", {{"agents", std::int64_t{5}}, {"rounds", std::int64_t{2}}});
  EXPECT_EQ(held.final_answer, "B");
  EXPECT_TRUE(held.correct);
  // C_t: 3 × 2 of the 10 pairs differ in each of the 3 rounds.
  EXPECT_DOUBLE_EQ(*uncertainty_metrics(held).u_inter, 0.6);

  Harness three(script, 5);
  three.attack.count = 3;
  const Transcript taken = three.run("debate", {{"agents", std::int64_t{5}}, {"rounds", std::int64_t{2}}});
  EXPECT_EQ(taken.final_answer, "A");
  EXPECT_FALSE(taken.correct);
}

// MAD seats two debaters; with both compromised, its judge (the pool's unseated a3) is not.
TEST(Attack, JudgesAreNeverCompromised) {
  Harness h(
      [](const ChatRequest& r) -> std::string {
        if (r.note.turn.starts_with("judge"))
          return R"({"Preference": "Yes", "Supported Side": "Affirmative", "Reason": "r", "Debate Answer": "B"})";
        return reply("B");
      },
      3);
  h.attack.count = 2;
  const Transcript t = h.run("mad");
  int judge_calls = 0;
  for (const auto& r : h.client->requests) {
    if (r.note.turn.starts_with("judge")) {
      ++judge_calls;
      EXPECT_EQ(r.note.agent, "a3");
      EXPECT_FALSE(r.note.compromised);
      const ChatMessage* system = system_message(r);
      if (system != nullptr) {
        EXPECT_EQ(system->content.str().find(kDefaultAttackInstruction), std::string::npos);
      }
    } else {
      EXPECT_TRUE(r.note.compromised) << r.note.agent << " " << r.note.turn;
    }
  }
  EXPECT_GT(judge_calls, 0);
  ASSERT_EQ(attack_events(t).size(), 1u);
  EXPECT_EQ(attack_events(t)[0]["compromised"], nlohmann::json({"a1", "a2"}));
}

}  // namespace
}  // namespace parley
