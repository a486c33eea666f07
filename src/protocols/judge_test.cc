// The judge panel on scripted replies: verdict parsing and mapping, identity masking,
// malformed verdicts and their re-asks, panel aggregation, and best-of-N drafts (Alg. I).
#include "parley/judge.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "protocol_harness.h"

namespace parley {
namespace {

using testing::Harness;
using testing::reply;
using Script = testing::ScriptedClient::Script;

const std::vector<JudgedResponse> kThree = {{"a1", "I think C. a2 is wrong.\nAnswer: C"},
                                            {"a2", "Jupiter is largest.\nAnswer: B"},
                                            {"a3", "Mars.\nAnswer: A"}};

// A judge that likes gold answers: Likert 5 for B, 2 otherwise; ranks B first; prefers B.
std::string gold_loving_verdict(const ChatRequest& r) {
  const auto& shown = r.note.shown;
  if (r.note.turn == "judge_score") return shown.at(0).answer == "B" ? R"({"score": 5})" : R"({"score": 2})";
  if (r.note.turn == "judge_rubric") return shown.at(0).answer == "B" ? R"({"score": 0.9})" : R"({"score": 0.3})";
  if (r.note.turn == "judge_compare") {
    for (const auto& s : shown)
      if (s.answer == "B") return R"({"winner": ")" + s.label + R"("})";
    return R"({"winner": "tie"})";
  }
  nlohmann::json ranking = nlohmann::json::array();
  for (const auto& s : shown)
    if (s.answer == "B") ranking.push_back(s.label);
  for (const auto& s : shown)
    if (s.answer != "B") ranking.push_back(s.label);
  return nlohmann::json{{"ranking", ranking}, {"reason", "B is right"}}.dump();
}

TEST(Judge, LikertScoreIsMappedToTheUnitInterval) {
  Harness h([](const ChatRequest& r) { return gold_loving_verdict(r); }, 1, 1);
  ScoreVerdict right, wrong;
  const Transcript t = h.run_with([&](Debate& d) -> Async<void> {
    Judge judge(d);
    right = co_await judge.score(kThree[1], 1);
    wrong = co_await judge.score(kThree[0], 1);
  });
  EXPECT_EQ(right.score, 1.0);   // (5 − 1) / 4
  EXPECT_EQ(wrong.score, 0.25);  // (2 − 1) / 4
  ASSERT_EQ(t.messages.size(), 2u);
  EXPECT_EQ(t.messages[0].role, "judge_score");
  EXPECT_EQ(t.messages[0].agent, "j1");
  EXPECT_EQ(t.messages[0].round, 1);
  EXPECT_GT(t.messages[0].prompt_tokens, 0);
  EXPECT_GT(t.messages[0].completion_tokens, 0);
  EXPECT_FALSE(t.messages[0].answer.has_value());  // a verdict is not an answer
  EXPECT_EQ(t.messages[0].shown, (std::vector<std::string>{"a2"}));
  EXPECT_EQ(h.client->requests[0].model, "jm");  // the judge's own model (cross-family)
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].kind, "judge");
  const auto detail = nlohmann::json::parse(t.events[0].detail);
  EXPECT_EQ(detail["mode"], "score");
  EXPECT_EQ(detail["result"], 1.0);
  EXPECT_EQ(detail["judges"][0]["shown"]["Response 1"], "a2");
}

