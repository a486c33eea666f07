// mad (iMAD App. A.1) on scripted replies: when and why it stops, what a malformed or
// out-of-set verdict triggers, the reduced candidate set of the finalisation, placeholders and
// template overrides, and who saw which messages in which round.
#include <algorithm>

#include <gtest/gtest.h>

#include <cctype>

#include <iostream>

#include <nlohmann/json.hpp>

#include "parley/protocol.h"
#include "parley/simulator.h"
#include "protocol_harness.h"

namespace parley {
namespace {

using testing::Harness;
using testing::reply;
using Json = nlohmann::json;

std::string verdict(const std::string& preference, const std::string& side, const std::string& answer) {
  return Json{{"Preference", preference}, {"Supported Side", side}, {"Reason", "because"}, {"Debate Answer", answer}}
      .dump();
}

std::string final_verdict(const std::string& answer) { return Json{{"Reason", "r"}, {"Debate Answer", answer}}.dump(); }

// Debaters a1 (affirmative) and a2 (negative), judge j1.
Harness mad_harness(testing::ScriptedClient::Script script) { return Harness(std::move(script), 2, 1); }

const ChatRequest& request(const Harness& h, const std::string& turn, int round) {
  for (const auto& r : h.client->requests)
    if (r.note.turn == turn && r.note.round == round) return r;
  throw std::runtime_error("no " + turn + " request in round " + std::to_string(round));
}

const std::string& prompt_of(const ChatRequest& r) { return r.messages.back().content; }

int count_of(const std::string& text, const std::string& part) {
  int n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

std::vector<EventRecord> events_of(const Transcript& t, const std::string& kind) {
  std::vector<EventRecord> out;
  for (const auto& e : t.events)
    if (e.kind == kind) out.push_back(e);
  return out;
}

// Whether `text` still holds a "{NAME}" placeholder (capitals, digits, underscores). Written out
// rather than with <regex>, whose code trips g++ 12's -Wmaybe-uninitialized under sanitizers.
bool has_placeholder(const std::string& text) {
  for (std::size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
    std::size_t end = open + 1;
    while (end < text.size() && (std::isupper(static_cast<unsigned char>(text[end])) ||
                                 std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '_'))
      ++end;
    if (end > open + 1 && end < text.size() && text[end] == '}') return true;
  }
  return false;
}

TEST(Mad, StopsWhenTheJudgePrefersASideInRoundOne) {
  Harness h = mad_harness([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "affirmative") return "Jupiter is a gas giant.\nAnswer: B\nConfidence: 90%";
    if (r.note.turn == "negative") return "Mars looks big.\nAnswer: A\nConfidence: 60%";
    return verdict("Yes", "Affirmative", "B");
  });
  const Transcript t = h.run("mad");
  EXPECT_EQ(t.status, DebateStatus::kCompleted);
  EXPECT_EQ(t.final_answer, "B");
  EXPECT_TRUE(t.correct);
  ASSERT_EQ(t.messages.size(), 3u);
  EXPECT_EQ(t.messages[0].role, "affirmative");
  EXPECT_EQ(t.messages[0].agent, "a1");
  EXPECT_EQ(t.messages[1].role, "negative");
  EXPECT_EQ(t.messages[1].agent, "a2");
  EXPECT_EQ(t.messages[2].role, "judge_mad");
  EXPECT_EQ(t.messages[2].agent, "j1");
  for (const auto& m : t.messages) EXPECT_EQ(m.round, 1);
  // Who saw whom: nobody before the affirmative's answer, the negative saw it, the judge both.
  EXPECT_TRUE(t.messages[0].shown.empty());
  EXPECT_EQ(t.messages[1].shown, (std::vector<std::string>{"a1"}));
  EXPECT_EQ(t.messages[2].shown, (std::vector<std::string>{"a1", "a2"}));
  // The negative's prompt carries the affirmative's message; the judge's carries both.
  EXPECT_NE(prompt_of(request(h, "negative", 1)).find("Jupiter is a gas giant."), std::string::npos);
  EXPECT_NE(prompt_of(request(h, "judge_mad", 1)).find("Mars looks big."), std::string::npos);
  const auto& judge_shown = request(h, "judge_mad", 1).note.shown;
  ASSERT_EQ(judge_shown.size(), 2u);
  EXPECT_EQ(judge_shown[0].label, "Affirmative");
  EXPECT_EQ(judge_shown[0].answer, "B");
  EXPECT_EQ(judge_shown[1].label, "Negative");
  EXPECT_EQ(judge_shown[1].answer, "A");

  const auto verdicts = events_of(t, "verdict");
  ASSERT_EQ(verdicts.size(), 1u);
  const Json v = Json::parse(verdicts[0].detail);
  EXPECT_EQ(v["Preference"], "Yes");
  EXPECT_EQ(v["Supported Side"], "Affirmative");
  EXPECT_EQ(v["Debate Answer"], "B");
  EXPECT_EQ(v["judge"], "j1");
  EXPECT_FALSE(v.contains("Reason"));  // compact
  const auto stops = events_of(t, "stop");
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].round, 1);
  EXPECT_EQ(Json::parse(stops[0].detail), (Json{{"reason", "preference"}, {"round", 1}, {"answer", "B"}}));
}

