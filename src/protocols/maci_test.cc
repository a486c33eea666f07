// The protocol `maci` on scripted replies (Algorithm 1's control flow: retrieval, the single-pass
// beliefs and CL^(1), the prompts, admission at each gate, reliability weights, the stop, ψ and
// the plan) and end to end on the simulator. Expected values are worked by hand (Python, in
// the comments) from the paper's equations, not read from the controller.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "parley/evidence.h"
#include "parley/simulator.h"
#include "protocols/prompts.h"
#include "protocol_harness.h"

namespace parley {
namespace {

using testing::Harness;
using Json = nlohmann::json;

// The largest-planet task with two documents of its own.
std::shared_ptr<const Task> task_with_documents() {
  auto task = std::make_shared<Task>(*testing::choice_task());
  task->documents = {{"good", "Jupiter is the largest planet by radius."}, {"bad", "Venus has a thick atmosphere."}};
  return task;
}

// φ: the question (θ) along x; "good" at cos 0.8 to it, "bad" at cos 0.19996.
std::vector<double> scripted_embedding(const std::string& text) {
  if (text.find("Which planet") != std::string::npos) return {1.0, 0.0, 0.0};
  if (text.find("Jupiter is the largest") != std::string::npos) return {0.8, 0.6, 0.0};
  if (text.find("Venus has") != std::string::npos) return {0.2, 0.0, 0.98};
  return {0.0, 0.0, 1.0};
}

Json argument(const std::string& claim, std::vector<std::string> evidence) {
  return {{"claim", claim}, {"justification", "Because."}, {"evidence", evidence}};
}

// a1 holds B at 0.8 with a supported and an unsupported argument; a2 starts at A 0.6 and moves to
// B 0.7, arguing from the weak document and with an argument the judges rate low.
std::string agent_reply(const ChatRequest& r) {
  if (r.note.agent == "a1") {
    return Json{{"arguments", {argument("Jupiter is largest", {"good"}), argument("Unsupported claim", {"nowhere"})}},
                {"distribution", {{"B", 0.8}, {"A", 0.2}}},
                {"acquisition_plan", {{"tests", {"Compare radii"}}}}}
        .dump();
  }
  if (r.note.round == 0) return Json{{"arguments", {argument("Venus is bright", {"bad"})}}, {"distribution", {{"A", 0.6}, {"B", 0.4}}}}.dump();
  return Json{{"arguments", {argument("Venus is bright", {"bad"}), argument("Mars is red", {"good"})}},
              {"distribution", {{"B", 0.7}, {"A", 0.3}}},
              {"acquisition_plan", {{"tests", {"compare radii"}}}}}
      .dump();
}

// CRIT by claim: 0.9, 0.5 (a1's); 0.7, 0.1 (a2's).
std::string crit_reply(const ChatRequest& r) {
  const std::string& prompt = r.messages.back().content.str();
  double score = 0.9;
  if (prompt.find("Unsupported claim") != std::string::npos) score = 0.5;
  if (prompt.find("Venus is bright") != std::string::npos) score = 0.7;
  if (prompt.find("Mars is red") != std::string::npos) score = 0.1;
  return Json{{"evidence", score}, {"logic", score}, {"relevance", score}}.dump();
}

struct MaciRun {
  Harness h;
  Transcript transcript;

  explicit MaciRun(std::map<std::string, ParamValue> params = {{"max_rounds", std::int64_t{2}}},
                   std::optional<std::int64_t> budget = std::nullopt)
      : h([](const ChatRequest& r) { return r.note.turn.starts_with("judge") ? crit_reply(r) : agent_reply(r); }, 2, 3) {
    h.task = task_with_documents();
    h.client->embedding = [](const std::string& text) { return scripted_embedding(text); };
    h.embedder = Embedder{"emb", h.client.get(), "e"};
    transcript = h.run("maci", std::move(params), budget);
  }

