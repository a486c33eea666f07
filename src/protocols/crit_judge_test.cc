// MACI's CRIT panel (Judge::crit, App. E) on scripted replies: the masked prompt, the per-round
// order, the recomputed composite, re-asks and failures, the temperature, the annotations the
// simulator reads and the "judge" event; and once end to end on the simulator.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "parley/judge.h"
#include "parley/simulator.h"
#include "protocol_harness.h"

namespace parley {
namespace {

using testing::Harness;
using Json = nlohmann::json;

const std::vector<JudgedArgument> kArguments = {
    {"a1", "Jupiter is the largest planet.", "Its radius is eleven times Earth's; a2 confuses mass and size.",
     {{"doc1#s2", "Jupiter's equatorial radius is 71,492 km."}, {"doc3#s1", "Earth's radius is 6,371 km."}}, 0},
    {"a2", "Mars looks large in the night sky.", "Apparent size is what a1 ignores.", {}, 0},
    {"a1", "Saturn is smaller than Jupiter.", "Saturn's radius is 58,232 km, less than Jupiter's.",
     {{"doc2#s4", "Saturn's equatorial radius is 58,232 km."}}, 1},
};

// App. E.5's example scores, as JSON.
const std::string kExampleVerdict =
    R"({"evidence": 0.90, "logic": 0.85, "relevance": 1.00, "composite": 0.92, "justification": "cited"})";

// A verdict that identifies the argument it was given: evidence 0.1·(k + 1) for kArguments[k].
std::string verdict_naming_the_argument(const ChatRequest& r) {
  const std::string& prompt = r.messages.back().content;
  for (std::size_t k = 0; k < kArguments.size(); ++k) {
    if (prompt.find(kArguments[k].claim) != std::string::npos)
      return Json{{"evidence", 0.1 * static_cast<double>(k + 1)}, {"logic", 0.5}, {"relevance", 0.5}}.dump();
  }
  return "no argument";
}

std::vector<CritVerdict> run_crit(Harness& h, Transcript* transcript = nullptr, int round = 1,
                                  std::optional<double> temperature = std::nullopt) {
  std::vector<CritVerdict> verdicts;
  Transcript t = h.run_with([&](Debate& d) -> Async<void> {
    // (Not a ?: of two co_awaits: GCC 12 miscompiles that.)
    if (temperature) {
      verdicts = co_await Judge(d).crit(kArguments, round, *temperature);
    } else {
      verdicts = co_await Judge(d).crit(kArguments, round);
    }
  });
  if (transcript != nullptr) *transcript = std::move(t);
  return verdicts;
}

Json judge_event(const Transcript& t) {
  for (const auto& e : t.events)
    if (e.kind == "judge") return Json::parse(e.detail);
  return {};
}

TEST(CritJudge, ThePromptShowsOneArgumentWithItsSpansAndNoNames) {
  Harness h([](const ChatRequest&) { return kExampleVerdict; }, 1, 1);
  run_crit(h);
  ASSERT_EQ(h.client->requests.size(), 3u);
  const ChatRequest* first = nullptr;
  for (const auto& r : h.client->requests)
    if (r.note.shown.at(0).argument->index == 0 && r.note.shown[0].agent == "a1") first = &r;
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(first->messages.size(), 1u);
  EXPECT_EQ(first->messages[0].role, "user");
  EXPECT_EQ(first->messages[0].content,
            "You are an impartial judge of argument quality. Rate the argument below, made in a debate on the "
            "question, on three criteria, each a number from 0 (not at all) to 1 (fully): evidence support (its "
            "claims are backed by the evidence it cites), logical coherence (its reasoning is valid and free of "
            "contradictions) and query relevance (it directly addresses the question). Judge only what is shown. "
            "Reply with only a JSON object of this form: {\"evidence\": <a number from 0 to 1>, \"logic\": <a "
            "number from 0 to 1>, \"relevance\": <a number from 0 to 1>, \"composite\": <a number from 0 to 1>, "
            "\"justification\": \"<text>\"}\n\nQuestion:\nWhich planet is largest?\n\nA. Mars\nB. Jupiter\nC. "
            "Venus\nD. Earth\n\nArgument:\n```\nClaim: Jupiter is the largest planet.\nReasoning: Its radius is "
            "eleven times Earth's; another agent confuses mass and size.\nCited evidence:\n[doc1#s2] Jupiter's "
            "equatorial radius is 71,492 km.\n[doc3#s1] Earth's radius is 6,371 km.\n```");
  for (const auto& r : h.client->requests) {
    const std::string& prompt = r.messages.back().content;
    EXPECT_EQ(prompt.find("a1"), std::string::npos) << prompt;
    EXPECT_EQ(prompt.find("a2"), std::string::npos) << prompt;
    // The opponent's text is not shown: each prompt holds one argument.
    int claims = 0;
    for (const auto& a : kArguments) claims += prompt.find(a.claim) != std::string::npos;
    EXPECT_EQ(claims, 1) << prompt;
  }
}

TEST(CritJudge, TheAuthorIsNamedAsSuchAndEveryOtherDebaterAsAnotherAgent) {
  // a1 and a3 debated (answer turns) but wrote none of the arguments; a2's argument names them
  // and "a1#2", which is no agent of the debate.
  const std::vector<JudgedArgument> one = {{"a2", "B.", "a2 agrees with a3, unlike a1 and a1#2.", {}, 0}};
  Harness h([](const ChatRequest& r) {
    return r.note.turn == "judge_crit" ? kExampleVerdict : testing::reply("B");
  }, 3, 1);
  h.run_with([&](Debate& d) -> Async<void> {
    const std::vector<Agent> seated = d.agents(3);
    const std::vector<ChatMessage> question{ChatMessage{"user", "question"}};
    const TurnInfo answer;
    const Turn first = co_await d.ask(seated[0], question, answer);
    const Turn third = co_await d.ask(seated[2], question, answer);
    const std::vector<CritVerdict> verdicts = co_await Judge(d).crit(one, 1);
    EXPECT_TRUE(first.answer.value && third.answer.value && verdicts.size() == 1);
  });
  const std::string& prompt = h.client->requests.back().messages.back().content;
  EXPECT_NE(prompt.find("Reasoning: the author agrees with another agent, unlike another agent and a1#2."),
            std::string::npos)
      << prompt;
}

TEST(CritJudge, ANameThatContainsAnotherIsMaskedWhole) {
  // "llama3" is a whole word inside "llama3.1" ('.' ends a name): the longer name goes first.
  const std::vector<JudgedArgument> two = {{"llama3.1", "B.", "llama3.1 and llama3 agree.", {}, 0},
                                           {"llama3", "B.", "So do I.", {}, 0}};
  Harness h([](const ChatRequest&) { return kExampleVerdict; }, 1, 1);
  h.run_with([&](Debate& d) -> Async<void> {
    const std::vector<CritVerdict> verdicts = co_await Judge(d).crit(two, 1);
    EXPECT_EQ(verdicts.size(), 2u);
  });
  for (const auto& r : h.client->requests) {
    if (r.note.shown[0].agent != "llama3.1") continue;
    EXPECT_NE(r.messages.back().content.str().find("Reasoning: the author and another agent agree."), std::string::npos)
        << r.messages.back().content;
  }
}

TEST(CritJudge, AnArgumentWithoutSpansSaysSo) {
  Harness h([](const ChatRequest&) { return kExampleVerdict; }, 1, 1);
  run_crit(h);
  for (const auto& r : h.client->requests) {
    if (r.note.shown[0].agent != "a2") continue;
    EXPECT_NE(r.messages.back().content.str().find("Cited evidence: none\n```"), std::string::npos);
  }
}

TEST(CritJudge, TheCompositeIsRecomputedFromTheSubScores) {
  // App. E.5: 0.90 / 0.85 / 1.00 → 0.916667, not the judge's own 0.92.
  Harness h([](const ChatRequest&) { return kExampleVerdict; }, 1, 2);
  const std::vector<CritVerdict> v = run_crit(h);
  ASSERT_EQ(v.size(), 3u);
  for (const auto& verdict : v) {
    ASSERT_EQ(verdict.composites.size(), 2u);
    ASSERT_EQ(verdict.scores.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
      ASSERT_TRUE(verdict.composites[k].has_value());
      EXPECT_NEAR(*verdict.composites[k], 0.916666667, 1e-9);
      EXPECT_EQ(verdict.scores[k]->evidence_support, 0.90);
      EXPECT_EQ(verdict.scores[k]->logical_coherence, 0.85);
      EXPECT_EQ(verdict.scores[k]->query_relevance, 1.00);
    }
  }
}

TEST(CritJudge, EachJudgeMeetsTheArgumentsInAnOrderShuffledPerRoundAndVerdictsKeepInputOrder) {
  std::set<std::vector<std::size_t>> orders;
  for (int round = 1; round <= 8; ++round) {
    Harness h(verdict_naming_the_argument, 1, 1);
    const std::vector<CritVerdict> v = run_crit(h, nullptr, round);
    std::vector<std::size_t> order;
    for (const auto& r : h.client->requests) {
      for (std::size_t k = 0; k < kArguments.size(); ++k)
        if (r.messages.back().content.str().find(kArguments[k].claim) != std::string::npos) order.push_back(k);
    }
    orders.insert(order);
    ASSERT_EQ(v.size(), 3u);
    for (std::size_t k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ(v[k].scores[0]->evidence_support, 0.1 * (k + 1.0));
  }
  EXPECT_GT(orders.size(), 2u);
  // Within a round every judge has its own order, and the same seed gives the same orders.
  auto orders_of_panel = [] {
    Harness h(verdict_naming_the_argument, 1, 3);
    run_crit(h);
    std::vector<std::string> judges;
    for (const auto& r : h.client->requests) judges.push_back(r.note.agent + r.note.shown[0].agent + std::to_string(r.note.shown[0].argument->index));
    return judges;
  };
  EXPECT_EQ(orders_of_panel(), orders_of_panel());
}

TEST(CritJudge, WithoutMaskingNamesStayAndTheOrderIsTheInputOrder) {
  Harness h(verdict_naming_the_argument, 1, 1);
  h.judging.mask_identities = false;
  run_crit(h);
  ASSERT_EQ(h.client->requests.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k)
    EXPECT_NE(h.client->requests[k].messages.back().content.str().find(kArguments[k].justification), std::string::npos);
}

TEST(CritJudge, AMalformedVerdictIsReaskedThenRecordedAsAFailure) {
  Harness h([](const ChatRequest& r) -> std::string {
    return r.note.agent == "j2" ? "Solid argument, I'd say 0.9 overall." : kExampleVerdict;
  }, 1, 3);
  h.judging.reasks = 2;
  Transcript t;
  const std::vector<CritVerdict> v = run_crit(h, &t);
  for (const auto& verdict : v) {
    EXPECT_TRUE(verdict.composites[0].has_value());
    EXPECT_FALSE(verdict.composites[1].has_value());
    EXPECT_FALSE(verdict.scores[1].has_value());
    EXPECT_TRUE(verdict.composites[2].has_value());
  }
  int j2_calls = 0, reasks = 0, failures = 0;
  for (const auto& m : t.messages) {
    j2_calls += m.agent == "j2";
    reasks += m.role == "judge_crit_reask";
  }
  EXPECT_EQ(j2_calls, 9);  // three arguments, each asked and re-asked twice
  EXPECT_EQ(reasks, 6);
  // A re-ask continues the call with the reply, what was wrong with it and the reply's form.
  for (const auto& r : h.client->requests) {
    if (r.note.turn != "judge_crit_reask") continue;
    ASSERT_GE(r.messages.size(), 3u);
    EXPECT_EQ(r.messages[1].role, "assistant");
    const std::string& last = r.messages.back().content;
    EXPECT_NE(last.find("no JSON object"), std::string::npos) << last;
    EXPECT_NE(last.find("Reply with only a JSON object of this form: {\"evidence\": <a number from 0 to 1>"),
              std::string::npos)
        << last;
  }
  for (const auto& e : t.events) {
    if (e.kind != "judge_failed") continue;
    ++failures;
    EXPECT_EQ(e.detail.rfind("j2: argument ", 0), 0u) << e.detail;
    EXPECT_NE(e.detail.find("no JSON object"), std::string::npos) << e.detail;
  }
  EXPECT_EQ(failures, 3);
  const Json detail = judge_event(t);
  EXPECT_NE(detail["arguments"][0]["judges"][1]["failed"].get<std::string>().find("no JSON object"), std::string::npos);
  EXPECT_FALSE(detail["arguments"][0]["judges"][1].contains("composite"));
}

TEST(CritJudge, AnOutOfRangeSubScoreIsReaskedAndTheFixedVerdictUsed) {
  Harness h([](const ChatRequest& r) -> std::string {
    return r.note.turn == "judge_crit" ? R"({"evidence": 90, "logic": 0.5, "relevance": 0.5})"
                                       : R"({"evidence": 0.3, "logic": 0.6, "relevance": 0.9})";
  }, 1, 1);
  const std::vector<CritVerdict> v = run_crit(h);
  ASSERT_TRUE(v[0].composites[0].has_value());
  EXPECT_NEAR(*v[0].composites[0], 0.6, 1e-12);
  EXPECT_EQ(h.client->requests.size(), 6u);
}

TEST(CritJudge, AVerdictMissingASubScoreIsReasked) {
  for (const char* missing : {"evidence", "logic", "relevance"}) {
    Harness h([missing](const ChatRequest& r) -> std::string {
      Json verdict{{"evidence", 0.3}, {"logic", 0.6}, {"relevance", 0.9}};
      if (r.note.turn == "judge_crit") verdict.erase(missing);
      return verdict.dump();
    }, 1, 1);
    const std::vector<CritVerdict> v = run_crit(h);
    ASSERT_TRUE(v[0].composites[0].has_value()) << missing;
    EXPECT_NEAR(*v[0].composites[0], 0.6, 1e-12);
    EXPECT_EQ(h.client->requests.size(), 6u) << missing;
  }
}

TEST(CritJudge, TheNumberOfReasksIsTheSetting) {
  Harness h([](const ChatRequest&) { return std::string("Quite good."); }, 1, 1);
  h.judging.reasks = 1;
  const std::vector<CritVerdict> v = run_crit(h);
  EXPECT_FALSE(v[0].composites[0].has_value());
  EXPECT_EQ(h.client->requests.size(), 6u);  // three arguments, one re-ask each
}

TEST(CritJudge, JudgesAreAskedAtTemperaturePointThreeUnlessTold) {
  Harness h([](const ChatRequest&) { return kExampleVerdict; }, 1, 2);
  run_crit(h);
  for (const auto& r : h.client->requests) EXPECT_EQ(r.sampling.temperature, 0.3);
  Harness other([](const ChatRequest&) { return kExampleVerdict; }, 1, 1);
  run_crit(other, nullptr, 1, 0.0);
  for (const auto& r : other.client->requests) EXPECT_EQ(r.sampling.temperature, 0.0);
}

TEST(CritJudge, TheRequestNamesTheArgumentForTheSimulator) {
  Harness h([](const ChatRequest&) { return kExampleVerdict; }, 1, 1);
  run_crit(h, nullptr, 4);
  std::set<int> samples;
  std::set<std::pair<std::string, int>> seen;
  for (const auto& r : h.client->requests) {
    EXPECT_EQ(r.note.turn, "judge_crit");
    EXPECT_EQ(r.note.round, 4);
    ASSERT_EQ(r.note.shown.size(), 1u);
    EXPECT_EQ(r.note.shown[0].label, "Argument");
    ASSERT_TRUE(r.note.shown[0].argument.has_value());
    EXPECT_EQ(r.note.shown[0].argument->round, 4);
    seen.insert({r.note.shown[0].agent, r.note.shown[0].argument->index});
    samples.insert(r.note.sample);
  }
  EXPECT_EQ(seen, (std::set<std::pair<std::string, int>>{{"a1", 0}, {"a2", 0}, {"a1", 1}}));
  EXPECT_EQ(samples.size(), 3u);  // each argument its own sample index
}

TEST(CritJudge, TheJudgeEventHoldsEachJudgesSubScoresAndCompositePerArgument) {
  Harness h([](const ChatRequest& r) -> std::string {
    if (r.note.agent == "j1") return kExampleVerdict;
    return R"({"evidence": 0.2, "logic": 0.4, "relevance": 0.9})";
  }, 1, 2);
  Transcript t;
  run_crit(h, &t, 2);
  int judge_events = 0;
  for (const auto& e : t.events) {
    if (e.kind != "judge") continue;
    ++judge_events;
    EXPECT_EQ(e.round, 2);
  }
  EXPECT_EQ(judge_events, 1);
  const Json detail = judge_event(t);
  EXPECT_EQ(detail["mode"], "crit");
  EXPECT_EQ(detail["temperature"], 0.3);
  ASSERT_EQ(detail["arguments"].size(), 3u);
  EXPECT_EQ(detail["arguments"][1]["agent"], "a2");
  EXPECT_EQ(detail["arguments"][2]["index"], 1);
  const Json& j1 = detail["arguments"][0]["judges"][0];
  EXPECT_EQ(j1["judge"], "j1");
  EXPECT_EQ(j1["evidence"], 0.90);
  EXPECT_EQ(j1["logic"], 0.85);
  EXPECT_EQ(j1["relevance"], 1.00);
  EXPECT_NEAR(j1["composite"].get<double>(), 0.916666667, 1e-9);
  EXPECT_EQ(j1["stated_composite"], 0.92);
  const Json& j2 = detail["arguments"][0]["judges"][1];
  EXPECT_EQ(j2["judge"], "j2");
  EXPECT_NEAR(j2["composite"].get<double>(), 0.5, 1e-12);
  EXPECT_FALSE(j2.contains("stated_composite"));
  // Where each judge met each argument: a permutation of 0..2 per judge.
  for (std::size_t k = 0; k < 2; ++k) {
    std::set<int> at;
    for (const auto& a : detail["arguments"]) at.insert(a["judges"][k]["shown_at"].get<int>());
    EXPECT_EQ(at, (std::set<int>{0, 1, 2}));
  }
}

TEST(CritJudge, NoArgumentsMeanNoCalls) {
  Harness h([](const ChatRequest&) { return kExampleVerdict; }, 1, 2);
  std::vector<CritVerdict> v{CritVerdict{}};
  const Transcript t = h.run_with([&](Debate& d) -> Async<void> { v = co_await Judge(d).crit({}, 1); });
  EXPECT_TRUE(v.empty());
  EXPECT_TRUE(h.client->requests.empty());
  EXPECT_EQ(judge_event(t)["arguments"], Json::array());
}

TEST(CritJudge, TheSimulatorAnswersEveryCritRequestDeterministically) {
  auto scores = [] {
    Harness h([](const ChatRequest&) { return std::string(); }, 1, 0);
    auto client = make_simulator_client(h.loop, default_simulator_params(), "default");
    EXPECT_TRUE(client.ok());
    for (const char* name : {"j1", "j2", "j3"})
      h.judges.push_back(Agent{name, client.value().get(), name[1] == '1' ? "family-a" : "family-b", Sampling{}, ""});
    const std::vector<CritVerdict> v = run_crit(h);
    std::vector<double> out;
    for (const auto& verdict : v)
      for (const auto& c : verdict.composites) out.push_back(c.value_or(-1.0));
    return out;
  };
  const std::vector<double> first = scores();
  ASSERT_EQ(first.size(), 9u);
  for (double c : first) {
    EXPECT_GE(c, 0.0);
    EXPECT_LE(c, 1.0);
  }
  EXPECT_EQ(first, scores());
}

}  // namespace
}  // namespace parley