TEST(Mad, StopsInRoundThreeWithTheOptionTextCanonicalised) {
  Harness h = mad_harness([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "affirmative") return "Affirmative round " + std::to_string(r.note.round) + ".\nAnswer: B";
    if (r.note.turn == "negative") return "Negative round " + std::to_string(r.note.round) + ".\nAnswer: A";
    if (r.note.round < 3) return verdict("No", "Negative", "A");
    return verdict("Yes", "Affirmative", "Jupiter");
  });
  const Transcript t = h.run("mad");
  EXPECT_EQ(t.final_answer, "B");
  ASSERT_EQ(t.messages.size(), 9u);
  ASSERT_EQ(events_of(t, "verdict").size(), 3u);
  EXPECT_EQ(Json::parse(events_of(t, "verdict")[2].detail)["Debate Answer"], "B");
  const auto stops = events_of(t, "stop");
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(Json::parse(stops[0].detail)["round"], 3);

  // Round 2: the affirmative's conversation goes on from its round-1 request and reply. The new
  // turn reminds it of its stance and brings what it has not seen of round 1: the negative's
  // argument ({NEG_ANS}) and the judge's verdict ({TRANSCRIPT}); its own reply is not repeated.
  const auto& aff1 = request(h, "affirmative", 1).messages;
  const auto& aff2_messages = request(h, "affirmative", 2).messages;
  ASSERT_EQ(aff1.size(), 1u);
  ASSERT_EQ(aff2_messages.size(), 3u);
  EXPECT_EQ(aff2_messages[0].content, aff1[0].content);
  EXPECT_EQ(aff2_messages[1].role, "assistant");
  EXPECT_EQ(aff2_messages[1].content, "Affirmative round 1.\nAnswer: B");
  EXPECT_EQ(aff2_messages[2].content,
            "This is round 2.\n\nDebate transcript since your last turn:\n[Round 1] Judge:\n"
            R"({"Debate Answer":"A","Preference":"No","Reason":"because","Supported Side":"Negative"})"
            "\n\nYour stance: B. Jupiter\n\nThe negative side's latest argument:\nNegative round 1.\nAnswer: A\n\n"
            "Agree with the negative side, or refuse its argument. If you refuse, choose an answer strictly from the "
            "options (keep your stance or switch to a different option) and justify it briefly.\n"
            "Think step by step. End your reply with two lines: \"Answer: <option letter>\" and \"Confidence: "
            "<0-100>%\".");
  const auto& aff2_shown = request(h, "affirmative", 2).note.shown;
  ASSERT_EQ(aff2_shown.size(), 2u);
  EXPECT_EQ(aff2_shown[0].agent, "a2");
  EXPECT_EQ(aff2_shown[1].agent, "j1");
  EXPECT_EQ(aff2_shown[1].label, "Judge");
  EXPECT_EQ(aff2_shown[1].answer, "A");  // the judge's tentative answer
  // The negative of round 3 reads this round's affirmative message; of rounds 1-2 it has read
  // everything by then: each message of the debate is in its conversation once (the
  // affirmative's as {AFF_ANS} when they were new, the judge's verdicts in {TRANSCRIPT}, its own
  // as its replies), and nothing of round 3 but the affirmative's message.
  const auto& neg3 = request(h, "negative", 3).messages;
  ASSERT_EQ(neg3.size(), 5u);
  EXPECT_EQ(neg3[1].content, "Negative round 1.\nAnswer: A");
  EXPECT_EQ(neg3[3].content, "Negative round 2.\nAnswer: A");
  std::string seen;
  for (const auto& m : neg3) seen += m.content.str() + "\n";
  for (const char* message : {"Affirmative round 1.", "Affirmative round 2.", "Affirmative round 3.",
                                     "Negative round 1.", "Negative round 2.", "[Round 1] Judge:", "[Round 2] Judge:"}) {
    EXPECT_EQ(count_of(seen, message), 1) << message << "\n" << seen;
  }
  EXPECT_EQ(seen.find("[Round 3]"), std::string::npos);
  EXPECT_NE(prompt_of(request(h, "negative", 3)).find("The affirmative side's argument in this round:\nAffirmative round 3."),
            std::string::npos);
  // The judge likewise: every message of the debate once, round 3 included.
  std::string judged;
  for (const auto& m : request(h, "judge_mad", 3).messages) judged += m.content.str() + "\n";
  for (const char* message : {"Affirmative round 1.", "Affirmative round 2.", "Affirmative round 3.",
                                     "Negative round 1.", "Negative round 2.", "Negative round 3."}) {
    EXPECT_EQ(count_of(judged, message), 1) << message << "\n" << judged;
  }
  for (const auto& m : t.messages) {
    std::vector<std::string> expected;
    if (m.role == "affirmative" && m.round > 1) expected = {"a2", "j1"};
    if (m.role == "negative") expected = m.round > 1 ? std::vector<std::string>{"a1", "j1"} : std::vector<std::string>{"a1"};
    if (m.role == "judge_mad") expected = {"a1", "a2"};
    EXPECT_EQ(m.shown, expected) << m.role << " " << m.round;
  }
  // Every placeholder is filled, in every prompt.
  for (const auto& r : h.client->requests) EXPECT_FALSE(has_placeholder(prompt_of(r))) << prompt_of(r);
  for (const auto& r : h.client->requests) {
    // Round-1 debaters see no judge JSON yet: no brace at all.
    const bool debater_round_one = r.note.round == 1 && r.note.turn != "judge_mad";
    EXPECT_TRUE(!debater_round_one || prompt_of(r).find('{') == std::string::npos) << prompt_of(r);
  }
}

