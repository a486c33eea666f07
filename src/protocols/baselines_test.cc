// The SVR-MAD paper's debate baselines (App. A) on scripted replies: sid_et's skip decision on the
// single agent's min token log-likelihood and its all-to-all debate from that agent's answer;
// s2_mad's disagreeing-peers-only visibility; the shared consensus early stop (§5); NComm.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include "parley/metrics.h"
#include "parley/protocol.h"
#include "protocol_harness.h"

namespace parley {
namespace {

using testing::Harness;
using Json = nlohmann::json;

// Who answers what in which round: agent -> letter per round (the last one holds for later rounds).
using Plan = std::map<std::string, std::vector<std::string>>;

// A reply that names its author, so a prompt shows whose solutions it holds.
std::string signed_reply(const std::string& agent, const std::string& letter) {
  return "Reasoning of " + agent + ".\nAnswer: " + letter + "\nConfidence: 80%";
}

// Six agents a1..a6 answering by `plan`.
Harness six_agents(Plan plan) {
  return Harness(
      [plan = std::move(plan)](const ChatRequest& r) {
        const auto& letters = plan.at(r.note.agent);
        const auto round = static_cast<std::size_t>(r.note.round);
        return signed_reply(r.note.agent, letters[std::min(round, letters.size() - 1)]);
      },
      6);
}

// The single agent's reply has min token log-likelihood `min_logprob`; nobody else's has any.
void first_reply_logprob(Harness& h, double min_logprob) {
  h.client->logprobs = [min_logprob](const ChatRequest& r) -> std::optional<LogprobStats> {
    if (!r.sampling.logprobs) return std::nullopt;
    return LogprobStats{min_logprob, 1.5, 12};
  };
}

std::vector<EventRecord> events_of(const Transcript& t, const std::string& kind) {
  std::vector<EventRecord> out;
  for (const auto& e : t.events)
    if (e.kind == kind) out.push_back(e);
  return out;
}

int calls(const Harness& h, const std::string& agent, int round) {
  int n = 0;
  for (const auto& r : h.client->requests) n += r.note.agent == agent && r.note.round == round;
  return n;
}

int calls_in_round(const Harness& h, int round) {
  int n = 0;
  for (const auto& r : h.client->requests) n += r.note.round == round;
  return n;
}

const MessageRecord& message(const Transcript& t, const std::string& agent, int round) {
  for (const auto& m : t.messages)
    if (m.agent == agent && m.round == round) return m;
  throw std::runtime_error("no message of " + agent + " in round " + std::to_string(round));
}

const ChatRequest& request(const Harness& h, const std::string& agent, int round) {
  for (const auto& r : h.client->requests)
    if (r.note.agent == agent && r.note.round == round) return r;
  throw std::runtime_error("no request of " + agent + " in round " + std::to_string(round));
}

std::set<std::string> shown_set(const MessageRecord& m) { return {m.shown.begin(), m.shown.end()}; }

// ---- sid_et ----------------------------------------------------------------------------------

TEST(SidEtProtocol, KeepsTheSingleAnswerAboveTheThreshold) {
  Harness h =
      six_agents({{"a1", {"C"}}, {"a2", {"B"}}, {"a3", {"B"}}, {"a4", {"B"}}, {"a5", {"B"}}, {"a6", {"B"}}});
  first_reply_logprob(h, -0.99);  // above the default threshold −1: kept
  const Transcript t = h.run("sid_et");
  ASSERT_EQ(h.client->requests.size(), 1u);
  EXPECT_TRUE(h.client->requests[0].sampling.logprobs);
  EXPECT_EQ(h.client->requests[0].note.agent, "a1");
  EXPECT_EQ(t.final_answer, "C");
  ASSERT_EQ(t.messages.size(), 1u);
  EXPECT_DOUBLE_EQ(*t.messages[0].min_token_logprob, -0.99);
  const auto trigger = events_of(t, "trigger");
  ASSERT_EQ(trigger.size(), 1u);
  const Json detail = Json::parse(trigger[0].detail);
  EXPECT_EQ(detail["method"], "sid_et");
  EXPECT_EQ(detail["decision"], "skip");
  EXPECT_DOUBLE_EQ(detail["min_logprob"].get<double>(), -0.99);
  EXPECT_DOUBLE_EQ(detail["threshold"].get<double>(), -1.0);
  EXPECT_EQ(detail["single_answer"], "C");
  EXPECT_EQ(detail["single_correct"], false);
  EXPECT_TRUE(events_of(t, "vote").empty());
}

TEST(SidEtProtocol, AMinLogLikelihoodAtTheThresholdDebates) {
  Harness h =
      six_agents({{"a1", {"C"}}, {"a2", {"B"}}, {"a3", {"B"}}, {"a4", {"B"}}, {"a5", {"B"}}, {"a6", {"B"}}});
  first_reply_logprob(h, -1.0);  // exactly the default threshold: not above it
  const Transcript t = h.run("sid_et");
  EXPECT_EQ(Json::parse(events_of(t, "trigger")[0].detail)["decision"], "debate");
  EXPECT_EQ(calls_in_round(h, 0), 6);
}

// threshold: 0 debates every unit (tune-sid-et needs that run), even a reply whose every token
// had probability 1 (a server reports log-probability 0 for such tokens): min-LL 0 is not above 0.
TEST(SidEtProtocol, ThresholdZeroDebatesEvenACertainReply) {
  Harness h =
      six_agents({{"a1", {"B"}}, {"a2", {"B"}}, {"a3", {"B"}}, {"a4", {"B"}}, {"a5", {"B"}}, {"a6", {"C"}}});
  first_reply_logprob(h, 0.0);
  const Transcript t = h.run("sid_et", {{"threshold", 0.0}});
  EXPECT_EQ(Json::parse(events_of(t, "trigger")[0].detail)["decision"], "debate");
  EXPECT_EQ(calls_in_round(h, 0), 6);
  EXPECT_EQ(calls_in_round(h, 1), 6);
}

TEST(SidEtProtocol, KeepsTheSingleAnswerAboveATunedThreshold) {
  Harness h =
      six_agents({{"a1", {"B"}}, {"a2", {"C"}}, {"a3", {"C"}}, {"a4", {"C"}}, {"a5", {"C"}}, {"a6", {"C"}}});
  first_reply_logprob(h, -2.9);
  const Transcript t = h.run("sid_et", {{"threshold", -3.0}});
  EXPECT_EQ(h.client->requests.size(), 1u);
  EXPECT_EQ(t.final_answer, "B");
  EXPECT_EQ(Json::parse(events_of(t, "trigger")[0].detail)["decision"], "skip");
}

TEST(SidEtProtocol, BelowTheThresholdDebatesFromTheSingleAnswerAndStopsOnConsensus) {
  // a1 answers C alone; after round 1 all six say B, so round 2 never happens.
  Harness h = six_agents({{"a1", {"C", "B"}},
                          {"a2", {"B"}},
                          {"a3", {"B"}},
                          {"a4", {"D", "B"}},
                          {"a5", {"B"}},
                          {"a6", {"C", "B"}}});
  first_reply_logprob(h, -1.01);
  const Transcript t = h.run("sid_et");
  EXPECT_EQ(Json::parse(events_of(t, "trigger")[0].detail)["decision"], "debate");
  // Seat 0's single answer is its round-0 turn: a1 is asked once in round 0, the other five once each.
  EXPECT_EQ(calls(h, "a1", 0), 1);
  EXPECT_EQ(calls_in_round(h, 0), 6);
  int logprob_requests = 0;
  for (const auto& r : h.client->requests) logprob_requests += r.sampling.logprobs;
  EXPECT_EQ(logprob_requests, 1);  // only the single agent's answer asks for them
  EXPECT_EQ(calls_in_round(h, 1), 6);
  EXPECT_EQ(calls_in_round(h, 2), 0);
  EXPECT_EQ(h.client->requests.size(), 12u);
  // All-to-all: every agent sees the five others, a1 its own first reply in its conversation.
  for (const char* agent : {"a1", "a2", "a3", "a4", "a5", "a6"}) {
    const MessageRecord& m = message(t, agent, 1);
    EXPECT_EQ(m.shown.size(), 5u) << agent;
    EXPECT_EQ(shown_set(m).count(agent), 0u) << agent;
  }
  const ChatRequest& a1 = request(h, "a1", 1);
  ASSERT_GE(a1.messages.size(), 3u);
  EXPECT_EQ(a1.messages[1].role, "assistant");
  EXPECT_EQ(a1.messages[1].content, signed_reply("a1", "C"));
  EXPECT_NE(request(h, "a2", 1).messages.back().content.str().find("Reasoning of a1."), std::string::npos);
  const auto stops = events_of(t, "stop");
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].round, 1);
  const Json stop = Json::parse(stops[0].detail);
  EXPECT_EQ(stop["reason"], "consensus");
  EXPECT_EQ(stop["round"], 1);
  EXPECT_EQ(stop["agreeing"], 6);
  const auto votes = events_of(t, "vote");
  ASSERT_EQ(votes.size(), 1u);
  EXPECT_EQ(votes[0].round, 1);
  EXPECT_EQ(t.final_answer, "B");
  EXPECT_TRUE(t.correct);
}