TEST(Judge, ThePromptOpensWithWhatEveryCallSharesAndEndsWithTheResponses) {
  // Instructions, reply form and task first, the judged response last: two scorings in one
  // debate share everything up to the response (docs/architecture.md, "Prompt layout").
  Harness h([](const ChatRequest& r) { return gold_loving_verdict(r); }, 1, 1);
  h.run_with([&](Debate& d) -> Async<void> {
    Judge judge(d);
    co_await judge.score(kThree[1], 1);
    co_await judge.score(kThree[2], 1);
  });
  ASSERT_EQ(h.client->requests.size(), 2u);
  const std::string opening =
      "You are an impartial judge. Judge the response to the task below on its merits. Rate the response on a "
      "scale from 1 (wrong or irrelevant) to 5 (correct, well reasoned and relevant). Reply with only a JSON object "
      "of this form: {\"score\": <an integer from 1 to 5>, \"reason\": \"<text>\"}\n\nTask:\n"
      "Which planet is largest?\n\nA. Mars\nB. Jupiter\nC. Venus\nD. Earth\n\nResponse 1:\n```\n";
  EXPECT_EQ(h.client->requests[0].messages.back().content, opening + "Jupiter is largest.\nAnswer: B\n```");
  EXPECT_EQ(h.client->requests[1].messages.back().content, opening + "Mars.\nAnswer: A\n```");
}

TEST(Judge, RubricScoresAreTakenAsGiven) {
  Harness h([](const ChatRequest& r) { return gold_loving_verdict(r); }, 1, 1);
  h.judging.scale = JudgeScale::kRubric;
  ScoreVerdict v;
  h.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).score(kThree[1], 0); });
  EXPECT_EQ(v.score, 0.9);
}

TEST(Judge, MaskingHidesNamesAndShufflesOrderPerCall) {
  Harness h([](const ChatRequest& r) { return gold_loving_verdict(r); }, 1, 1);
  std::vector<RankVerdict> verdicts(6);
  h.run_with([&](Debate& d) -> Async<void> {
    for (int round = 0; round < 6; ++round) verdicts[round] = co_await Judge(d).rank(kThree, round);
  });
  std::set<std::string> first_shown;
  for (const auto& r : h.client->requests) {
    const std::string& prompt = r.messages.back().content;
    for (const char* name : {"a1", "a2", "a3"}) EXPECT_EQ(prompt.find(name), std::string::npos) << prompt;
    // a1's text mentions a2; it now names a2 by its label.
    std::string a2_label;
    for (const auto& s : r.note.shown)
      if (s.agent == "a2") a2_label = s.label;
    EXPECT_NE(prompt.find(a2_label + " is wrong"), std::string::npos) << prompt;
    first_shown.insert(r.note.shown[0].agent);
  }
  EXPECT_GT(first_shown.size(), 1u);  // the order changes between calls
  // Whatever the order, the verdict is mapped back to the right agents: a2 (B) first.
  for (const auto& v : verdicts) {
    ASSERT_FALSE(v.failed);
    EXPECT_EQ(v.order[0], 1u);
    EXPECT_EQ(v.position[1], 0.0);
  }
}

TEST(Judge, WithoutMaskingAgentsAreShownByNameInOrder) {
  Harness h([](const ChatRequest& r) { return gold_loving_verdict(r); }, 1, 1);
  h.judging.mask_identities = false;
  CompareVerdict v;
  h.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).compare(kThree[0], kThree[1], 1); });
  const auto& r = h.client->requests.at(0);
  EXPECT_EQ(r.note.shown[0].label, "a1");
  EXPECT_EQ(r.note.shown[1].label, "a2");
  EXPECT_LT(r.messages.back().content.str().find("a1:"), r.messages.back().content.str().find("a2:"));
  EXPECT_EQ(v.winner, 1u);
}

TEST(Judge, MalformedVerdictIsReaskedThenRecordedAsAFailure) {
  Harness h([](const ChatRequest&) { return std::string("A fine answer, I would say four out of five."); }, 1, 1);
  h.judging.reasks = 2;
  ScoreVerdict v;
  const Transcript t = h.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).score(kThree[1], 0); });
  EXPECT_FALSE(v.score.has_value());
  ASSERT_EQ(t.messages.size(), 3u);  // the call and two re-asks
  EXPECT_EQ(t.messages[1].role, "judge_score_reask");
  EXPECT_EQ(t.messages[2].role, "judge_score_reask");
  // The re-ask carries the reply and what was wrong with it.
  const auto& reask = h.client->requests[1].messages;
  ASSERT_EQ(reask.size(), 3u);
  EXPECT_EQ(reask[1].role, "assistant");
  EXPECT_NE(reask[2].content.str().find("no JSON object"), std::string::npos);
  EXPECT_NE(reask[2].content.str().find("\"score\": <an integer from 1 to 5>"), std::string::npos);
  bool failure_recorded = false;
  for (const auto& e : t.events) failure_recorded |= e.kind == "judge_failed" && e.detail.find("j1") == 0;
  EXPECT_TRUE(failure_recorded);
}