TEST(Mad, NoPreferenceForMaxRoundsEndsInTheFinalisationOverTheCandidates) {
  // The affirmative holds B; the negative proposes A in round 1 and C afterwards; the judge
  // never has a preference and leans to B. {OPTIONS2} = B, A, C (never D).
  Harness h = mad_harness([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "affirmative") return reply("B");
    if (r.note.turn == "negative") return reply(r.note.round == 1 ? "A" : "C");
    if (r.note.turn == "judge_mad") return verdict("No", "Affirmative", "B");
    return final_verdict("C. Venus");
  });
  const Transcript t = h.run("mad");
  EXPECT_EQ(t.final_answer, "C");
  ASSERT_EQ(t.messages.size(), 16u);  // 5 rounds × 3 calls + the finalisation
  EXPECT_EQ(t.messages.back().role, "judge_final");
  EXPECT_EQ(t.messages.back().round, 5);
  EXPECT_EQ(t.messages.back().shown, (std::vector<std::string>{"a1", "a2"}));
  EXPECT_EQ(events_of(t, "verdict").size(), 5u);

  const std::string& final_prompt = prompt_of(request(h, "judge_final", 5));
  EXPECT_NE(final_prompt.find("Candidate answers proposed in the debate:\nB. Jupiter\nA. Mars\nC. Venus\n"),
            std::string::npos)
      << final_prompt;
  EXPECT_NE(final_prompt.find(R"("Debate Answer": <one of "B", "A", "C">)"), std::string::npos);
  // The judge's conversation holds the whole debate: five round turns with its verdicts, then
  // the finalisation.
  const auto& final_messages = request(h, "judge_final", 5).messages;
  ASSERT_EQ(final_messages.size(), 11u);
  for (std::size_t r = 0; r < 5; ++r) {
    EXPECT_NE(final_messages[2 * r].content.str().find("This is round " + std::to_string(r + 1) +
                                                 ".\n\nAffirmative side, this round:\n" + reply("B")),
              std::string::npos)
        << final_messages[2 * r].content;
    EXPECT_EQ(final_messages[2 * r + 1].role, "assistant");
    EXPECT_EQ(final_messages[2 * r + 1].content, verdict("No", "Affirmative", "B"));
  }
  EXPECT_EQ(final_prompt.rfind("The debate has ended after round 5 without a clear preference", 0), 0u) << final_prompt;
  EXPECT_FALSE(has_placeholder(final_prompt));

  const auto stops = events_of(t, "stop");
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(Json::parse(stops[0].detail),
            (Json{{"reason", "max_rounds"}, {"round", 5}, {"candidates", {"B", "A", "C"}}, {"answer", "C"}}));
}