TEST(SidEtProtocol, RunsTheSecondRoundWithoutConsensus) {
  // After round 1: four B, two C (below five) -> round 2, then the vote of round 2.
  Harness h = six_agents({{"a1", {"C", "C", "B"}},
                          {"a2", {"B"}},
                          {"a3", {"B"}},
                          {"a4", {"D", "B"}},
                          {"a5", {"B"}},
                          {"a6", {"C", "C", "B"}}});
  first_reply_logprob(h, -4.0);
  const Transcript t = h.run("sid_et");
  EXPECT_EQ(calls_in_round(h, 0), 6);
  EXPECT_EQ(calls_in_round(h, 1), 6);
  EXPECT_EQ(calls_in_round(h, 2), 6);
  EXPECT_TRUE(events_of(t, "stop").empty());
  const auto votes = events_of(t, "vote");
  ASSERT_EQ(votes.size(), 1u);
  EXPECT_EQ(votes[0].round, 2);
  EXPECT_EQ(votes[0].detail, "6 of 6 for B");
  EXPECT_EQ(t.final_answer, "B");
}

TEST(SidEtProtocol, AReplyWithoutLogprobsDebates) {
  Harness h =
      six_agents({{"a1", {"B"}}, {"a2", {"B"}}, {"a3", {"B"}}, {"a4", {"B"}}, {"a5", {"B"}}, {"a6", {"C"}}});
  const Transcript t = h.run("sid_et");  // the scripted server returns no log-probabilities
  const Json detail = Json::parse(events_of(t, "trigger")[0].detail);
  EXPECT_EQ(detail["decision"], "debate");
  EXPECT_TRUE(detail["min_logprob"].is_null());
  EXPECT_TRUE(detail.contains("no_logprobs"));
  EXPECT_EQ(calls_in_round(h, 0), 6);
  EXPECT_EQ(calls_in_round(h, 1), 6);
  EXPECT_EQ(events_of(t, "stop").size(), 1u);  // five B after round 1
  EXPECT_EQ(t.final_answer, "B");
}