TEST(Judge, TheNumberOfReasksIsTheSetting) {
  for (const int reasks : {0, 1, 3}) {
    Harness h([](const ChatRequest&) { return std::string("Four out of five."); }, 1, 1);
    h.judging.reasks = reasks;
    ScoreVerdict v;
    const Transcript t = h.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).score(kThree[1], 0); });
    EXPECT_FALSE(v.score.has_value());
    EXPECT_EQ(t.messages.size(), static_cast<std::size_t>(1 + reasks)) << reasks;
  }
}

TEST(Judge, AReaskThatFixesTheVerdictIsUsed) {
  Harness h([](const ChatRequest& r) {
    return r.note.turn == "judge_score_reask" ? std::string(R"({"score": 4})") : std::string(R"({"score": 9})");
  }, 1, 1);
  ScoreVerdict v;
  const Transcript t = h.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).score(kThree[1], 0); });
  EXPECT_EQ(v.score, 0.75);
  EXPECT_EQ(t.messages.size(), 2u);
  EXPECT_NE(h.client->requests[1].messages[2].content.str().find("got 9"), std::string::npos);
}

TEST(Judge, PanelScoresAreAggregatedByMeanOrMedian) {
  const Script script = [](const ChatRequest& r) {
    return std::string(r.note.agent == "j1" ? R"({"score": 5})" : r.note.agent == "j2" ? R"({"score": 4})" : R"({"score": 1})");
  };
  Harness mean(script, 1, 3);
  ScoreVerdict by_mean, by_median;
  mean.run_with([&](Debate& d) -> Async<void> { by_mean = co_await Judge(d).score(kThree[1], 0); });
  EXPECT_EQ(by_mean.judge_scores, (std::vector<double>{1.0, 0.75, 0.0}));
  EXPECT_DOUBLE_EQ(*by_mean.score, 1.75 / 3);
  Harness median(script, 1, 3);
  median.judging.aggregation = JudgeAggregation::kMedian;
  median.run_with([&](Debate& d) -> Async<void> { by_median = co_await Judge(d).score(kThree[1], 0); });
  EXPECT_EQ(by_median.score, 0.75);
}

TEST(Judge, PanelComparisonIsAMajorityAndFailedJudgesAbstain) {
  // j1 and j2 prefer the B response, j3 the other one, j4 never gives a valid verdict.
  Harness h([](const ChatRequest& r) -> std::string {
    if (r.note.agent == "j4") return "no verdict";
    const bool contrarian = r.note.agent == "j3";
    for (const auto& s : r.note.shown)
      if ((s.answer == "B") != contrarian) return R"({"winner": ")" + s.label + R"("})";
    return "{}";
  }, 1, 4);
  CompareVerdict v;
  const Transcript t = h.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).compare(kThree[0], kThree[1], 2); });
  EXPECT_EQ(v.votes_first, 1);
  EXPECT_EQ(v.votes_second, 2);
  EXPECT_EQ(v.winner, 1u);
  EXPECT_FALSE(v.failed);
  int judge_calls = 0;
  for (const auto& m : t.messages) judge_calls += m.role.rfind("judge_compare", 0) == 0;
  EXPECT_EQ(judge_calls, 3 + 3);  // one call per judge, j4 re-asked twice
}

TEST(Judge, RankFailsOverToInputOrderWhenNoJudgeIsValid) {
  Harness h([](const ChatRequest&) { return std::string(R"({"ranking": ["Response 1"]})"); }, 1, 1);
  RankVerdict v;
  h.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).rank(kThree, 0); });
  EXPECT_TRUE(v.failed);
  EXPECT_EQ(v.order, (std::vector<std::size_t>{0, 1, 2}));
}