TEST(Mad, MaxRoundsIsAParameter) {
  Harness h = mad_harness([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "judge_mad") return verdict("No", "Negative", "A");
    if (r.note.turn == "judge_final") return final_verdict("A");
    return reply(r.note.turn == "affirmative" ? "B" : "A");
  });
  const Transcript t = h.run("mad", {{"max_rounds", std::int64_t{2}}});
  EXPECT_EQ(t.messages.size(), 7u);
  EXPECT_EQ(t.final_answer, "A");
}

TEST(Mad, FinalAnswerOutsideTheCandidatesIsRejectedAndReasked) {
  int finals = 0;
  Harness h = mad_harness([&](const ChatRequest& r) -> std::string {
    if (r.note.turn == "judge_mad") return verdict("No", "Affirmative", "B");
    if (r.note.turn == "judge_final" || r.note.turn == "judge_final_reask") return final_verdict(finals++ ? "A" : "D");
    return reply(r.note.turn == "affirmative" ? "B" : "A");
  });
  const Transcript t = h.run("mad", {{"max_rounds", std::int64_t{1}}});
  EXPECT_EQ(t.final_answer, "A");
  ASSERT_EQ(t.messages.size(), 5u);
  EXPECT_EQ(t.messages[4].role, "judge_final_reask");
  const std::string& correction = prompt_of(request(h, "judge_final_reask", 1));
  EXPECT_NE(correction.find(R"(field "Debate Answer" must be one of "B", "A", got "D")"), std::string::npos)
      << correction;
}

TEST(Mad, DebateAnswerOutsideTheOptionSetIsRejectedAndReasked) {
  int judged = 0;
  Harness h = mad_harness([&](const ChatRequest& r) -> std::string {
    if (r.note.turn == "affirmative") return reply("B");
    if (r.note.turn == "negative") return reply("A");
    return verdict("Yes", "Affirmative", judged++ ? "(B) Jupiter" : "E");
  });
  const Transcript t = h.run("mad");
  EXPECT_EQ(t.final_answer, "B");
  ASSERT_EQ(t.messages.size(), 4u);
  EXPECT_EQ(t.messages[3].role, "judge_mad_reask");
  EXPECT_EQ(request(h, "judge_mad_reask", 1).note.repeats, "judge_mad");
  const std::string& correction = prompt_of(request(h, "judge_mad_reask", 1));
  EXPECT_NE(correction.find(R"(field "Debate Answer" must be one of "A", "B", "C", "D" (an option letter or the option's text), got "E")"),
            std::string::npos)
      << correction;
}

TEST(Mad, InvalidFieldValuesAndTextOutsideTheObjectAreMalformed) {
  const std::vector<std::string> bad = {
      verdict("Maybe", "Affirmative", "B"),                        // Preference not Yes/No
      verdict("Yes", "Both", "B"),                                 // Supported Side
      R"({"Preference": "Yes", "Reason": "r", "Debate Answer": "B"})",  // Yes without a side
      "My verdict: " + verdict("Yes", "Affirmative", "B"),         // text outside the object
      R"({"Preference": "No", "Supported Side": "Negative", "Debate Answer": "B"})",  // no Reason
      R"({"Supported Side": "Negative", "Reason": "r", "Debate Answer": "B"})",        // no Preference
  };
  for (const auto& first : bad) {
    int judged = 0;
    Harness h = mad_harness([&](const ChatRequest& r) -> std::string {
      if (r.note.turn == "affirmative") return reply("B");
      if (r.note.turn == "negative") return reply("A");
      return judged++ ? "```json\n" + verdict("Yes", "Negative", "A") + "\n```" : first;  // a fence is fine
    });
    const Transcript t = h.run("mad");
    EXPECT_EQ(t.final_answer, "A") << first;
    EXPECT_EQ(t.messages.size(), 4u) << first;
  }
}

