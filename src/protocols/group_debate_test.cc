// group_debate on scripted replies: who saw which messages in which round (group-mates' full
// solutions; of other groups only their summaries or final answers, never a raw reply), where
// the summaries are written, how the agents are split, parameter validation and the final
// vote; then a whole debate on the simulator.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "llm/simulator_params.h"
#include "parley/simulator.h"
#include "protocol_harness.h"

namespace parley {
namespace {

using testing::Harness;

// A reply that names its author and round, so tests can tell where a raw reply went.
std::string raw_text(const std::string& agent, int round) {
  return "Reasoning of " + agent + " in round " + std::to_string(round) + ".";
}

// Group 1 holds B throughout; in group 2 a4 and a5 hold C, a6 holds B. Summaries end with an
// answer line of their own ("D"), which must neither be parsed nor vote.
std::string scripted(const ChatRequest& r) {
  if (r.note.turn == "summary")
    return "Group summary by " + r.note.agent + " in round " + std::to_string(r.note.round) + ".\nAnswer: D";
  const std::string letter = r.note.agent == "a4" || r.note.agent == "a5" ? "C" : "B";
  return raw_text(r.note.agent, r.note.round) + "\nAnswer: " + letter + "\nConfidence: 80%";
}

std::vector<std::string> names(const std::vector<PeerView>& shown) {
  std::vector<std::string> out;
  for (const auto& peer : shown) out.push_back(peer.agent);
  return out;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const ChatRequest& request_of(const Harness& h, const std::string& agent, int round,
                              const std::string& turn) {
  for (const auto& r : h.client->requests) {
    if (r.note.agent == agent && r.note.round == round && r.note.turn == turn) return r;
  }
  throw std::logic_error("no " + turn + " request of " + agent + " in round " + std::to_string(round));
}

// Group of each agent, from the requests: no message of any request may carry the raw reply of
// an agent from another group, in any round.
void expect_no_raw_reply_crosses_groups(const Harness& h, const std::map<std::string, int>& group_of,
                                        int last_round) {
  for (const auto& request : h.client->requests) {
    for (const auto& [other, group] : group_of) {
      if (group == group_of.at(request.note.agent)) continue;
      for (int round = 0; round <= last_round; ++round) {
        for (const auto& message : request.messages) {
          EXPECT_FALSE(contains(message.content, raw_text(other, round)))
              << request.note.agent << "'s " << request.note.turn << " in round " << request.note.round
              << " carries a raw reply of " << other;
        }
      }
    }
  }
}

TEST(GroupDebate, GroupMatesSeeFullSolutionsOtherGroupsOnlyTheirSummaries) {
  Harness h(scripted, 6);
  const Transcript t = h.run("group_debate", {{"random_groups", false}});  // groups a1-a3, a4-a6
  // 6 initial answers, 6 in-group revisions, 2 summaries, 6 revisions with the other group's summary.
  ASSERT_EQ(h.client->requests.size(), 20u);
  ASSERT_EQ(t.status, DebateStatus::kCompleted) << t.status_reason;

  // Stage 1: a2 reads its group-mates' initial solutions and nothing of group 2.
  const ChatRequest& a2_round1 = request_of(h, "a2", 1, "revise");
  EXPECT_EQ(names(a2_round1.note.shown), (std::vector<std::string>{"a1", "a3"}));
  const std::string& a2_prompt = a2_round1.messages.back().content;
  EXPECT_TRUE(contains(a2_prompt, raw_text("a1", 0)));
  EXPECT_TRUE(contains(a2_prompt, raw_text("a3", 0)));
  EXPECT_FALSE(contains(a2_prompt, "Group"));

  // End of stage 1: each group's first member summarises its group's latest solutions, in a
  // fresh context that holds only its own group.
  const ChatRequest& summary1 = request_of(h, "a1", 1, "summary");
  ASSERT_EQ(summary1.messages.size(), 1u);
  EXPECT_EQ(names(summary1.note.shown), (std::vector<std::string>{"a1", "a2", "a3"}));
  for (const char* member : {"a1", "a2", "a3"})
    EXPECT_TRUE(contains(summary1.messages[0].content, raw_text(member, 1)));
  // What every summary request shares comes first: the question, then the instruction; the
  // solutions last.
  const std::string& summary_prompt = summary1.messages[0].content;
  EXPECT_EQ(summary_prompt.rfind("Your group of agents is discussing this problem:\n\nWhich planet is largest?", 0), 0u);
  EXPECT_LT(summary_prompt.find("Be brief."), summary_prompt.find(raw_text("a1", 1)));
  const ChatRequest& summary2 = request_of(h, "a4", 1, "summary");
  EXPECT_EQ(names(summary2.note.shown), (std::vector<std::string>{"a4", "a5", "a6"}));
  EXPECT_EQ(summary2.note.shown[0].answer, "C");

  // Stage 2 opens with the other group's summary, then the group-mates' solutions.
  const ChatRequest& a5_round2 = request_of(h, "a5", 2, "revise");
  EXPECT_EQ(names(a5_round2.note.shown), (std::vector<std::string>{"a1", "a2", "a3", "a4", "a6"}));
  const std::string& a5_prompt = a5_round2.messages.back().content;
  EXPECT_TRUE(contains(a5_prompt, "Group summary by a1 in round 1."));
  EXPECT_FALSE(contains(a5_prompt, "Group summary by a4"));  // its own group's summary is not shown
  EXPECT_LT(a5_prompt.find("Group summary by a1"), a5_prompt.find(raw_text("a4", 1)));
  EXPECT_TRUE(contains(a5_prompt, raw_text("a6", 1)));
  expect_no_raw_reply_crosses_groups(h, {{"a1", 1}, {"a2", 1}, {"a3", 1}, {"a4", 2}, {"a5", 2}, {"a6", 2}},
                                     2);

  // A summary is no answer: not parsed, not re-asked, and the author keeps its own answer.
  EXPECT_EQ(request_of(h, "a1", 2, "revise").note.own_previous, "B");
  int summaries = 0;
  for (const auto& m : t.messages) {
    EXPECT_NE(m.role, "reask");
    if (m.role != "summary") continue;
    ++summaries;
    EXPECT_EQ(m.round, 1);
    EXPECT_FALSE(m.answer.has_value());
    EXPECT_FALSE(is_agent_answer_role(m.role));  // the answer-based metrics leave it out
    EXPECT_GT(m.completion_tokens, 0);
  }
  EXPECT_EQ(summaries, 2);

  // The final answer is the vote of all six agents' last answers (the summaries' "D" does not vote).
  EXPECT_EQ(t.final_answer, "B");
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].kind, "groups");
  EXPECT_EQ(t.events[0].detail, "group 1: a1, a2, a3; group 2: a4, a5, a6");
  EXPECT_EQ(t.events[1].kind, "vote");
  EXPECT_EQ(t.events[1].round, 2);
  EXPECT_EQ(t.events[1].detail, "4 of 6 for B");
}

TEST(GroupDebate, AnEmptySummaryIsAskedForOnceMore) {
  Harness h(
      [](const ChatRequest& r) {
        if (r.note.turn == "summary") return std::string("  \n");
        if (r.note.turn == "summary_reask") return "Group summary by " + r.note.agent + ", second try.";
        return scripted(r);
      },
      6);
  const Transcript t = h.run("group_debate", {{"random_groups", false}});
  int reasks = 0;
  for (const auto& m : t.messages) reasks += m.role == "summary_reask";
  EXPECT_EQ(reasks, 2);
  EXPECT_TRUE(
      contains(request_of(h, "a4", 2, "revise").messages.back().content, "Group summary by a1, second try."));
}

TEST(GroupDebate, AnswersExchangeShowsOtherGroupsOnlyTheirFinalAnswers) {
  Harness h(scripted, 6);
  const Transcript t =
      h.run("group_debate", {{"random_groups", false}, {"exchange", std::string("answers")}});
  ASSERT_EQ(h.client->requests.size(), 18u);  // no summary calls
  for (const auto& r : h.client->requests) EXPECT_NE(r.note.turn, "summary");
  const ChatRequest& a2_round2 = request_of(h, "a2", 2, "revise");
  EXPECT_EQ(names(a2_round2.note.shown), (std::vector<std::string>{"a4", "a5", "a6", "a1", "a3"}));
  EXPECT_EQ(a2_round2.note.shown[0].answer, "C");
  const std::string& prompt = a2_round2.messages.back().content;
  EXPECT_TRUE(
      contains(prompt, "a4 answered C (confidence 80%); a5 answered C (confidence 80%); a6 answered B"));
  expect_no_raw_reply_crosses_groups(h, {{"a1", 1}, {"a2", 1}, {"a3", 1}, {"a4", 2}, {"a5", 2}, {"a6", 2}},
                                     2);
  EXPECT_EQ(t.final_answer, "B");
}

// SVR-MAD §5's setting: five of six agreeing after round 1 end the debate before the groups
// exchange anything; without `consensus` (the GroupDebate paper's default) it goes on.
TEST(GroupDebate, EnoughAgentsAgreeingAfterARoundStopTheDebate) {
  const auto agree = [](const ChatRequest& r) -> std::string {
    if (r.note.turn == "summary") return "Summary.";
    return r.note.round >= 1 && r.note.agent != "a6" ? "Answer: B\nConfidence: 80%"
                                                     : "Answer: C\nConfidence: 60%";
  };
  Harness stops(agree, 6);
  const Transcript t = stops.run("group_debate", {{"random_groups", false}, {"consensus", std::int64_t{5}}});
  EXPECT_EQ(stops.client->requests.size(), 12u);  // round 0 and round 1, no summaries
  EXPECT_EQ(t.final_answer, "B");
  bool stopped = false;
  for (const auto& e : t.events) stopped |= e.kind == "stop" && contains(e.detail, "\"agreeing\":5");
  EXPECT_TRUE(stopped);

  Harness goes_on(agree, 6);
  goes_on.run("group_debate", {{"random_groups", false}});
  EXPECT_EQ(goes_on.client->requests.size(), 20u);  // 6 + 6 + 2 summaries + 6
}

TEST(GroupDebate, SummariesSitBetweenStagesAndOpenTheNextStage) {
  Harness h(scripted, 6);
  const Transcript t = h.run("group_debate", {{"random_groups", false},
                                              {"groups", std::string("2-2-2")},
                                              {"stages", std::int64_t{3}},
                                              {"rounds", std::int64_t{2}}});
  // 6 initial answers, 3 stages x 2 rounds x 6 revisions, 3 summaries after stages 1 and 2.
  ASSERT_EQ(h.client->requests.size(), 6u + 36u + 6u);
  std::map<int, std::set<std::string>> summary_authors;
  for (const auto& r : h.client->requests) {
    if (r.note.turn == "summary") summary_authors[r.note.round].insert(r.note.agent);
  }
  const std::set<std::string> first_members = {"a1", "a3", "a5"};
  EXPECT_EQ(summary_authors, (std::map<int, std::set<std::string>>{{2, first_members}, {4, first_members}}));

  for (int round = 1; round <= 6; ++round) {
    const ChatRequest& a1 = request_of(h, "a1", round, "revise");
    const bool opens_stage = round == 3 || round == 5;
    if (opens_stage) {
      EXPECT_EQ(names(a1.note.shown), (std::vector<std::string>{"a3", "a4", "a5", "a6", "a2"})) << round;
      const std::string& prompt = a1.messages.back().content;
      EXPECT_TRUE(contains(prompt, "Group summary by a3 in round " + std::to_string(round - 1)));
      EXPECT_TRUE(contains(prompt, "Group summary by a5 in round " + std::to_string(round - 1)));
      EXPECT_FALSE(contains(prompt, "Group summary by a1"));
    } else {
      EXPECT_EQ(names(a1.note.shown), (std::vector<std::string>{"a2"})) << round;
    }
  }
  // Later rounds of a stage keep the stage's opening briefing in the conversation.
  EXPECT_TRUE(
      contains(request_of(h, "a1", 4, "revise").messages[6].content, "Group summary by a3 in round 2"));
  expect_no_raw_reply_crosses_groups(h, {{"a1", 1}, {"a2", 1}, {"a3", 2}, {"a4", 2}, {"a5", 3}, {"a6", 3}},
                                     6);
  EXPECT_EQ(t.events.back().round, 6);
}

// The groups of one debate as agent sets, read from who saw whom in round 1.
std::set<std::set<std::string>> groups_seen_in_round1(const std::vector<ChatRequest>& requests) {
  std::set<std::set<std::string>> groups;
  for (const auto& r : requests) {
    if (r.note.round != 1 || r.note.turn != "revise") continue;
    std::set<std::string> group = {r.note.agent};
    for (const auto& peer : r.note.shown) group.insert(peer.agent);
    groups.insert(group);
  }
  return groups;
}

TEST(GroupDebate, RandomGroupsHaveTheConfiguredSizesAndDifferBetweenDebates) {
  std::set<std::set<std::set<std::string>>> splits;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    Harness h(scripted, 6);
    h.seed = seed;
    const Transcript t = h.run("group_debate", {{"groups", std::string("4-2")}});
    const auto groups = groups_seen_in_round1(h.client->requests);
    ASSERT_EQ(groups.size(), 2u) << "every member of a group sees the same group";
    std::multiset<std::size_t> sizes;
    for (const auto& group : groups) sizes.insert(group.size());
    EXPECT_EQ(sizes, (std::multiset<std::size_t>{2, 4}));
    // The summary's author is the first member the "groups" event lists.
    ASSERT_FALSE(t.events.empty());
    for (const auto& r : h.client->requests) {
      if (r.note.turn == "summary") {
        const std::string& detail = t.events.front().detail;
        EXPECT_TRUE(contains(detail, ": " + r.note.agent + ",")) << detail << " / " << r.note.agent;
      }
    }
    splits.insert(groups);
  }
  EXPECT_GT(splits.size(), 1u) << "the split should be drawn per debate";
}