TEST(SidEtProtocol, UsesTheConfiguredSeatsRoundsAndConsensus) {
  Harness h =
      six_agents({{"a1", {"B"}}, {"a2", {"B"}}, {"a3", {"B"}}, {"a4", {"C"}}, {"a5", {"B"}}, {"a6", {"B"}}});
  first_reply_logprob(h, -5.0);
  const Transcript t = h.run(
      "sid_et", {{"agents", std::int64_t{4}}, {"rounds", std::int64_t{3}}, {"consensus", std::int64_t{0}}});
  EXPECT_EQ(calls_in_round(h, 0), 4);
  EXPECT_EQ(calls_in_round(h, 3), 4);  // consensus 0: never stops early
  EXPECT_TRUE(events_of(t, "stop").empty());
  EXPECT_EQ(calls(h, "a5", 0), 0);
}

// ---- s2_mad ----------------------------------------------------------------------------------

TEST(S2MadProtocol, ShowsEachAgentOnlyThePeersThatDisagreeAndCountsTheirTransfers) {
  // Round 0: B B B C C D. Round 1: a4 moves to B (four B: no consensus). Round 2: a5 moves to B.
  Harness h = six_agents({{"a1", {"B"}},
                          {"a2", {"B"}},
                          {"a3", {"B"}},
                          {"a4", {"C", "B"}},
                          {"a5", {"C", "C", "B"}},
                          {"a6", {"D"}}});
  const Transcript t = h.run("s2_mad");
  using Shown = std::set<std::string>;
  // Round 1: the B agents see C, C, D; the C agents see the three B and D; D sees everyone.
  for (const char* b : {"a1", "a2", "a3"})
    EXPECT_EQ(shown_set(message(t, b, 1)), (Shown{"a4", "a5", "a6"})) << b;
  EXPECT_EQ(shown_set(message(t, "a4", 1)), (Shown{"a1", "a2", "a3", "a6"}));
  EXPECT_EQ(shown_set(message(t, "a5", 1)), (Shown{"a1", "a2", "a3", "a6"}));
  EXPECT_EQ(shown_set(message(t, "a6", 1)), (Shown{"a1", "a2", "a3", "a4", "a5"}));
  // The prompts hold exactly the shown solutions.
  const std::string& a1_prompt = request(h, "a1", 1).messages.back().content;
  for (const char* peer : {"a4", "a5", "a6"})
    EXPECT_NE(a1_prompt.find(std::string("Reasoning of ") + peer + "."), std::string::npos) << peer;
  for (const char* peer : {"a2", "a3"})
    EXPECT_EQ(a1_prompt.find(std::string("Reasoning of ") + peer + "."), std::string::npos) << peer;
  const std::string& a4_prompt = request(h, "a4", 1).messages.back().content;
  EXPECT_EQ(a4_prompt.find("Reasoning of a5."), std::string::npos);
  EXPECT_NE(a4_prompt.find("Reasoning of a6."), std::string::npos);
  // Round 2 (B B B B C D): the B agents see a5 and a6, a5 the four B and a6, a6 everyone.
  for (const char* b : {"a1", "a2", "a3", "a4"})
    EXPECT_EQ(shown_set(message(t, b, 2)), (Shown{"a5", "a6"})) << b;
  EXPECT_EQ(shown_set(message(t, "a5", 2)), (Shown{"a1", "a2", "a3", "a4", "a6"}));
  EXPECT_EQ(shown_set(message(t, "a6", 2)), (Shown{"a1", "a2", "a3", "a4", "a5"}));
  EXPECT_EQ(h.client->requests.size(), 18u);
  EXPECT_TRUE(events_of(t, "stop").empty());  // four agreed after round 1
  EXPECT_EQ(events_of(t, "vote")[0].detail, "5 of 6 for B");
  EXPECT_EQ(t.final_answer, "B");
  // NComm by hand: round 1 3·3 + 4 + 4 + 5 = 22; round 2 4·2 + 5 + 5 = 18; round 0 none.
  EXPECT_EQ(communications(t), 40);
}