TEST(Mad, AMalformedVerdictAfterTheReasksCountsAsNoPreference) {
  // Round 1: the judge never writes JSON; it is re-asked judging().reasks = 2 times, the
  // round is recorded as failed and the debate goes on; round 2 settles it.
  Harness h = mad_harness([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "affirmative") return reply("B");
    if (r.note.turn == "negative") return reply("A");
    if (r.note.round == 1) return "I prefer the affirmative side.";
    return verdict("Yes", "Negative", "A");
  });
  const Transcript t = h.run("mad");
  EXPECT_EQ(t.final_answer, "A");
  std::vector<std::string> round1;
  for (const auto& m : t.messages)
    if (m.round == 1) round1.push_back(m.role);
  EXPECT_EQ(round1, (std::vector<std::string>{"affirmative", "negative", "judge_mad", "judge_mad_reask",
                                              "judge_mad_reask"}));
  const auto verdicts = events_of(t, "verdict");
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(Json::parse(verdicts[0].detail)["failed"], "the reply contains no JSON object");
  // The malformed replies are discarded: round 2 sees no judge message and is not shown the judge.
  EXPECT_EQ(prompt_of(request(h, "affirmative", 2)).find("Judge:"), std::string::npos);
  EXPECT_EQ(request(h, "affirmative", 2).note.shown.size(), 1u);
  EXPECT_EQ(Json::parse(events_of(t, "stop")[0].detail)["reason"], "preference");
}

TEST(Mad, TheReaskBoundComesFromTheJudgeSettings) {
  Harness h = mad_harness([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "affirmative") return reply("B");
    if (r.note.turn == "negative") return reply("A");
    return "no JSON here";
  });
  h.judging.reasks = 0;
  const Transcript t = h.run("mad", {{"max_rounds", std::int64_t{2}}});
  // Two rounds of one judge call each, then one finalisation call: all failed, no re-asks.
  ASSERT_EQ(t.messages.size(), 7u);
  for (const auto& m : t.messages) EXPECT_EQ(m.role.find("_reask"), std::string::npos);
  // With no usable verdict at all the answer falls back to the affirmative's.
  EXPECT_EQ(t.final_answer, "B");
  const Json stop = Json::parse(events_of(t, "stop")[0].detail);
  EXPECT_EQ(stop["reason"], "judge_failed");
  EXPECT_EQ(stop["answer"], "B");
  EXPECT_EQ(stop["problem"], "the reply contains no JSON object");
}

TEST(Mad, AFailedFinalisationFallsBackToTheJudgesLatestAnswer) {
  Harness h = mad_harness([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "affirmative") return reply("B");
    if (r.note.turn == "negative") return reply("A");
    if (r.note.turn == "judge_mad") return verdict("No", "Negative", "A");
    return "I cannot decide.";
  });
  const Transcript t = h.run("mad", {{"max_rounds", std::int64_t{1}}});
  EXPECT_EQ(t.messages.size(), 6u);  // 3 + judge_final and its 2 re-asks
  EXPECT_EQ(t.final_answer, "A");
  EXPECT_EQ(Json::parse(events_of(t, "stop")[0].detail)["reason"], "judge_failed");
}

TEST(Mad, WithoutAnyVerdictAndAnUnparsedAffirmativeTheNegativesAnswerIsTheFallback) {
  Harness h = mad_harness([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "negative") return reply("A");
    if (r.note.turn == "affirmative" || r.note.turn == "reask") return "I would rather not say.";
    return "no JSON here";
  });
  h.judging.reasks = 0;
  const Transcript t = h.run("mad", {{"max_rounds", std::int64_t{1}}});
  EXPECT_EQ(t.final_answer, "A");
  EXPECT_EQ(Json::parse(events_of(t, "stop")[0].detail)["reason"], "judge_failed");
}

testing::ScriptedClient::Script settled_at_once() {
  return [](const ChatRequest& r) -> std::string {
    if (r.note.turn == "judge_mad") return verdict("Yes", "Affirmative", "B");
    return reply("B");
  };
}

bool has_event(const Transcript& t, const std::string& kind) {
  return std::any_of(t.events.begin(), t.events.end(), [&](const EventRecord& e) { return e.kind == kind; });
}

