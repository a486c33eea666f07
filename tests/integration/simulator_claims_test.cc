// The qualitative facts the papers report, reproduced on the simulator through the real
// runner and protocols (DESIGN.md §3): debate beats a single agent on average, and yet some
// agents' correct initial answers are flipped to wrong by their peers.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>

#include "integration/cli_support.h"
#include "parley/config.h"
#include "parley/diagnosis.h"
#include "parley/protocol.h"
#include "parley/runner.h"
#include "parley/store.h"

namespace parley::testing {
namespace {

// A run of `config` into `out_dir`, finished: its summary and every transcript the store holds.
struct StoredResults {
  Summary summary;
  RunProgress progress;
  std::vector<Transcript> transcripts;
};

std::optional<StoredResults> run_stored(const ExperimentConfig& config, const std::filesystem::path& out_dir,
                                        std::function<void(const RunProgress&)> on_progress = {}) {
  RunOptions options;
  options.out_dir = out_dir;
  options.on_progress = std::move(on_progress);
  auto outcome = run_experiment(config, options);
  if (!outcome) {
    ADD_FAILURE() << outcome.error().message;
    return std::nullopt;
  }
  auto store = Store::open(out_dir / "results.sqlite");
  if (!store) {
    ADD_FAILURE() << store.error().message;
    return std::nullopt;
  }
  auto transcripts = (*store)->load_all();
  if (!transcripts) {
    ADD_FAILURE() << transcripts.error().message;
    return std::nullopt;
  }
  return StoredResults{std::move(outcome->summary), outcome->progress, std::move(transcripts).value()};
}

TEST(SimulatorClaims, DebateBeatsSingleButFlipsSomeCorrectAnswers) {
  const auto dir = scratch_dir("simulator-claims");
  write_file(dir / "exp.yaml",
             "models:\n  - {name: sim, backend: simulator}\n"
             "agents:\n  - {name: a1, model: sim, temperature: 0.7}\n"
             "dataset: {path: " + (source_dir() / "examples/data/mc-sample.jsonl").string() + "}\n"
             "protocols:\n  - {name: single}\n  - {name: debate, agents: 3, rounds: 2}\n"
             "seeds: [1, 2, 3]\n");
  auto config = load_experiment(dir / "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  const auto run = run_stored(*config, dir / "out");
  ASSERT_TRUE(run);
  ASSERT_EQ(run->summary.protocols.size(), 2u);
  const auto& single = run->summary.protocols[0];
  const auto& debate = run->summary.protocols[1];
  ASSERT_EQ(single.n, 180);
  EXPECT_GT(debate.accuracy, single.accuracy);

  int correct_to_wrong = 0, wrong_to_correct = 0;
  for (const auto& t : run->transcripts) {
    if (t.protocol != "debate") continue;
    std::map<std::string, std::optional<std::string>> first, last;
    for (const auto& m : t.messages) {
      if (m.round == 0 && !first.count(m.agent)) first[m.agent] = m.answer;
      last[m.agent] = m.answer;
    }
    for (const auto& [agent, initial] : first) {
      const bool was_right = initial == t.gold;
      const bool is_right = last[agent] == t.gold;
      correct_to_wrong += was_right && !is_right;
      wrong_to_correct += !was_right && is_right;
    }
  }
  EXPECT_GT(correct_to_wrong, 0) << "debate never broke a correct answer";
  EXPECT_GT(wrong_to_correct, correct_to_wrong) << "debate should fix more answers than it breaks";
}

// UDPO §5.4, Table 3 (the pattern, SIMULATED): accuracy falls as more of five debaters are
// compromised, and every compromised seat is named in its debate's `attack` event.
TEST(SimulatorClaims, AccuracyFallsAsMoreDebatersAreCompromised) {
  const auto dir = scratch_dir("simulator-attack");
  std::string protocols;
  for (int m = 0; m <= 3; ++m)
    protocols += "  - {name: debate, label: m" + std::to_string(m) + ", agents: 5, rounds: 3, compromised: " +
                 std::to_string(m) + "}\n";
  write_file(dir / "exp.yaml",
             "models:\n  - {name: sim, backend: simulator}\n"
             "agents:\n  - {name: a1, model: sim, temperature: 0.7}\n  - {name: a2, model: sim, temperature: 0.7}\n"
             "  - {name: a3, model: sim, temperature: 0.7}\n  - {name: a4, model: sim, temperature: 0.7}\n"
             "  - {name: a5, model: sim, temperature: 0.7}\n"
             "dataset: {path: " + (source_dir() / "examples/data/mc-sample.jsonl").string() + "}\n"
             "protocols:\n" + protocols + "seeds: [1, 2]\n");
  auto config = load_experiment(dir / "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  const auto run = run_stored(*config, dir / "out");
  ASSERT_TRUE(run);
  ASSERT_EQ(run->summary.protocols.size(), 4u);
  for (int m = 1; m <= 3; ++m)
    EXPECT_LT(run->summary.protocols[m].accuracy, run->summary.protocols[m - 1].accuracy) << "m = " << m;
  // Three of five argue one wrong answer and never yield: the majority is always theirs.
  EXPECT_EQ(run->summary.protocols[3].accuracy, 0.0);
  for (const auto& t : run->transcripts) {
    const int m = t.protocol[1] - '0';
    int events = 0;
    for (const auto& e : t.events) {
      if (e.kind != "attack") continue;
      ++events;
      const std::string expected = m == 1 ? R"(["a5"])" : m == 2 ? R"(["a4","a5"])" : R"(["a3","a4","a5"])";
      EXPECT_NE(e.detail.find(R"("compromised":)" + expected), std::string::npos) << e.detail;
    }
    EXPECT_EQ(events, m == 0 ? 0 : 1) << t.protocol;
  }
}

// UDPO App. C.3, Table 6 under the simulator's never-yielding adversary (SIMULATED;
// docs/protocols.md, "UDPO on the simulator"): with one of five debaters compromised, U still
// separates failed from successful debates with a large effect, but for U_inter and U_sys the
// sign is the paper's reversed — a debate the honest agents win keeps its dissenter, one they
// lose ends unanimous on the adversary's answer — while U_intra keeps the paper's sign.
TEST(SimulatorClaims, UnderAttackUSeparatesFailuresWithUSysSignReversed) {
  const auto dir = scratch_dir("simulator-attack-diagnosis");
  std::string agents;
  for (int i = 1; i <= 5; ++i) agents += "  - {name: a" + std::to_string(i) + ", model: sim, temperature: 0.7}\n";
  write_file(dir / "exp.yaml",
             "models:\n  - {name: sim, backend: simulator}\nagents:\n" + agents +
                 "dataset: {path: " + (source_dir() / "examples/data/mc-sample.jsonl").string() + "}\n"
                 "protocols:\n  - {name: debate, label: m1, agents: 5, rounds: 5, compromised: 1}\nseeds: [1, 2, 3]\n");
  auto config = load_experiment(dir / "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  const auto run = run_stored(*config, dir / "out");
  ASSERT_TRUE(run);
  const auto diagnosis = diagnose(run->transcripts, {"m1"}, {});
  ASSERT_TRUE(diagnosis) << diagnosis.error().message;
  const ProtocolDiagnosis& m1 = diagnosis->protocols.at(0);
  std::map<std::string, double> d;
  for (const FailureSeparation& s : m1.separation) d[s.metric] = s.cohens_d.value();
  EXPECT_GT(d["u_intra"], 0.5);   // failures flip more: the paper's sign
  EXPECT_LT(d["u_inter"], -0.8);  // reversed, large
  EXPECT_LT(d["u_sys"], -0.8);    // reversed, large
  const auto& r = m1.correlations.cells;
  EXPECT_GT(r[2][3].value().r, 0.5) << "r(U_sys, correct)";
  EXPECT_LT(r[0][3].value().r, 0.0) << "r(U_intra, correct)";
}

// Every registered protocol, with its defaults and a separate judge model, runs to completion on
// the simulator: no failures, answers parsed, judge verdicts valid after their re-asks, and the
// per-debate metrics filled in. Also the protocols paper's H1: WR interacts more than CR (PRR).
TEST(SimulatorClaims, EveryProtocolCompletesAndWrReferencesPeersMoreThanCr) {
  const auto dir = scratch_dir("all-protocols");
  std::string protocols;
  for (const auto& info : protocol_registry()) {
    protocols += "  - {name: " + info.name + ", judges: [judge]";
    // imad needs its classifier: the one examples/imad.yaml uses.
    if (info.name == "imad") protocols += ", trigger_model: " + (source_dir() / "examples/imad-trigger.json").string();
    protocols += "}\n";
  }
  write_file(dir / "exp.yaml",
             "models:\n  - {name: sim, backend: simulator}\n  - {name: other, backend: simulator, profile: strong}\n"
             "agents:\n  - {name: a1, model: sim, temperature: 0.4}\n  - {name: a2, model: sim, temperature: 0.4}\n"
             "  - {name: a3, model: sim, temperature: 0.4}\n  - {name: judge, model: other, temperature: 0.2}\n"
             "dataset: {path: " + (source_dir() / "examples/data/mc-sample.jsonl").string() + ", limit: 40}\n"
             "protocols:\n" + protocols + "seeds: [1, 2]\n");
  auto config = load_experiment(dir / "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  // The debaters are a1..a3; the judge only judges.
  for (auto& p : config->protocols) p.agents = {"a1", "a2", "a3"};
  const auto run = run_stored(*config, dir / "out");
  ASSERT_TRUE(run);
  std::map<std::string, double> prr;
  for (const auto& p : run->summary.protocols) {
    EXPECT_EQ(p.n, 80) << p.name;
    EXPECT_EQ(p.failed, 0) << p.name;
    EXPECT_LE(p.unparsed_rate, 0.05) << p.name;
    EXPECT_GT(p.accuracy, 0.5) << p.name;
    if (p.metrics.count("prr")) prr[p.name] = p.metrics.at("prr").mean;
  }
  int judge_calls = 0, judge_failures = 0;
  std::map<std::string, int> sid_decisions;
  for (const auto& t : run->transcripts) {
    for (const auto& m : t.messages) {
      if (m.role.rfind("judge", 0) == 0) {
        ++judge_calls;
        EXPECT_EQ(m.agent, "judge");
      }
    }
    for (const auto& e : t.events) judge_failures += e.kind == "judge_failed";
    EXPECT_TRUE(t.metrics.count("prr")) << t.protocol;
    if (t.protocol == "sid_et") {
      // The simulator returns the log-probabilities sid_et asks for; the default threshold both
      // skips and debates on these tasks.
      ASSERT_FALSE(t.messages.empty());
      EXPECT_TRUE(t.messages[0].min_token_logprob.has_value());
      for (const auto& e : t.events) {
        if (e.kind != "trigger") continue;
        EXPECT_EQ(e.detail.find("no_logprobs"), std::string::npos) << e.detail;
        ++sid_decisions[e.detail.find("\"decision\":\"skip\"") != std::string::npos ? "skip" : "debate"];
      }
    }
  }
  EXPECT_EQ(sid_decisions["skip"] + sid_decisions["debate"], 80);
  EXPECT_GT(sid_decisions["skip"], 0);
  EXPECT_GT(sid_decisions["debate"], 0);
  EXPECT_GT(judge_calls, 1000);  // best-of-2 on every turn of ni/wr/cr/ra_cr, plus RA-CR's ranking
  EXPECT_EQ(judge_failures, 0);  // malformed first verdicts are fixed by their re-asks
  ASSERT_TRUE(prr.count("wr") && prr.count("cr"));
  EXPECT_GT(prr["wr"], prr["cr"]);
  EXPECT_EQ(prr["ni"], 0.0);  // nobody is shown a peer to refer to
}

// iMAD end to end with the shipped trigger (examples/imad.yaml's setting on 40 tasks): the
// self-critiques are complete, the trigger debates some units and skips others, and its
// decisions are more often beneficial than full MAD's (which debates everything) — parley's
// reading of iMAD §5.2, which reports iMAD's own beneficial rate but not full MAD's.
TEST(SimulatorClaims, ImadDebatesSomeTasksAndSkipsOthers) {
  const auto dir = scratch_dir("imad");
  write_file(dir / "exp.yaml",
             "models:\n  - {name: sim, backend: simulator}\n  - {name: strong, backend: simulator, profile: strong}\n"
             "agents:\n  - {name: a1, model: sim, temperature: 0.7}\n  - {name: a2, model: sim, temperature: 0.7}\n"
             "  - {name: judge, model: strong, temperature: 0.2}\n"
             "dataset: {path: " + (source_dir() / "examples/data/mc-sample.jsonl").string() + ", limit: 40}\n"
             "protocols:\n  - {name: single, agents: [a1]}\n  - {name: mad, agents: [a1, a2], judges: [judge]}\n"
             "  - {name: imad, agents: [a1, a2], judges: [judge], trigger_model: " +
             (source_dir() / "examples/imad-trigger.json").string() + "}\n"
             "seeds: [1, 2]\n");
  auto config = load_experiment(dir / "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  const auto run = run_stored(*config, dir / "out");
  ASSERT_TRUE(run);
  const auto& protocols = run->summary.protocols;
  ASSERT_EQ(protocols.size(), 3u);
  const auto& mad = protocols[1];
  const auto& imad = protocols[2];
  ASSERT_TRUE(imad.selective);
  ASSERT_TRUE(mad.selective);
  EXPECT_EQ(imad.selective->decisions(), 80);
  EXPECT_GT(imad.selective->debates(), 0);
  EXPECT_LT(imad.selective->debates(), 80);
  EXPECT_GT(imad.selective->beneficial_rate(), mad.selective->beneficial_rate());

  int stages = 0, malformed = 0;
  for (const auto& t : run->transcripts) {
    for (const auto& e : t.events) {
      if (e.kind != "self_critique") continue;
      ++stages;
      malformed += e.detail.find("malformed") != std::string::npos;
    }
  }
  EXPECT_EQ(stages, 80);
  EXPECT_EQ(malformed, 0);  // a malformed first reply is fixed by its re-ask
}

TEST(SimulatorClaims, EveryReaskNamesACallOfItsOwnAgentAndRoundWhenAJudgeSharesADebatersName) {
  // The setting that used to misattach re-asks: concurrent turns (cr, best-of-2 drafts),
  // self-consistency's samples of one agent, and a judge with a debater's name (judges: [a1]).
  const auto dir = scratch_dir("simulator-reask-links");
  write_file(dir / "exp.yaml",
             "models:\n  - {name: sim, backend: simulator}\n"
             "agents:\n  - {name: a1, model: sim, temperature: 1.0}\n  - {name: a2, model: sim, temperature: 1.0}\n"
             "  - {name: a3, model: sim, temperature: 1.0}\n"
             "dataset: {path: " + (source_dir() / "examples/data/math-sample.jsonl").string() + "}\n"
             "protocols:\n  - {name: cr, judges: [a1]}\n  - {name: self_consistency, samples: 8}\n"
             "seeds: [1, 2]\n");
  auto config = load_experiment(dir / "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  const auto run = run_stored(*config, dir / "out");
  ASSERT_TRUE(run);
  int reasks = 0, shared_role_events = 0;
  for (const auto& t : run->transcripts) {
    for (const auto& e : t.events) shared_role_events += e.kind == "shared_role";
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
      const MessageRecord& m = t.messages[i];
      ASSERT_EQ(m.id, static_cast<int>(i));
      if (!m.repeats) continue;
      ++reasks;
      ASSERT_LT(*m.repeats, m.id);
      const MessageRecord& first = t.messages[static_cast<std::size_t>(*m.repeats)];
      EXPECT_EQ(first.agent, m.agent) << t.task_id << " call " << m.id;
      EXPECT_EQ(first.round, m.round);
      EXPECT_FALSE(first.repeats);
      // An answer re-ask follows an unparsed reply, a judge's re-ask a judge call.
      if (m.role == "reask") {
        EXPECT_FALSE(first.answer) << t.task_id << " call " << m.id;
      }
      if (m.role.starts_with("judge")) {
        EXPECT_EQ(m.role, first.role + "_reask");
      }
    }
  }
  EXPECT_GT(reasks, 10) << reasks;  // the setting does produce re-asks
  EXPECT_EQ(shared_role_events, static_cast<int>(run->transcripts.size()) / 2);  // every cr debate
}

// Debates start as the loop would otherwise wait: on the zero-delay simulator nothing waits, so
// one debate runs at a time; with a delay every debate waits on its calls and `concurrency` of
// them run at once. The results are the same either way.
TEST(SimulatorRuns, DebatesInFlightGrowOnlyWhileDebatesWait) {
  const auto dir = scratch_dir("simulator-in-flight");
  std::map<double, StoredResults> runs;
  for (const double delay_ms : {0.0, 5.0}) {
    write_file(dir / "exp.yaml",
               "models:\n  - {name: sim, backend: simulator, delay_ms: " + std::to_string(delay_ms) + "}\n"
               "agents:\n  - {name: a1, model: sim}\n  - {name: a2, model: sim}\n"
               "dataset: {path: " + (source_dir() / "examples/data/mc-sample.jsonl").string() + ", limit: 20}\n"
               "protocols:\n  - {name: debate, agents: 2, rounds: 1}\n"
               "concurrency: 6\n");
    auto config = load_experiment(dir / "exp.yaml");
    ASSERT_TRUE(config) << config.error().message;
    std::int64_t most_seen = 0;
    auto run = run_stored(*config, dir / ("out-" + std::to_string(delay_ms)), [&](const RunProgress& progress) {
      most_seen = std::max(most_seen, progress.in_flight);
    });
    ASSERT_TRUE(run);
    EXPECT_EQ(run->progress.done, 20);
    EXPECT_EQ(run->progress.in_flight, 0);
    if (delay_ms == 0.0) {
      EXPECT_EQ(run->progress.peak_in_flight, 1);
      EXPECT_EQ(most_seen, 0);  // each debate had finished before the next started
    } else {
      EXPECT_EQ(run->progress.peak_in_flight, 6);
      EXPECT_GT(most_seen, 0);
    }
    runs[delay_ms] = std::move(*run);
  }
  ASSERT_EQ(runs[0.0].transcripts.size(), runs[5.0].transcripts.size());
  for (std::size_t i = 0; i < runs[0.0].transcripts.size(); ++i) {
    const Transcript& a = runs[0.0].transcripts[i];
    const Transcript& b = runs[5.0].transcripts[i];
    EXPECT_EQ(a.task_id, b.task_id);
    EXPECT_EQ(a.final_answer, b.final_answer);
    ASSERT_EQ(a.messages.size(), b.messages.size());
    for (std::size_t m = 0; m < a.messages.size(); ++m) EXPECT_EQ(a.messages[m].text, b.messages[m].text);
  }
}

}  // namespace
}  // namespace parley::testing