  std::vector<Json> events(const std::string& kind) const {
    std::vector<Json> out;
    for (const auto& e : transcript.events)
      if (e.kind == kind) out.push_back(Json::parse(e.detail));
    return out;
  }
  std::vector<const ChatRequest*> requests(const std::string& agent, const std::string& turn) const {
    std::vector<const ChatRequest*> out;
    for (const auto& r : h.client->requests)
      if (r.note.agent == agent && r.note.turn == turn) out.push_back(&r);
    return out;
  }
};

TEST(Maci, PreDebateRetrievesScoresTheEvidenceAndBinsTheFirstContentiousness) {
  MaciRun run;
  ASSERT_EQ(run.transcript.status, DebateStatus::kCompleted) << run.transcript.status_reason;
  const auto start = run.events("maci_start");
  ASSERT_EQ(start.size(), 1u);
  // Q_0 = cos(mean of the unit vectors of "good" and "bad", θ) = 0.656515; D_JS,0 of
  // (A .2, B .8) and (A .6, B .4) = 0.124511 bits (Python); 0.5 < Q_0 < 0.7 → CL^(1) = 0.8.
  EXPECT_NEAR(start[0]["evidence_quality"].get<double>(), 0.656514963613316, 1e-9);
  EXPECT_NEAR(start[0]["disagreement"].get<double>(), 0.12451124978365302, 1e-9);
  EXPECT_DOUBLE_EQ(start[0]["contentiousness"].get<double>(), 0.8);
  EXPECT_EQ(start[0]["encoder"], "model");
  ASSERT_EQ(start[0]["evidence"].size(), 2u);  // the task's own documents, in their order, never cut
  EXPECT_EQ(start[0]["evidence"][0]["id"], "good");
  EXPECT_NEAR(start[0]["evidence"][0]["similarity"].get<double>(), 0.8, 1e-12);
  EXPECT_EQ(start[0]["evidence"][1]["id"], "bad");
  EXPECT_TRUE(start[0]["quality_gate_off"].is_null());
  // The embeddings were two calls: the question, then the candidates.
  ASSERT_EQ(run.h.client->embedding_requests.size(), 2u);
  EXPECT_EQ(run.h.client->embedding_requests[0].note.turn, "embedding_query");
  EXPECT_EQ(run.h.client->embedding_requests[1].note.turn, "embedding_evidence");
  // Round 0's prompt: the rules and reply form, the question, the evidence with ids.
  const auto first = run.requests("a1", "maci_belief");
  ASSERT_EQ(first.size(), 1u);
  const std::string& opening = first[0]->messages.at(0).content;
  EXPECT_NE(opening.find("Reply with one JSON object"), std::string::npos);
  EXPECT_NE(opening.find("Which planet is largest?"), std::string::npos);
  EXPECT_NE(opening.find("[good] Jupiter is the largest planet by radius."), std::string::npos);
  EXPECT_LT(opening.find("Which planet"), opening.find("[good]"));
  ASSERT_TRUE(first[0]->note.evidence);
  EXPECT_EQ(first[0]->note.evidence->size(), 2u);
}

TEST(Maci, EachGateRejectsWhatItShouldAndOnlyAdmittedArgumentsEnterTheRecord) {
  MaciRun run;
  const auto rounds = run.events("maci_round");
  ASSERT_EQ(rounds.size(), 2u);
  const Json& args = rounds[0]["arguments"];
  ASSERT_EQ(args.size(), 4u);
  // a1's supported argument: q = 0.8 ≥ τ_Q 0.5, CRIT 0.9 ≥ 0.3.
  EXPECT_EQ(args[0]["claim"], "Jupiter is largest");
  EXPECT_NEAR(args[0]["evidence_score"].get<double>(), 0.8, 1e-12);
  EXPECT_NEAR(args[0]["crit"].get<double>(), 0.9, 1e-12);
  EXPECT_TRUE(args[0]["admitted"].get<bool>());
  // Its unsupported one cites an id that is not in the context: no q, rejected.
  EXPECT_TRUE(args[1]["evidence_score"].is_null());
  EXPECT_NEAR(args[1]["crit"].get<double>(), 0.5, 1e-12);
  EXPECT_EQ(args[1]["unresolved"], Json::array({"nowhere"}));
  EXPECT_FALSE(args[1]["admitted"].get<bool>());
  // a2's first fails the Q gate (0.19996) despite CRIT 0.7, its second the CRIT gate (0.1).
  EXPECT_NEAR(args[2]["evidence_score"].get<double>(), 0.19996001199600144, 1e-9);
  EXPECT_NEAR(args[2]["crit"].get<double>(), 0.7, 1e-12);
  EXPECT_FALSE(args[2]["admitted"].get<bool>());
  EXPECT_NEAR(args[3]["crit"].get<double>(), 0.1, 1e-12);
  EXPECT_FALSE(args[3]["admitted"].get<bool>());
  // Eq. (4) over every candidate argument, admitted or not (M-14): CRIT̄ a1 (0.9 + 0.5)/2 = 0.7,
  // a2 (0.7 + 0.1)/2 = 0.4; Γ = 0.8·0.5 + 0.2·CRIT̄: 0.54 and 0.48 (admitted-only would give 0.58
  // and an unchanged 0.5); ω ∝ Γ + ϵ.
  EXPECT_NEAR(rounds[0]["agents"][0]["reliability"].get<double>(), 0.54, 1e-12);
  EXPECT_NEAR(rounds[0]["agents"][1]["reliability"].get<double>(), 0.48, 1e-12);
  EXPECT_NEAR(rounds[0]["agents"][0]["weight"].get<double>(), 0.54 / 1.02, 1e-6);
  // The mixture: 0.529412·(.2, .8) + 0.470588·(.3, .7) → B 0.752941.
  EXPECT_EQ(rounds[0]["mixture"][0]["label"], "B");
  EXPECT_NEAR(rounds[0]["mixture"][0]["probability"].get<double>(), 0.8 * 0.54 / 1.02 + 0.7 * 0.48 / 1.02, 1e-6);
  // Eq. (3): a1 cited {good, nowhere}, a2 {bad, good}: 1/3.
  EXPECT_NEAR(rounds[0]["overlap"].get<double>(), 1.0 / 3.0, 1e-12);
  // ψ: a1's supported argument of each round.
  const auto final_event = run.events("maci_final");
  ASSERT_EQ(final_event.size(), 1u);
  ASSERT_EQ(final_event[0]["record"].size(), 2u);
  EXPECT_EQ(final_event[0]["record"][0]["claim"], "Jupiter is largest");
  EXPECT_EQ(final_event[0]["record"][1]["round"], 2);
}

TEST(Maci, TheTasksOwnDocumentsStayInTheContextWhateverTheBudget) {
  MaciRun run({{"max_rounds", std::int64_t{1}}, {"context_tokens", std::int64_t{1}}, {"retrieve", std::int64_t{0}}});
  ASSERT_EQ(run.transcript.status, DebateStatus::kCompleted) << run.transcript.status_reason;
  const auto start = run.events("maci_start");
  ASSERT_EQ(start.size(), 1u);
  ASSERT_EQ(start[0]["evidence"].size(), 2u);  // both, though neither fits one token
  EXPECT_EQ(start[0]["evidence"][0]["id"], "good");
  EXPECT_TRUE(start[0]["too_large"].empty());  // only corpus candidates are cut
}

TEST(Maci, RoundsShowTheDialsTheOpponentAndLastRoundsAdmissionsAppendOnly) {
  MaciRun run;
  const auto argue = run.requests("a1", "maci_argue");
  ASSERT_EQ(argue.size(), 2u);
  const std::string& round1 = argue[0]->messages.back().content;
  EXPECT_NE(round1.find("Round 1. Contentiousness CL = 0.8."), std::string::npos);
  EXPECT_NE(round1.find("τ_Q = 0.50"), std::string::npos);
  EXPECT_NE(round1.find("Your opponent's latest position:\na2: A 0.60; B 0.40"), std::string::npos);  // its round 0
  EXPECT_EQ(round1.find("Venus"), std::string::npos);  // round 0's arguments were never judged: not shown
  EXPECT_EQ(round1.find("Admitted to the record"), std::string::npos);
  EXPECT_EQ(argue[0]->note.contentiousness, 0.8);
  const std::string& round2 = argue[1]->messages.back().content;
  // The fixed schedule: 0.8 − 0.2.
  EXPECT_NE(round2.find("Round 2. Contentiousness CL = 0.6."), std::string::npos);
  EXPECT_NE(round2.find("Admitted to the record in round 1:\n- (a1) Jupiter is largest (Because.) [good]\n"),
            std::string::npos);
  // a2's arguments were both rejected: a1 is told how many, never what they said (Alg. 1 line 8).
  EXPECT_NE(round2.find("a2: B 0.70; A 0.30 (2 of its arguments not admitted)"), std::string::npos);
  EXPECT_EQ(round2.find("Venus is bright"), std::string::npos);
  EXPECT_EQ(round2.find("Mars is red"), std::string::npos);
  // a2 sees a1's admitted argument as a reference the simulator can score.
  const auto a2 = run.requests("a2", "maci_argue");
  ASSERT_EQ(a2.size(), 2u);
  bool shown = false;
  for (const auto& view : a2[1]->note.shown)
    shown = shown || (view.agent == "a1" && view.argument && view.argument->round == 1 && view.argument->index == 0);
  EXPECT_TRUE(shown);
  // Append-only: round 2's request begins with round 1's messages and a1's reply.
  ASSERT_EQ(argue[1]->messages.size(), argue[0]->messages.size() + 2);
  for (std::size_t i = 0; i < argue[0]->messages.size(); ++i)
    EXPECT_EQ(argue[1]->messages[i].content.str(), argue[0]->messages[i].content.str());
}

TEST(Maci, StopsAtTheRoundCapAndAnswersWithTheMixturesArgmaxAndAPlan) {
  MaciRun run;
  EXPECT_EQ(run.transcript.final_answer, "B");
  EXPECT_TRUE(run.transcript.correct);
  const auto final_event = run.events("maci_final");
  ASSERT_EQ(final_event.size(), 1u);
  EXPECT_EQ(final_event[0]["stop"], "round_cap");
  EXPECT_EQ(final_event[0]["rounds"], 2);
  EXPECT_EQ(final_event[0]["prediction"], "B");
  const Json& plan = final_event[0]["acquisition_plan"];
  ASSERT_EQ(plan["discriminating_tests"].size(), 1u);  // two hypotheses with mass: one pair
  EXPECT_EQ(plan["discriminating_tests"][0]["between"], Json::array({"B", "A"}));
  EXPECT_EQ(plan["discriminating_tests"][0]["retrieval_query"], "B vs A differential");
  // The two agents' "Compare radii" / "compare radii" are one item proposed by both.
  ASSERT_EQ(plan["proposed"].size(), 1u);
  EXPECT_EQ(plan["proposed"][0]["proposed_by"], Json::array({"a1", "a2"}));
  // 3 judges × 4 arguments × 2 rounds, one call each.
  int crit_calls = 0;
  for (const auto& r : run.h.client->requests) crit_calls += r.note.turn == "judge_crit";
  EXPECT_EQ(crit_calls, 24);
}

TEST(Maci, AHeldContentiousnessAndTheLexicalEncoderWithoutAnEmbeddingModel) {
  Harness h([](const ChatRequest& r) { return r.note.turn.starts_with("judge") ? crit_reply(r) : agent_reply(r); }, 2, 1);
  h.task = task_with_documents();
  const Transcript t = h.run("maci", {{"max_rounds", std::int64_t{2}}, {"hold_contentiousness", 0.3}});
  ASSERT_EQ(t.status, DebateStatus::kCompleted) << t.status_reason;
  EXPECT_TRUE(h.client->embedding_requests.empty());
  // θ and φ are the lexical encoder's: q of an argument citing "good" alone is the cosine of the
  // document's and the query's (the question with its options) lexical embeddings.
  const double q_good = cosine_similarity(lexical_embedding("Jupiter is the largest planet by radius."),
                                          lexical_embedding(question_with_options(*h.task)));
  int rounds = 0;
  for (const auto& e : t.events) {
    const Json d = Json::parse(e.detail.empty() ? "{}" : e.detail, nullptr, false);
    if (e.kind == "maci_start") {
      EXPECT_EQ(d["encoder"], "lexical");
      EXPECT_EQ(d["quality_gate_off"], "no embedding model (lexical encoder)");
      EXPECT_TRUE(d["evidence_quality"].is_number());
    }
    if (e.kind == "maci_round") {
      ++rounds;
      EXPECT_DOUBLE_EQ(d["contentiousness"].get<double>(), 0.3);  // held
      EXPECT_NEAR(d["arguments"][0]["evidence_score"].get<double>(), q_good, 1e-12);
      // The Q gate is off: only CRIT decides (0.9, 0.5 and 0.7 pass; 0.1 does not).
      EXPECT_TRUE(d["arguments"][1]["admitted"].get<bool>());
      EXPECT_TRUE(d["arguments"][2]["admitted"].get<bool>());
      EXPECT_FALSE(d["arguments"][3]["admitted"].get<bool>());
    }
  }
  EXPECT_EQ(rounds, 2);
}

TEST(Maci, ATaskWithoutAnOutcomeSpaceFailsWithAReasonAndTheBudgetHalts) {
  Harness h([](const ChatRequest& r) { return agent_reply(r); }, 2, 1);
  auto numeric = std::make_shared<Task>(*testing::choice_task());
  numeric->answer_type = AnswerType::kNumber;
  numeric->options.clear();
  numeric->answer = "42";
  h.task = numeric;
  const Transcript t = h.run("maci");
  EXPECT_EQ(t.status, DebateStatus::kFailed);
  EXPECT_NE(t.status_reason.find("maci:"), std::string::npos) << t.status_reason;

  // A budget that runs out in the rounds: the mixture so far answers, with its record and plan.
  MaciRun full({{"max_rounds", std::int64_t{3}}});
  const std::int64_t spent = full.transcript.prompt_tokens() + full.transcript.completion_tokens();
  // Calls reserve their 1,024-token completion caps before they start (docs/protocols.md,
  // "Budget"), and a round's twelve CRIT calls start together: a budget 9,000 tokens above what
  // the full debate spent runs out in round 3's judging (12,000 above is enough for all of it).
  MaciRun poor({{"max_rounds", std::int64_t{3}}}, spent + 9000);
  EXPECT_EQ(poor.transcript.status, DebateStatus::kBudget);
  const auto final_event = poor.events("maci_final");
  ASSERT_EQ(final_event.size(), 1u);
  EXPECT_EQ(final_event[0]["stop"], "budget");
  EXPECT_GE(final_event[0]["rounds"].get<int>(), 1);
  EXPECT_LT(final_event[0]["rounds"].get<int>(), 3);
  EXPECT_EQ(poor.transcript.final_answer, final_event[0]["prediction"].get<std::string>());
  EXPECT_EQ(poor.transcript.final_answer, "B");
}

TEST(Maci, InvalidRepliesAreReaskedThenLeaveThePreviousBelief) {
  Harness h(
      [](const ChatRequest& r) -> std::string {
        if (r.note.turn.starts_with("judge")) return crit_reply(r);
        if (r.note.agent == "a2" && r.note.round == 1) return "I think B, probably.";  // never JSON
        return agent_reply(r);
      },
      2, 1);
  h.task = task_with_documents();
  const Transcript t = h.run("maci", {{"max_rounds", std::int64_t{1}}});
  ASSERT_EQ(t.status, DebateStatus::kCompleted) << t.status_reason;
  int reasks = 0;
  for (const auto& m : t.messages) reasks += m.role == "maci_argue_reask";
  EXPECT_EQ(reasks, 2);
  for (const auto& e : t.events) {
    if (e.kind != "maci_round") continue;
    const Json d = Json::parse(e.detail);
    EXPECT_FALSE(d["agents"][1]["valid"].get<bool>());
    EXPECT_EQ(d["arguments"].size(), 2u);  // a1's only
    // a2 keeps its round-0 belief (A .6, B .4) in the mixture.
    EXPECT_EQ(d["agents"][1]["favours"], "A");
  }
}

TEST(Maci, EndToEndOnTheSimulatorIsDeterministicAndRecordsEveryRound) {
  auto run_once = [] {
    Harness h([](const ChatRequest&) { return std::string(); }, 0, 0);
    h.task = task_with_documents();
    // Simulated agents, judges of another profile's model and the simulator's embeddings, on
    // the harness's own loop.
    auto sim = make_simulator_client(h.loop, default_simulator_params(), "default", 0.0).value();
    for (int i = 1; i <= 2; ++i) h.pool.push_back(Agent{"a" + std::to_string(i), sim.get(), "sim", Sampling{}, ""});
    for (int i = 1; i <= 3; ++i) h.judges.push_back(Agent{"j" + std::to_string(i), sim.get(), "judge-sim", Sampling{}, ""});
    h.embedder = Embedder{"emb", sim.get(), "embed-sim"};
    return h.run("maci");
  };
  const Transcript first = run_once();
  const Transcript second = run_once();
  ASSERT_EQ(first.status, DebateStatus::kCompleted) << first.status_reason;
  ASSERT_TRUE(first.final_answer.has_value());
  EXPECT_EQ(first.final_answer, second.final_answer);
  ASSERT_EQ(first.events.size(), second.events.size());
  for (std::size_t i = 0; i < first.events.size(); ++i) EXPECT_EQ(first.events[i].detail, second.events[i].detail);
  int rounds = 0, judge_events = 0;
  Json final_event;
  for (const auto& e : first.events) {
    if (e.kind == "judge") ++judge_events;
    if (e.kind == "maci_final") final_event = Json::parse(e.detail);
    if (e.kind != "maci_round") continue;
    ++rounds;
    const Json d = Json::parse(e.detail);
    EXPECT_EQ(d["arguments"].size(), 4u);  // two simulated arguments per agent
    for (const Json& a : d["arguments"]) {
      EXPECT_FALSE(a["cited"].empty());  // the simulated agents cite the task's documents
      EXPECT_TRUE(a["crit"].is_number());
    }
    double total = 0.0;
    for (const Json& m : d["mixture"]) total += m["probability"].get<double>();
    EXPECT_NEAR(total, 1.0, 1e-9);
  }
  EXPECT_GE(rounds, 1);
  EXPECT_EQ(judge_events, rounds);  // one CRIT event per round
  ASSERT_TRUE(final_event.is_object());
  EXPECT_EQ(final_event["rounds"], rounds);
  EXPECT_NE(std::string(final_event["stop"]), "");
  EXPECT_EQ(first.final_answer, final_event["prediction"].get<std::string>());
  EXPECT_EQ(first.final_answer, final_event["distribution"][0]["label"].get<std::string>());
}

}  // namespace
}  // namespace parley