TEST(Mad, ThreeAgentsTakeTheThreeRolesWithoutJudges) {
  // iMAD's MAD: affirmative, negative and judge are three distinct agents.
  Harness h(settled_at_once(), 3);
  const Transcript t = h.run("mad");
  ASSERT_EQ(t.messages.size(), 3u);
  EXPECT_EQ(t.messages[0].agent, "a1");
  EXPECT_EQ(t.messages[1].agent, "a2");
  EXPECT_EQ(t.messages[2].agent, "a3");
  EXPECT_FALSE(has_event(t, "shared_role"));
}

TEST(Mad, WithTwoAgentsTheJudgeIsAnInstanceOfItsOwn) {
  Harness h(settled_at_once(), 2);
  const Transcript t = h.run("mad");
  ASSERT_EQ(t.messages.size(), 3u);
  EXPECT_EQ(t.messages[2].agent, "a1#judge");
  EXPECT_EQ(t.messages[2].role, "judge_mad");
  EXPECT_FALSE(has_event(t, "shared_role"));
}

TEST(Mad, OneConfiguredAgentGivesTwoDistinctDebatersAndAJudge) {
  Harness h(settled_at_once(), 1);
  const Transcript t = h.run("mad");
  EXPECT_EQ(t.messages[0].agent, "a1#1");
  EXPECT_EQ(t.messages[1].agent, "a1#2");
  EXPECT_EQ(t.messages[2].agent, "a1#judge");
}

TEST(Mad, AJudgeTheExperimentSeatsAsADebaterIsRecordedAsSharingRoles) {
  Harness h(settled_at_once(), 2);
  h.judges = {h.pool[0]};  // judges: [a1] while a1 is the affirmative
  const Transcript t = h.run("mad");
  EXPECT_EQ(t.messages[2].agent, "a1");
  const auto it = std::find_if(t.events.begin(), t.events.end(), [](const EventRecord& e) { return e.kind == "shared_role"; });
  ASSERT_NE(it, t.events.end());
  EXPECT_EQ(it->detail, R"({"agent":"a1","roles":["debater","judge"]})");
  EXPECT_EQ(std::count_if(t.events.begin(), t.events.end(), [](const EventRecord& e) { return e.kind == "shared_role"; }), 1);
}

TEST(Mad, TemplatesAreOverriddenFromTheParameters) {
  Harness h = mad_harness([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "affirmative") return "Pro.\nAnswer: B";
    if (r.note.turn == "negative") return "Contra.\nAnswer: A";
    return verdict("Yes", "Affirmative", "B");
  });
  const Transcript t = h.run("mad", {{"negative_opening_prompt", std::string("Q: {QUESTION}")},
                                     {"negative_prompt", std::string("Round {ROUND}. Attack this: {AFF_ANS} {ROUND}!")},
                                     {"judge_opening_prompt", std::string()},
                                     {"judge_round_prompt", std::string("{QUESTION} | {NEG_ANS} | {JSON_FORMAT}")}});
  // The opening and the first turn make the role's first message; an empty opening adds nothing.
  EXPECT_EQ(prompt_of(request(h, "negative", 1)), "Q: Which planet is largest?\n\nRound 1. Attack this: Pro.\nAnswer: B 1!");
  EXPECT_EQ(prompt_of(request(h, "judge_mad", 1)),
            "Which planet is largest? | Contra.\nAnswer: A | "
            R"({"Preference": <one of "Yes", "No">, "Supported Side": <one of "Affirmative", "Negative">, )"
            R"("Reason": "<text>", "Debate Answer": <one of "A", "B", "C", "D" (an option letter or the option's text)>})");
  EXPECT_EQ(t.final_answer, "B");
}

