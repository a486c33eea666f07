// self_critique and down on scripted replies: the self-critique stage's re-ask and record, the
// trigger decision at the threshold, and the escalated mad opened from the single answer.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include <nlohmann/json.hpp>

#include "parley/protocol.h"
#include "protocol_harness.h"

namespace parley {
namespace {

using testing::Harness;
using Json = nlohmann::json;

std::string critique_reply(const std::string& final_letter, const std::string& final_confidence = "80%") {
  return "Initial answer: B\nInitial reasoning: Jupiter is the largest planet.\nInitial confidence: 90%\n"
         "Self-critique: However, Venus could be meant.\nAlternative answer: C\nCritique confidence: 20%\n"
         "Final answer: " +
         final_letter + "\nFinal confidence: " + final_confidence;
}

std::string verdict(const std::string& preference, const std::string& answer) {
  return Json{{"Preference", preference},
              {"Supported Side", "Affirmative"},
              {"Reason", "r"},
              {"Debate Answer", answer}}
      .dump();
}

std::optional<Json> event(const Transcript& t, const std::string& kind) {
  for (const auto& e : t.events)
    if (e.kind == kind) return Json::parse(e.detail);
  return std::nullopt;
}

TEST(SelfCritiqueProtocol, AnswersWithTheFinalAnswerAndRecordsTheStage) {
  Harness h([](const ChatRequest&) { return critique_reply("B"); });
  const Transcript t = h.run("self_critique");
  EXPECT_EQ(t.final_answer, "B");
  EXPECT_TRUE(t.correct);
  ASSERT_EQ(t.messages.size(), 1u);
  EXPECT_EQ(t.messages[0].role, "self_critique");
  EXPECT_EQ(t.messages[0].answer, "B");
  EXPECT_DOUBLE_EQ(*t.messages[0].confidence, 0.80);
  const auto stage = event(t, "self_critique");
  ASSERT_TRUE(stage);
  EXPECT_EQ((*stage)["question"], "Which planet is largest?");
  EXPECT_EQ((*stage)["correct"], true);
  EXPECT_EQ((*stage)["answer"], "B");
  EXPECT_FALSE(stage->contains("malformed"));
  // The prompt asks for every section.
  const std::string& prompt = h.client->requests[0].messages.back().content;
  for (const char* label :
       {"Initial answer:", "Initial reasoning:", "Initial confidence:", "Self-critique:",
        "Alternative answer:", "Critique confidence:", "Final answer:", "Final confidence:"})
    EXPECT_NE(prompt.find(label), std::string::npos) << label;
  EXPECT_NE(prompt.find("C. Venus"), std::string::npos);
}

TEST(SelfCritiqueProtocol, AMalformedReplyIsReaskedOnceThenRecorded) {
  Harness h(
      [](const ChatRequest&) -> std::string { return "Initial answer: D\nInitial reasoning: home.\n"; });
  const Transcript t = h.run("self_critique");
  ASSERT_EQ(t.messages.size(), 2u);  // the reply and one re-ask, no more
  EXPECT_EQ(t.messages[1].role, "self_critique_reask");
  const std::string& reask = h.client->requests[1].messages.back().content;
  EXPECT_NE(
      reask.find("Initial confidence, Self-critique, Critique confidence, Final answer, Final confidence"),
      std::string::npos)
      << reask;
  EXPECT_EQ(t.final_answer, "D");  // the initial answer stands in for the missing final one
  const auto stage = event(t, "self_critique");
  ASSERT_TRUE(stage);
  EXPECT_EQ((*stage)["correct"], false);
  EXPECT_NE((*stage)["malformed"].get<std::string>().find("Final answer"), std::string::npos);
}

TEST(SelfCritiqueProtocol, AReaskThatFixesTheReplyIsUsed) {
  Harness h([](const ChatRequest& r) -> std::string {
    return r.note.turn == "self_critique" ? "Initial answer: D" : critique_reply("B");
  });
  const Transcript t = h.run("self_critique");
  EXPECT_EQ(t.final_answer, "B");
  EXPECT_EQ(t.messages.size(), 2u);
  EXPECT_FALSE(event(t, "self_critique")->contains("malformed"));
}

// down's debaters a1 (the single agent, then the affirmative) and a2, judge j1.
Harness down_harness(const std::string& single_reply) {
  return Harness(
      [single_reply](const ChatRequest& r) -> std::string {
        if (r.note.turn == "answer") return single_reply;
        if (r.note.turn == "affirmative") return "I defend my answer.\nAnswer: A\nConfidence: 70%";
        if (r.note.turn == "negative") return "No.\nAnswer: B\nConfidence: 90%";
        return verdict("Yes", "B");
      },
      2, 1);
}

TEST(Down, KeepsTheSingleAnswerAtOrAboveTheThreshold) {
  Harness h = down_harness("Mars.\nAnswer: A\nConfidence: 80%");
  const Transcript t = h.run("down");
  EXPECT_EQ(t.final_answer, "A");
  EXPECT_EQ(t.messages.size(), 1u);
  const auto trigger = event(t, "trigger");
  ASSERT_TRUE(trigger);
  EXPECT_EQ((*trigger)["decision"], "skip");
  EXPECT_EQ((*trigger)["method"], "down");
  EXPECT_DOUBLE_EQ((*trigger)["confidence"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ((*trigger)["threshold"].get<double>(), 0.8);
  EXPECT_EQ((*trigger)["single_answer"], "A");
  EXPECT_EQ((*trigger)["single_correct"], false);
}

TEST(Down, DebatesBelowTheThresholdFromTheSingleAnswer) {
  Harness h = down_harness("Mars is big.\nAnswer: A\nConfidence: 79%");
  const Transcript t = h.run("down");
  EXPECT_EQ(t.final_answer, "B");
  EXPECT_EQ((*event(t, "trigger"))["decision"], "debate");
  ASSERT_EQ(t.messages.size(), 4u);
  EXPECT_EQ(t.messages[1].role, "affirmative");
  EXPECT_EQ(t.messages[1].agent, "a1");  // the single agent defends its own answer
  const ChatRequest& affirmative = h.client->requests[1];
  EXPECT_EQ(affirmative.note.own_previous, "A");
  const std::string& prompt = affirmative.messages.back().content;
  EXPECT_NE(prompt.find("Your stance: A. Mars"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("Restate your stance"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("[Single agent] answer A. Mars:\nMars is big."), std::string::npos) << prompt;
  // Every role's opening, the part of its conversation that never changes, holds the single
  // stage after the question.
  for (std::size_t i = 1; i <= 3; ++i) {
    const std::string& opening = h.client->requests[i].messages.front().content;
    EXPECT_NE(opening.find("Options:\nA. Mars\nB. Jupiter\nC. Venus\nD. Earth\n\nDebate transcript before round 1:\n"
                           "[Single agent] answer A. Mars:\nMars is big."),
              std::string::npos)
        << opening;
  }
}

TEST(Down, TheThresholdIsAParameterAndAMissingConfidenceDebates) {
  Harness h = down_harness("Mars.\nAnswer: A\nConfidence: 60%");
  EXPECT_EQ((*event(h.run("down", {{"threshold", 0.5}}), "trigger"))["decision"], "skip");
  Harness silent = down_harness("Mars.\nAnswer: A");
  const Transcript t = silent.run("down");
  EXPECT_EQ((*event(t, "trigger"))["decision"], "debate");
  EXPECT_TRUE((*event(t, "trigger"))["confidence"].is_null());
}

// confidence: logprob -- exp(mean token log-probability), whatever the stated confidence says.
// Mean −0.2 (perplexity e^0.2): exp(−0.2) = 0.81873 ≥ 0.8, kept; mean −0.25: 0.77880 < 0.8,
// debated (both by hand).
TEST(Down, LogprobConfidenceIsTheExponentialOfTheMeanTokenLogprob) {
  for (const auto& [mean, expected, decision] :
       {std::tuple{-0.2, 0.8187307530779818, "skip"}, std::tuple{-0.25, 0.7788007830714049, "debate"}}) {
    Harness h = down_harness("Mars.\nAnswer: A\nConfidence: 60%");
    const double perplexity = std::exp(-mean);
    h.client->logprobs = [perplexity](const ChatRequest& r) -> std::optional<LogprobStats> {
      if (!r.sampling.logprobs) return std::nullopt;
      return LogprobStats{-3.0, perplexity, 40};
    };
    const Transcript t = h.run("down", {{"confidence", std::string("logprob")}});
    EXPECT_TRUE(h.client->requests[0].sampling.logprobs);
    const auto trigger = event(t, "trigger");
    ASSERT_TRUE(trigger);
    EXPECT_EQ((*trigger)["confidence_source"], "logprob");
    EXPECT_NEAR((*trigger)["confidence"].get<double>(), expected, 1e-12);
    EXPECT_EQ((*trigger)["decision"], decision);
  }
  // The verbal default asks for none.
  Harness verbal = down_harness("Mars.\nAnswer: A\nConfidence: 95%");
  EXPECT_EQ((*event(verbal.run("down"), "trigger"))["confidence_source"], "verbal");
  EXPECT_FALSE(verbal.client->requests[0].sampling.logprobs);
}

// A server that returns no log-probabilities (it refused them, or ignores them): the stated
// confidence stands in, and the trigger event says so; without one either, it counts as 0.
TEST(Down, WithoutLogprobsTheStatedConfidenceIsUsedAndTheEventSaysSo) {
  Harness h = down_harness("Mars.\nAnswer: A\nConfidence: 95%");
  const Transcript t = h.run("down", {{"confidence", std::string("logprob")}});
  EXPECT_TRUE(h.client->requests[0].sampling.logprobs);  // asked for, none came
  const auto trigger = event(t, "trigger");
  ASSERT_TRUE(trigger);
  EXPECT_EQ((*trigger)["decision"], "skip");
  EXPECT_DOUBLE_EQ((*trigger)["confidence"].get<double>(), 0.95);
  EXPECT_EQ((*trigger)["confidence_source"], "logprob");
  EXPECT_EQ((*trigger)["confidence_used"], "verbal");
  EXPECT_NE((*trigger)["no_logprobs"].get<std::string>().find("stated confidence"), std::string::npos);

  Harness low = down_harness("Mars.\nAnswer: A\nConfidence: 40%");
  EXPECT_EQ((*event(low.run("down", {{"confidence", std::string("logprob")}}), "trigger"))["decision"],
            "debate");

  Harness silent = down_harness("Mars.\nAnswer: A");
  const auto none = event(silent.run("down", {{"confidence", std::string("logprob")}}), "trigger");
  EXPECT_EQ((*none)["decision"], "debate");
  EXPECT_TRUE((*none)["confidence"].is_null());
}

TEST(Down, WithoutASingleAnswerTheDebateStartsFromNothing) {
  Harness h = down_harness("I cannot decide.");
  h.params = ProtocolParams();
  const Transcript t = h.run("down", {}, std::nullopt, 0);  // no re-ask of the unparsed reply
  const auto trigger = event(t, "trigger");
  EXPECT_EQ((*trigger)["decision"], "debate");
  EXPECT_TRUE((*trigger)["single_answer"].is_null());
  EXPECT_TRUE(trigger->contains("forced"));
  const std::string& prompt = h.client->requests[1].messages.back().content;
  EXPECT_NE(prompt.find("Answer the question"), std::string::npos) << prompt;  // mad's own round-1 template
  EXPECT_EQ(prompt.find("[Single agent]"), std::string::npos);
  EXPECT_NE(prompt.find("Debate transcript before round 1:\n(none: the debate starts with round 1)"), std::string::npos)
      << prompt;
}

}  // namespace
}  // namespace parley