TEST(Judge, WithNoDebaterSeatedTheDefaultJudgeIsThePoolsFirstAgent) {
  Harness h([](const ChatRequest& r) { return gold_loving_verdict(r); }, 2, 0);
  h.run_with([&](Debate& d) -> Async<void> { co_await Judge(d).score(kThree[1], 0); });
  EXPECT_EQ(h.client->requests.at(0).note.agent, "a1");
}

TEST(Judge, MedianOfAnEvenPanelIsTheMeanOfTheMiddleTwo) {
  // Likert 5, 4, 1, 3 → 1, 0.75, 0, 0.5; sorted 0, 0.5, 0.75, 1 → (0.5 + 0.75) / 2.
  Harness h([](const ChatRequest& r) -> std::string {
    const std::string& j = r.note.agent;
    return j == "j1" ? R"({"score": 5})" : j == "j2" ? R"({"score": 4})" : j == "j3" ? R"({"score": 1})" : R"({"score": 3})";
  }, 1, 4);
  h.judging.aggregation = JudgeAggregation::kMedian;
  ScoreVerdict v;
  h.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).score(kThree[1], 0); });
  EXPECT_DOUBLE_EQ(*v.score, 0.625);
}

TEST(Judge, TheInstructionNamesTheScaleOfTheVerdict) {
  for (const JudgeScale scale : {JudgeScale::kLikert, JudgeScale::kRubric}) {
    Harness h([](const ChatRequest& r) { return gold_loving_verdict(r); }, 1, 1);
    h.judging.scale = scale;
    h.run_with([&](Debate& d) -> Async<void> { co_await Judge(d).score(kThree[1], 0); });
    const std::string& prompt = h.client->requests.at(0).messages.back().content;
    const bool likert = scale == JudgeScale::kLikert;
    EXPECT_EQ(prompt.find("from 1 (wrong or irrelevant) to 5") != std::string::npos, likert) << prompt;
    EXPECT_EQ(prompt.find("from 0 (wrong or irrelevant) to 1") != std::string::npos, !likert) << prompt;
  }
}

TEST(Judge, MaskingReplacesEveryMentionOfEveryName) {
  // Names mentioned twice, one inside a longer name and one as a prefix of a word: only whole
  // names are replaced, the text between them is kept once.
  const std::vector<JudgedResponse> two = {{"a1", "First a2 erred, then a2 agreed with a3#2 and a22.\nAnswer: C"},
                                           {"a2", "I side with a1.\nAnswer: B"}};
  Harness h([](const ChatRequest& r) { return gold_loving_verdict(r); }, 1, 1);
  h.run_with([&](Debate& d) -> Async<void> { co_await Judge(d).compare(two[0], two[1], 0); });
  const ChatRequest& r = h.client->requests.at(0);
  std::string a1_label, a2_label;
  for (const auto& s : r.note.shown) (s.agent == "a1" ? a1_label : a2_label) = s.label;
  const std::string& prompt = r.messages.back().content;
  EXPECT_NE(prompt.find("First " + a2_label + " erred, then " + a2_label + " agreed with a3#2 and a22.\nAnswer: C"),
            std::string::npos)
      << prompt;
  EXPECT_NE(prompt.find("I side with " + a1_label + ".\nAnswer: B"), std::string::npos) << prompt;
}

TEST(Judge, EachJudgedCandidateSetHasItsOwnSampleIndex) {
  // The sample index is keyed on what is judged, so a judge scoring two responses at a
  // positive temperature draws two independent samples, and the same judgment the same one.
  std::vector<int> samples;
  for (int run = 0; run < 2; ++run) {
    Harness h([](const ChatRequest& r) { return gold_loving_verdict(r); }, 1, 1);
    h.run_with([&](Debate& d) -> Async<void> {
      co_await Judge(d).score(kThree[0], 0);
      co_await Judge(d).score(kThree[1], 0);
    });
    for (const auto& r : h.client->requests) samples.push_back(r.note.sample);
  }
  ASSERT_EQ(samples.size(), 4u);
  EXPECT_NE(samples[0], samples[1]);
  EXPECT_EQ(samples[0], samples[2]);
  EXPECT_EQ(samples[1], samples[3]);
}