TEST(GroupDebate, GroupsAndExchangeAreValidated) {
  const ProtocolInfo* info = find_protocol("group_debate");
  ASSERT_NE(info, nullptr);
  std::map<std::string, const ParamSpec*> spec;
  for (const auto& p : info->params) spec[p.name] = &p;
  const auto check = [&](const std::string& name, const std::string& value) {
    return spec.at(name)->check(ParamValue(value));
  };
  EXPECT_EQ(check("groups", "3-3"), "");
  EXPECT_EQ(check("groups", "2-2-2"), "");
  EXPECT_EQ(check("groups", "3-x"),
            "expected group sizes joined by '-', like \"3-3\" or \"2-2-2\"; got \"3-x\"");
  for (const char* malformed : {"", "3--3", "-3-3", "3-3-", "3,3", " 3-3", "+3-3"}) {
    EXPECT_TRUE(contains(check("groups", malformed), "expected group sizes")) << malformed;
  }
  EXPECT_EQ(check("groups", "3-1"), "\"3-1\" has a group of 1; every group needs at least 2 agents");
  EXPECT_EQ(check("groups", "3-0"), "\"3-0\" has a group of 0; every group needs at least 2 agents");
  EXPECT_EQ(check("groups", "6"), "\"6\" is one group; group_debate needs at least 2");
  EXPECT_EQ(check("groups", "40-40"), "\"40-40\" adds up to 80 agents; at most 64");
  EXPECT_EQ(check("exchange", "answers"), "");
  EXPECT_EQ(check("exchange", "gossip"), "expected summary or answers, got \"gossip\"");
}