TEST(S2MadProtocol, StopsAfterRoundOneOnConsensus) {
  // Round 0: five B and one C; a6 comes round in round 1: six agree, no round 2.
  Harness h = six_agents(
      {{"a1", {"B"}}, {"a2", {"B"}}, {"a3", {"B"}}, {"a4", {"B"}}, {"a5", {"B"}}, {"a6", {"C", "B"}}});
  const Transcript t = h.run("s2_mad");
  EXPECT_EQ(calls_in_round(h, 1), 6);  // the five B each see a6, a6 sees the five
  for (const char* b : {"a1", "a2", "a3", "a4", "a5"}) EXPECT_EQ(message(t, b, 1).shown.size(), 1u) << b;
  EXPECT_EQ(message(t, "a6", 1).shown.size(), 5u);
  EXPECT_EQ(calls_in_round(h, 2), 0);
  const auto stops = events_of(t, "stop");
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(Json::parse(stops[0].detail), (Json{{"reason", "consensus"}, {"round", 1}, {"agreeing", 6}}));
  EXPECT_EQ(events_of(t, "vote")[0].round, 1);
  EXPECT_EQ(communications(t), 10);
  EXPECT_EQ(t.final_answer, "B");
}

TEST(S2MadProtocol, AgentsInFullAgreementMakeNoCall) {
  // Without the early stop, round 2 follows a unanimous round 1: nobody disagrees, nobody is asked.
  Harness h = six_agents(
      {{"a1", {"B"}}, {"a2", {"B"}}, {"a3", {"B"}}, {"a4", {"B"}}, {"a5", {"B"}}, {"a6", {"C", "B"}}});
  const Transcript t = h.run("s2_mad", {{"consensus", std::int64_t{0}}});
  EXPECT_EQ(calls_in_round(h, 1), 6);
  EXPECT_EQ(calls_in_round(h, 2), 0);
  EXPECT_TRUE(events_of(t, "stop").empty());
  const auto votes = events_of(t, "vote");
  ASSERT_EQ(votes.size(), 1u);
  EXPECT_EQ(votes[0].round, 2);
  EXPECT_EQ(votes[0].detail, "6 of 6 for B");
  EXPECT_EQ(communications(t), 10);
}