TEST(Judge, TheJudgeEventNamesEachJudgeAndWhyAFailedOneFailed) {
  Harness h([](const ChatRequest& r) -> std::string {
    return r.note.agent == "j2" ? "Both look fine to me." : R"({"winner": "tie", "reason": "same"})";
  }, 1, 2);
  CompareVerdict v;
  const Transcript t = h.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).compare(kThree[0], kThree[1], 0); });
  EXPECT_EQ(v.ties, 1);
  EXPECT_EQ(v.votes_first + v.votes_second, 0);
  EXPECT_FALSE(v.winner.has_value());
  EXPECT_FALSE(v.failed);
  nlohmann::json detail;
  std::string failed_detail;
  for (const auto& e : t.events) {
    if (e.kind == "judge") detail = nlohmann::json::parse(e.detail);
    if (e.kind == "judge_failed") failed_detail = e.detail;
  }
  ASSERT_EQ(detail["judges"].size(), 2u);
  EXPECT_EQ(detail["judges"][0]["judge"], "j1");
  EXPECT_EQ(detail["judges"][0]["verdict"], (nlohmann::json{{"winner", "tie"}}));  // the reason is not kept
  EXPECT_EQ(detail["judges"][1]["judge"], "j2");
  EXPECT_NE(detail["judges"][1]["failed"].get<std::string>().find("no JSON object"), std::string::npos);
  EXPECT_EQ(failed_detail.rfind("j2: ", 0), 0u) << failed_detail;
  EXPECT_NE(failed_detail.find("no JSON object"), std::string::npos) << failed_detail;
  EXPECT_TRUE(detail["result"].is_null());
}

TEST(Judge, ACompareNoJudgeAnsweredHasFailed) {
  Harness h([](const ChatRequest&) { return std::string("I cannot decide."); }, 1, 2);
  CompareVerdict v;
  h.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).compare(kThree[0], kThree[1], 0); });
  EXPECT_TRUE(v.failed);
  EXPECT_FALSE(v.winner.has_value());
}

TEST(Judge, PanelRankingOrdersByMeanPositionAndKeepsInputOrderOnTies) {
  // Unmasked, so labels are the agents' names. j1: a3 a1 a2; j2: a3 a2 a1; j3: a1 a3 a2.
  // Mean positions: a1 (1 + 2 + 0) / 3 = 1, a2 (2 + 1 + 2) / 3 = 5/3, a3 (0 + 0 + 1) / 3 = 1/3.
  // Without j3, a1 and a2 tie at 1.5 and keep their input order.
  const auto ranking_of = [](const ChatRequest& r) -> std::string {
    const std::string& j = r.note.agent;
    const char* order = j == "j1" ? R"(["a3", "a1", "a2"])" : j == "j2" ? R"(["a3", "a2", "a1"])" : R"(["a1", "a3", "a2"])";
    return std::string(R"({"ranking": )") + order + "}";
  };
  Harness three(ranking_of, 1, 3);
  three.judging.mask_identities = false;
  RankVerdict v;
  three.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).rank(kThree, 0); });
  ASSERT_FALSE(v.failed);
  ASSERT_EQ(v.position.size(), 3u);
  EXPECT_DOUBLE_EQ(v.position[0], 1.0);
  EXPECT_DOUBLE_EQ(v.position[1], 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(v.position[2], 1.0 / 3.0);
  EXPECT_EQ(v.order, (std::vector<std::size_t>{2, 0, 1}));

  Harness two(ranking_of, 1, 2);
  two.judging.mask_identities = false;
  two.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).rank(kThree, 0); });
  EXPECT_EQ(v.position, (std::vector<double>{1.5, 1.5, 0.0}));
  EXPECT_EQ(v.order, (std::vector<std::size_t>{2, 0, 1}));
  const std::vector<JudgedResponse> swapped = {kThree[1], kThree[0], kThree[2]};
  two.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).rank(swapped, 1); });
  EXPECT_EQ(v.order, (std::vector<std::size_t>{2, 0, 1}));  // a2 now comes first in the input
}