namespace parley {
namespace {

// Two debates of one `maci` entry with the UCB scheduler, started together on one loop.
struct ScheduledPair {
  Harness h{[](const ChatRequest& r) { return r.note.turn.starts_with("judge") ? crit_reply(r) : agent_reply(r); }, 2, 1};
  std::unique_ptr<Protocol> protocol;
  std::vector<Transcript> transcripts = std::vector<Transcript>(2);

  ScheduledPair() {
    h.task = task_with_documents();
    const ProtocolInfo* info = find_protocol("maci");
    for (const auto& spec : info->params) h.params.set(spec.name, spec.default_value);
    h.params.set("scheduler", std::string("ucb"));
    h.params.set("max_rounds", std::int64_t{3});
    protocol = info->make(h.params);
  }
  void run(std::size_t first, std::size_t count) {
    // Captureless, its state in parameters: a coroutine lambda's captures die with the lambda.
    auto body = [](const Protocol* p, Transcript* out, DebateSetup setup) -> Async<void> {
      *out = co_await run_debate(*p, std::move(setup));
    };
    for (std::size_t i = first; i < first + count; ++i) {
      DebateSetup s = h.setup("maci");
      s.seed = i + 1;
      h.loop.spawn(body(protocol.get(), &transcripts[i], std::move(s)));
    }
    h.loop.run();
  }
};

std::vector<Json> schedule_events(const Transcript& t) {
  std::vector<Json> out;
  for (const auto& e : t.events)
    if (e.kind == "maci_schedule") out.push_back(Json::parse(e.detail));
  return out;
}

TEST(MaciScheduler, LearnsAcrossDebatesRunningThemOneAtATimeInStartOrder) {
  ScheduledPair pair;
  ASSERT_TRUE(pair.protocol->keeps_state());
  pair.run(0, 2);
  const auto first = schedule_events(pair.transcripts[0]);
  const auto second = schedule_events(pair.transcripts[1]);
  ASSERT_EQ(first.size(), 3u);
  ASSERT_EQ(second.size(), 3u);
  // UCB tries each of the 9 moves once first (lowest index first): 0, 1, 2 in the first debate,
  // then 3, 4, 5 — the statistics carried over.
  for (std::size_t t = 0; t < 3; ++t) {
    EXPECT_EQ(first[t]["move"], t);
    EXPECT_EQ(second[t]["move"], t + 3);
    EXPECT_EQ(second[t]["steps"], t + 4);
  }
  // The bandit's gates never pass τ_max (0.8), whatever γ.
  for (const Transcript& t : pair.transcripts)
    for (const auto& e : t.events)
      if (e.kind == "maci_round") {
        EXPECT_LE(Json::parse(e.detail)["quality_gate"].get<double>(), 0.8);
        EXPECT_LE(Json::parse(e.detail)["crit_gate"].get<double>(), 0.8);
      }
  // Move 0 is (−0.2, −0.2) from (CL^(1) 0.8, 0): the dials the round ran with.
  EXPECT_NEAR(first[0]["contentiousness"].get<double>(), 0.6, 1e-12);
  EXPECT_NEAR(first[0]["gate_offset"].get<double>(), 0.0, 1e-12);  // clipped at 0
  // One at a time: every call of the second debate comes after the first debate's last.
  std::size_t last_of_first = 0, first_of_second = pair.h.client->requests.size();
  for (std::size_t i = 0; i < pair.h.client->requests.size(); ++i) {
    if (pair.h.client->requests[i].note.seed == 1) last_of_first = i;
    if (pair.h.client->requests[i].note.seed == 2) first_of_second = std::min(first_of_second, i);
  }
  EXPECT_LT(last_of_first, first_of_second);
}

TEST(MaciScheduler, AResumeReplaysTheStoredDebatesAndContinuesAsIfUninterrupted) {
  ScheduledPair whole;
  whole.run(0, 2);
  ScheduledPair resumed;
  resumed.protocol->replay(whole.transcripts[0]);  // debate 1 was stored before the kill
  resumed.run(1, 1);
  const auto expected = schedule_events(whole.transcripts[1]);
  const auto got = schedule_events(resumed.transcripts[1]);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t t = 0; t < got.size(); ++t) EXPECT_EQ(got[t].dump(), expected[t].dump());
  // Without the replay the bandit starts over: move 0 again.
  ScheduledPair fresh;
  fresh.run(1, 1);
  EXPECT_EQ(schedule_events(fresh.transcripts[1]).at(0)["move"], 0);
}

}  // namespace
}  // namespace parley