TEST(S2MadProtocol, UnanimousInitialAnswersAreNotDebated) {
  Harness h =
      six_agents({{"a1", {"D"}}, {"a2", {"D"}}, {"a3", {"D"}}, {"a4", {"D"}}, {"a5", {"D"}}, {"a6", {"D"}}});
  const Transcript t = h.run("s2_mad");
  EXPECT_EQ(h.client->requests.size(), 6u);
  EXPECT_EQ(t.final_answer, "D");
  EXPECT_EQ(communications(t), 0);
}

TEST(S2MadProtocol, AnUnparsedAnswerAgreesWithNoOne) {
  Harness h(
      [](const ChatRequest& r) -> std::string {
        if (r.note.agent == "a3" && r.note.round == 0) return "I cannot tell.";
        return signed_reply(r.note.agent, "B");
      },
      3);
  const Transcript t = h.run(
      "s2_mad", {{"agents", std::int64_t{3}}, {"consensus", std::int64_t{0}}, {"rounds", std::int64_t{1}}});
  EXPECT_EQ(shown_set(message(t, "a1", 1)), (std::set<std::string>{"a3"}));
  EXPECT_EQ(shown_set(message(t, "a3", 1)), (std::set<std::string>{"a1", "a2"}));
  EXPECT_EQ(t.final_answer, "B");
}

// ---- s2_mad, response-embedding variant (App. A (2)) ----------------------------------------

// Embeddings chosen by hand: a reply's vector is fixed by its author and its answer, so that the
// cosines are known: a1:B·a2:C = 0.95, a1:B·a3:B = 0.8, a2:C·a3:B ≈ 0.947, a4:D is orthogonal to
// a1:B and at 0.31 and 0.6 from a2:C and a3:B, and a4:B is a1:B's vector.
std::variant<std::vector<double>, CallError> hand_embedding(const std::string& text) {
  static const std::map<std::string, std::vector<double>> by_reply = {
      {"a1:B", {1.0, 0.0}}, {"a2:C", {0.95, 0.31224989991991997}}, {"a3:B", {0.8, 0.6}},
      {"a4:D", {0.0, 1.0}}, {"a4:B", {1.0, 0.0}}};
  const auto author = text.substr(std::string("Reasoning of ").size(), 2);
  const auto letter = text.substr(text.find("Answer: ") + 8, 1);
  return by_reply.at(author + ":" + letter);
}