TEST(BestOfN, DraftsAtJitteredTemperaturesAndTheJudgesFavouriteIsKept) {
  // N = 2 around τ = 0.4: drafts at 0.325 and 0.475, Fig. 1's temperatures (Alg. I's 1-based
  // index would give 0.475 and 0.625; docs/protocols.md, "Best-of-N").
  Harness h([](const ChatRequest& r) -> std::string {
    if (r.note.turn.rfind("judge", 0) == 0) return gold_loving_verdict(r);
    return reply(r.sampling.temperature < 0.4 ? "C" : "B");
  }, 1, 1);
  h.pool[0].sampling.temperature = 0.4;
  h.best_of = 2;
  const Transcript t = h.run("single");
  std::vector<double> temperatures;
  for (const auto& r : h.client->requests)
    if (r.note.turn == "answer") temperatures.push_back(r.sampling.temperature);
  ASSERT_EQ(temperatures.size(), 2u);
  EXPECT_DOUBLE_EQ(temperatures[0], 0.325);
  EXPECT_DOUBLE_EQ(temperatures[1], 0.475);
  EXPECT_EQ(t.final_answer, "B");
  // Both drafts and both judge calls are in the transcript with their tokens.
  ASSERT_EQ(t.messages.size(), 4u);
  EXPECT_EQ(t.messages[0].role, "draft");
  EXPECT_EQ(t.messages[0].answer, "C");
  EXPECT_EQ(t.messages[1].role, "answer");
  EXPECT_EQ(t.messages[1].answer, "B");
  std::int64_t tokens = 0;
  for (const auto& m : t.messages) tokens += m.completion_tokens;
  EXPECT_EQ(t.completion_tokens(), tokens);
  bool event = false;
  for (const auto& e : t.events) event |= e.kind == "best_of" && e.detail.find("\"kept\":1") != std::string::npos;
  EXPECT_TRUE(event);
}

TEST(BestOfN, TheHighestScoredDraftIsKeptWhereverItComes) {
  // N = 3 around τ = 0.4: drafts at 0.25, 0.4 and 0.55; the first says B (scored 5 → 1.0), the
  // others C and D (scored 2 → 0.25). The first draft is kept, though later ones score above -2.
  Harness h([](const ChatRequest& r) -> std::string {
    if (r.note.turn.rfind("judge", 0) == 0) return gold_loving_verdict(r);
    return reply(r.sampling.temperature < 0.3 ? "B" : r.sampling.temperature < 0.5 ? "C" : "D");
  }, 1, 1);
  h.pool[0].sampling.temperature = 0.4;
  h.best_of = 3;
  const Transcript t = h.run("single");
  EXPECT_EQ(t.final_answer, "B");
  bool event = false;
  for (const auto& e : t.events)
    event |= e.kind == "best_of" && e.detail == R"({"agent":"a1","turn":"answer","scores":[1,0.25,0.25],"kept":0})";
  EXPECT_TRUE(event);
}

TEST(BestOfN, AnUnparsedDraftIsNeverKeptOverAParsedOne) {
  Harness h([](const ChatRequest& r) -> std::string {
    if (r.note.turn.rfind("judge", 0) == 0) return R"({"score": 5})";  // the judge likes everything
    return r.sampling.temperature < 0.7 ? std::string("no answer here") : reply("A");
  }, 1, 1);
  h.best_of = 2;
  const Transcript t = h.run("single", {}, std::nullopt, /*reask=*/0);
  EXPECT_EQ(t.final_answer, "A");
}

}  // namespace
}  // namespace parley