namespace parley {
namespace {

// Two agents who agree from the start and cite the same strong document: Î = 0 and D_JS = 0 every
// round, so both plateau flags rise in round 1; eq. (10) needs them for τ_stop = 2 rounds, Q of
// the admitted spans (0.8) at least τ_Q (0.6 in round 2, raised on π_I) and O = 1 ≥ 0.3: stop
// after round 2.
std::string agreeing_reply(const ChatRequest& r) {
  if (r.note.turn.starts_with("judge")) return Json{{"evidence", 0.9}, {"logic", 0.9}, {"relevance", 0.9}}.dump();
  return Json{{"arguments", {argument("Jupiter is largest", {"good"})}}, {"distribution", {{"B", 0.8}, {"A", 0.2}}}}.dump();
}

Json final_of(const Transcript& t) {
  for (const auto& e : t.events)
    if (e.kind == "maci_final") return Json::parse(e.detail);
  return {};
}

TEST(Maci, AgreementWithStrongSharedEvidenceStopsOnThePlateauAfterTauStopRounds) {
  Harness h(agreeing_reply, 2, 1);
  h.task = task_with_documents();
  h.client->embedding = [](const std::string& text) { return scripted_embedding(text); };
  h.embedder = Embedder{"emb", h.client.get(), "e"};
  const Transcript t = h.run("maci");
  ASSERT_EQ(t.status, DebateStatus::kCompleted) << t.status_reason;
  std::vector<Json> rounds;
  for (const auto& e : t.events)
    if (e.kind == "maci_round") rounds.push_back(Json::parse(e.detail));
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_TRUE(rounds[0]["information_plateau"].get<bool>());
  EXPECT_TRUE(rounds[0]["dispersion_plateau"].get<bool>());
  EXPECT_EQ(rounds[0]["stop"], "");  // one round of flags is not τ_stop = 2
  EXPECT_NEAR(rounds[1]["quality_gate"].get<double>(), 0.6, 1e-12);  // eq. (9) after π_I
  EXPECT_NEAR(rounds[1]["overlap"].get<double>(), 1.0, 1e-12);
  EXPECT_EQ(rounds[1]["stop"], "plateau");
  EXPECT_EQ(final_of(t)["stop"], "plateau");
  EXPECT_EQ(t.final_answer, "B");
}

TEST(Maci, JudgesWhoRejectEverythingEndTheDebateInAStalemate) {
  Harness h(
      [](const ChatRequest& r) -> std::string {
        if (r.note.turn.starts_with("judge")) return Json{{"evidence", 0.1}, {"logic", 0.1}, {"relevance", 0.1}}.dump();
        return agent_reply(r);
      },
      2, 1);
  h.task = task_with_documents();
  const Transcript t = h.run("maci");
  std::vector<Json> rounds;
  for (const auto& e : t.events)
    if (e.kind == "maci_round") rounds.push_back(Json::parse(e.detail));
  // CRIT 0.1 < τ_CRIT = 0.3 for stalemate_rounds = 3 consecutive rounds.
  ASSERT_EQ(rounds.size(), 3u);
  for (const Json& r : rounds) {
    for (const Json& a : r["arguments"]) EXPECT_FALSE(a["admitted"].get<bool>());
  }
  EXPECT_EQ(rounds[2]["stop"], "stalemate");
  EXPECT_TRUE(final_of(t)["record"].empty());  // ψ stays empty
}

}  // namespace
}  // namespace parley