TEST(Mad, AMessageATurnDoesNotShowComesInTheRolesNextTranscript) {
  // A negative template without {AFF_ANS}: round 1's affirmative message is not shown in round
  // 1, so the negative's round-2 {TRANSCRIPT} brings it with the judge's verdict; a judge
  // template without {TRANSCRIPT} leaves what it has not seen for its finalisation.
  Harness h = mad_harness([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "affirmative") return "Pro " + std::to_string(r.note.round) + ".\nAnswer: B";
    if (r.note.turn == "negative") return "Contra " + std::to_string(r.note.round) + ".\nAnswer: A";
    if (r.note.turn == "judge_mad") return verdict("No", "Negative", "A");
    return final_verdict("A");
  });
  h.run("mad", {{"max_rounds", std::int64_t{2}},
                {"negative_prompt", std::string("Round {ROUND}.\n{TRANSCRIPT}")},
                {"judge_round_prompt", std::string("Round {ROUND}: {NEG_ANS}")},
                {"judge_final_prompt", std::string("Decide.\n{TRANSCRIPT}")}});
  EXPECT_EQ(prompt_of(request(h, "negative", 1)).substr(prompt_of(request(h, "negative", 1)).find("Round 1.")),
            "Round 1.\n(none: this is the first round)");
  EXPECT_EQ(prompt_of(request(h, "negative", 2)),
            "Round 2.\n[Round 1] Affirmative:\nPro 1.\nAnswer: B\n\n[Round 1] Judge:\n"
            R"({"Debate Answer":"A","Preference":"No","Reason":"because","Supported Side":"Negative"})");
  // The judge saw each round's negative message ({NEG_ANS}) but no affirmative one: those come
  // at the finalisation, with nothing it has seen.
  EXPECT_EQ(prompt_of(request(h, "judge_final", 2)),
            "Decide.\n[Round 1] Affirmative:\nPro 1.\nAnswer: B\n\n[Round 2] Affirmative:\nPro 2.\nAnswer: B");
}

TEST(Mad, APlaceholderInsideAQuotedMessageIsNotFilled) {
  Harness h = mad_harness([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "affirmative") return "I write {ROUND} and {QUESTION} literally.\nAnswer: B";
    if (r.note.turn == "negative") return reply("A");
    return verdict("Yes", "Affirmative", "B");
  });
  h.run("mad");
  EXPECT_NE(prompt_of(request(h, "negative", 1)).find("I write {ROUND} and {QUESTION} literally."), std::string::npos);
}

TEST(Mad, UnknownPlaceholdersAreRejectedByTheParameterCheck) {
  const ProtocolInfo* info = find_protocol("mad");
  ASSERT_NE(info, nullptr);
  int templates = 0, openings = 0;
  for (const auto& spec : info->params) {
    if (spec.kind != ParamKind::kString) continue;
    ++templates;
    ASSERT_TRUE(spec.check) << spec.name;
    EXPECT_EQ(spec.check(spec.default_value), "") << spec.name;  // the defaults are valid
    EXPECT_EQ(spec.check(std::string(R"(Literal JSON {"Preference": "Yes"} and {QUESTION} are fine.)")), "");
    const std::string problem = spec.check(std::string("{QUESTION} {IMAGE} {Round} {NEG_ANSWER}"));
    EXPECT_NE(problem.find("unknown placeholder {IMAGE}, {NEG_ANSWER}"), std::string::npos) << problem;
    EXPECT_NE(problem.find("{OPTIONS2}"), std::string::npos) << problem;  // lists what mad fills
    // An opening is sent once, so it may use only what stays the same for the whole debate.
    const bool opening = spec.name.ends_with("_opening_prompt");
    openings += opening;
    const std::string varying = spec.check(std::string("{QUESTION} {ROUND} {TRANSCRIPT} {AFF_ANS}"));
    if (opening) {
      EXPECT_EQ(varying,
                "an opening is sent once, at the start of the role's conversation, so it may use only {QUESTION} "
                "{OPTIONS} {FORMAT} {TRANSCRIPT}, not {ROUND}, {AFF_ANS} (their values change during the debate: they "
                "belong in a turn template)");
    } else {
      EXPECT_EQ(varying, "") << spec.name;
    }
  }
  EXPECT_EQ(templates, 8);
  EXPECT_EQ(openings, 3);
}

TEST(Mad, OpenTasksTakeAnyAnswerOfTheirTypeAndCandidatesByValue) {
  Harness h = mad_harness([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "affirmative") return "Answer: 42";
    if (r.note.turn == "negative") return "Answer: 40";
    if (r.note.turn == "judge_mad") {
      return Json{{"Preference", "No"}, {"Supported Side", "Negative"}, {"Reason", "r"}, {"Debate Answer", 41}}.dump();
    }
    return Json{{"Reason", "r"}, {"Debate Answer", 42.0}}.dump();
  });
  auto task = std::make_shared<Task>();
  task->id = "n1";
  task->question = "What is six times seven?";
  task->answer_type = AnswerType::kNumber;
  task->answer = "42";
  h.task = task;
  const Transcript t = h.run("mad", {{"max_rounds", std::int64_t{1}}});
  EXPECT_EQ(t.final_answer, "42");
  EXPECT_TRUE(t.correct);
  const std::string& final_prompt = prompt_of(request(h, "judge_final", 1));
  const std::string& judge_opening = request(h, "judge_final", 1).messages.front().content;
  EXPECT_NE(judge_opening.find("Options:\n(no fixed options: the answer is a number)"), std::string::npos);
  EXPECT_NE(prompt_of(request(h, "judge_mad", 1)).find(R"("Debate Answer": <a number>})"), std::string::npos)
      << prompt_of(request(h, "judge_mad", 1));
  EXPECT_NE(final_prompt.find("Candidate answers proposed in the debate:\n42\n40\n41\n"), std::string::npos)
      << final_prompt;
}