TEST(GroupDebate, RunsOnTheSimulatorWithEveryAnswerParsed) {
  auto params = std::make_shared<SimulatorParams>(*default_simulator_params());
  params->format_error_rate = 0.0;  // no deliberate format errors: every reply must parse
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    Harness h([](const ChatRequest&) { return std::string(); }, 0);
    auto simulator = make_simulator_client(h.loop, params, "default");
    ASSERT_TRUE(simulator.ok()) << simulator.error().message;
    // One configured agent seated six times (a1#1 .. a1#6), as in an experiment file.
    h.pool = {Agent{"a1", simulator->get(), "sim", Sampling{}, ""}};
    h.seed = seed;
    const Transcript t = h.run("group_debate");
    ASSERT_EQ(t.status, DebateStatus::kCompleted) << t.status_reason;
    ASSERT_EQ(t.messages.size(), 20u);
    EXPECT_TRUE(t.final_answer.has_value());
    for (const auto& m : t.messages) {
      if (m.role == "summary") {
        // The simulator's summary names every summarised agent with its answer.
        ASSERT_EQ(m.shown.size(), 3u);
        for (const auto& member : m.shown) EXPECT_TRUE(contains(m.text, member + " concluded ")) << m.text;
        EXPECT_FALSE(m.answer.has_value());
      } else {
        EXPECT_TRUE(m.answer.has_value()) << m.agent << " round " << m.round << ": " << m.text;
        EXPECT_EQ(m.shown.size(), m.round == 0 ? 0u : m.round == 1 ? 2u : 5u);
      }
    }
  }
}

}  // namespace
}  // namespace parley