TEST(S2MadProtocol, WithEmbeddingsShowsOnlyPeersWhoseRepliesAreDissimilar) {
  // Round 0: a1 B, a2 C, a3 B, a4 D; a4 moves to B in round 1, the others keep their replies.
  Harness h = Harness(
      [](const ChatRequest& r) {
        const std::string letter = r.note.agent == "a1" || r.note.agent == "a3" ? "B"
                                   : r.note.agent == "a2"                        ? "C"
                                   : r.note.round == 0                           ? "D"
                                                                                 : "B";
        return signed_reply(r.note.agent, letter);
      },
      4);
  h.client->embedding = hand_embedding;
  h.embedder = Embedder{"emb", h.client.get(), "embed-model"};
  const Transcript t = h.run("s2_mad", {{"agents", std::int64_t{4}}, {"consensus", std::int64_t{0}}});
  ASSERT_EQ(t.status, DebateStatus::kCompleted) << t.status_reason;
  using Shown = std::set<std::string>;
  // Round 1 at threshold 0.9: a1 ~ a2, a2 ~ a3; a4 is like no one. a2 and a1 answer differently
  // yet do not see each other: the embeddings decide, not the answers.
  EXPECT_EQ(shown_set(message(t, "a1", 1)), (Shown{"a3", "a4"}));
  EXPECT_EQ(shown_set(message(t, "a2", 1)), (Shown{"a4"}));
  EXPECT_EQ(shown_set(message(t, "a3", 1)), (Shown{"a1", "a4"}));
  EXPECT_EQ(shown_set(message(t, "a4", 1)), (Shown{"a1", "a2", "a3"}));
  // Round 2: a4 now writes a1's vector; a2 is like everyone and sits out.
  EXPECT_EQ(shown_set(message(t, "a1", 2)), (Shown{"a3"}));
  EXPECT_EQ(shown_set(message(t, "a3", 2)), (Shown{"a1", "a4"}));
  EXPECT_EQ(shown_set(message(t, "a4", 2)), (Shown{"a3"}));
  EXPECT_EQ(calls(h, "a2", 2), 0);
  // One embedding call per round, for the replies not embedded before: four, then a4's new one.
  ASSERT_EQ(h.client->embedding_requests.size(), 2u);
  EXPECT_EQ(h.client->embedding_requests[0].inputs.size(), 4u);
  EXPECT_EQ(h.client->embedding_requests[0].model, "embed-model");
  ASSERT_EQ(h.client->embedding_requests[1].inputs.size(), 1u);
  EXPECT_EQ(h.client->embedding_requests[1].inputs[0], signed_reply("a4", "B"));
  // The calls are in the transcript with their tokens, as no agent's turn and no communication.
  std::vector<const MessageRecord*> embeddings;
  for (const auto& m : t.messages)
    if (m.role == "embedding") embeddings.push_back(&m);
  ASSERT_EQ(embeddings.size(), 2u);
  EXPECT_EQ(embeddings[0]->agent, "emb");
  EXPECT_EQ(embeddings[0]->round, 1);
  EXPECT_EQ(embeddings[1]->round, 2);
  EXPECT_EQ(embeddings[1]->prompt_tokens, estimate_tokens(signed_reply("a4", "B")));
  EXPECT_EQ(embeddings[1]->text, "embedded 1 text(s): the latest replies of a4");
  EXPECT_FALSE(is_agent_answer_role("embedding"));
  // NComm by hand: round 1 2 + 1 + 2 + 3 = 8, round 2 1 + 2 + 1 = 4.
  EXPECT_EQ(communications(t), 12);
  // The cosines are recorded for each round.
  const auto similarity = events_of(t, "similarity");
  ASSERT_EQ(similarity.size(), 2u);
  const Json first = Json::parse(similarity[0].detail);
  EXPECT_DOUBLE_EQ(first["threshold"].get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(first["cosine"][0][1].get<double>(), 0.95);
  EXPECT_DOUBLE_EQ(first["cosine"][0][2].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(first["cosine"][3][3].get<double>(), 1.0);
  EXPECT_EQ(events_of(t, "vote")[0].detail, "3 of 4 for B");
}

TEST(S2MadProtocol, ASimilarityThresholdOfZeroMakesEveryoneAlike) {
  Harness h = six_agents({{"a1", {"B"}}, {"a2", {"C"}}, {"a3", {"D"}}, {"a4", {"A"}}, {"a5", {"B"}}, {"a6", {"C"}}});
  h.client->embedding = [](const std::string& text) -> std::variant<std::vector<double>, CallError> {
    return std::vector<double>{1.0, static_cast<double>(text.size() % 7)};
  };
  h.embedder = Embedder{"emb", h.client.get(), "embed-model"};
  const Transcript t = h.run("s2_mad", {{"similarity_threshold", 0.0}});
  EXPECT_EQ(calls_in_round(h, 1), 0);  // every cosine is positive here: nobody has anything to read
  EXPECT_EQ(communications(t), 0);
}

TEST(S2MadProtocol, AFailedEmbeddingCallEndsTheDebateWithItsReason) {
  Harness h = six_agents({{"a1", {"B"}}, {"a2", {"C"}}, {"a3", {"B"}}, {"a4", {"B"}}, {"a5", {"B"}}, {"a6", {"C"}}});
  h.client->embedding = [](const std::string&) -> std::variant<std::vector<double>, CallError> {
    return CallError{CallErrorKind::kHttpStatus, 404, "HTTP 404: no such model", 1};
  };
  h.embedder = Embedder{"emb", h.client.get(), "missing"};
  const Transcript t = h.run("s2_mad");
  EXPECT_EQ(t.status, DebateStatus::kFailed);
  EXPECT_NE(t.status_reason.find("embedding call (the latest replies of a1, a2, a3, a4, a5, a6) in round 1 failed"),
            std::string::npos)
      << t.status_reason;
  EXPECT_EQ(t.messages.back().role, "embedding");
  EXPECT_EQ(*t.messages.back().error, "http_status: HTTP 404: no such model");
  EXPECT_EQ(calls_in_round(h, 1), 0);
}

TEST(DebateEmbed, EmbeddingTokensCountAgainstTheBudget) {
  Harness h([](const ChatRequest&) { return testing::reply("B"); });
  h.client->embedding = [](const std::string&) -> std::variant<std::vector<double>, CallError> {
    return std::vector<double>{1.0, 0.0};
  };
  h.embedder = Embedder{"emb", h.client.get(), "embed-model"};
  const std::string text(40, 'x');  // 10 tokens used; 14 reserved (one per three bytes)
  std::optional<std::int64_t> left_after_one;
  std::string halted;
  Debate debate(h.setup("harness", /*budget=*/24));
  const std::vector<std::string> one = {text}, two = {text, text};
  auto body = [&]() -> Async<void> {
    co_await debate.embed(one, 1, "a text");
    left_after_one = debate.budget_remaining();
    try {
      co_await debate.embed(two, 1, "two texts");  // 28 reserved > 14 left
    } catch (const DebateHalt& halt) {
      halted = halt.reason;
    }
  };
  h.loop.spawn(body());
  h.loop.run();
  EXPECT_EQ(left_after_one, 14);
  EXPECT_EQ(halted, "token budget of 24 spent or reserved before embedding two texts in round 1");
  EXPECT_EQ(h.client->embedding_requests.size(), 1u);
}

TEST(DebateEmbed, AReservationOfExactlyWhatIsLeftIsAllowed) {
  Harness h([](const ChatRequest&) { return testing::reply("B"); });
  h.client->embedding = [](const std::string&) -> std::variant<std::vector<double>, CallError> {
    return std::vector<double>{1.0, 0.0};
  };
  h.embedder = Embedder{"emb", h.client.get(), "embed-model"};
  const std::vector<std::string> one = {std::string(40, 'x')};  // 14 reserved, 10 used
  Debate debate(h.setup("harness", /*budget=*/14));
  auto body = [&]() -> Async<void> { co_await debate.embed(one, 1, "a text"); };
  h.loop.spawn(body());
  h.loop.run();
  EXPECT_EQ(debate.budget_remaining(), 4);
  EXPECT_EQ(h.client->embedding_requests.size(), 1u);
}

// ---- debate keeps its behaviour --------------------------------------------------------------

TEST(RoundMachinery, DebateNeverStopsEarly) {
  Harness h([](const ChatRequest& r) { return signed_reply(r.note.agent, "B"); }, 3);
  const Transcript t = h.run("debate");
  EXPECT_EQ(calls_in_round(h, 2), 3);
  EXPECT_TRUE(events_of(t, "stop").empty());
}

}  // namespace
}  // namespace parley