Async<void> run_into(const Protocol& protocol, DebateSetup setup, Transcript* out) {
  *out = co_await run_debate(protocol, std::move(setup));
}

// Choice, numeric and free-text tasks for the simulator.
std::vector<std::shared_ptr<const Task>> simulator_tasks() {
  std::vector<std::shared_ptr<const Task>> tasks;
  for (int i = 0; i < 40; ++i) {
    auto task = std::make_shared<Task>();
    task->id = "mad-" + std::to_string(i);
    if (i % 4 == 2) {
      task->question = "A crate holds " + std::to_string(i) + " boxes of six apples each. How many apples are there?";
      task->answer_type = AnswerType::kNumber;
      task->answer = std::to_string(6 * i);
    } else if (i % 4 == 3) {
      task->question = "Which city is the capital of France, home of the Louvre museum?";
      task->answer_type = AnswerType::kText;
      task->answer = "Paris";
    } else {
      task->question = "Which planet is the largest in the solar system?";
      task->options = {"Mars", "Jupiter", "Venus", "Earth"};
      task->answer_type = AnswerType::kChoice;
      task->answer = option_letter(static_cast<std::size_t>(i % 4));
    }
    tasks.push_back(std::move(task));
  }
  return tasks;
}

TEST(Mad, OnTheSimulatorEveryDebateEndsWithValidVerdicts) {
  EventLoop loop;
  auto client = make_simulator_client(loop, default_simulator_params(), "default");
  ASSERT_TRUE(client.ok());
  const ProtocolInfo* info = find_protocol("mad");
  ProtocolParams params;
  for (const auto& spec : info->params) params.set(spec.name, spec.default_value);
  const auto mad = info->make(params);
  const auto tasks = simulator_tasks();
  std::vector<Transcript> transcripts(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    DebateSetup setup;
    setup.loop = &loop;
    setup.task = tasks[i];
    setup.protocol_label = "mad";
    setup.seed = 3;
    setup.params = &params;
    for (const char* name : {"a1", "a2"}) setup.agent_pool.push_back(Agent{name, client->get(), "sim", Sampling{}, ""});
    loop.spawn(run_into(*mad, std::move(setup), &transcripts[i]));
  }
  loop.run();

  int correct = 0, negative_disagreed = 0, settled = 0, finalised = 0;
  for (const Transcript& t : transcripts) {
    EXPECT_EQ(t.status, DebateStatus::kCompleted) << t.task_id << ": " << t.status_reason;
    EXPECT_TRUE(t.final_answer.has_value()) << t.task_id;
    correct += t.correct;
    for (const auto& v : events_of(t, "verdict")) EXPECT_FALSE(Json::parse(v.detail).contains("failed")) << t.task_id;
    const auto stops = events_of(t, "stop");
    ASSERT_EQ(stops.size(), 1u) << t.task_id;
    const std::string reason = Json::parse(stops[0].detail).at("reason");
    EXPECT_NE(reason, "judge_failed") << t.task_id;
    settled += reason == "preference";
    finalised += reason == "max_rounds";
    ASSERT_GE(t.messages.size(), 3u);
    negative_disagreed += t.messages[0].answer != t.messages[1].answer;  // round 1 (re-asks are rare)
  }
  const int n = static_cast<int>(transcripts.size());
  EXPECT_GT(negative_disagreed, n / 2);  // the negative argues against the affirmative most of the time
  EXPECT_GT(settled, n / 2);             // most debates end on a preference ...
  EXPECT_GT(correct, n / 2);
  std::cout << "mad on the simulator: " << correct << "/" << n << " correct, " << settled << " settled, " << finalised
            << " finalised, negative disagreed in round 1 in " << negative_disagreed << "\n";
}

}  // namespace
}  // namespace parley
