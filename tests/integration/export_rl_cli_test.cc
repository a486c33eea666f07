// Black-box tests of `parley export-rl`: a hand-built store (tests/rl_export_runs.h, whose numbers
// rl_export_test.cc works out by hand), a simulated run, and hostile inputs — each refusal says
// why and leaves no file.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "integration/cli_support.h"
#include "parley/store.h"
#include "rl_export_runs.h"

namespace parley::testing {
namespace {

using Json = nlohmann::json;

std::vector<Json> json_lines(const std::string& text) {
  std::vector<Json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(Json::parse(line));
  return out;
}

void write_store(const std::filesystem::path& dir, const std::vector<Transcript>& run) {
  std::filesystem::create_directories(dir);
  auto store = Store::open(dir / "results.sqlite");
  ASSERT_TRUE(store) << store.error().message;
  for (const Transcript& t : run) ASSERT_TRUE((*store)->put(t));
  ASSERT_TRUE((*store)->flush());
}

TEST(ExportRlCli, WritesTheHandBuiltRunsLines) {
  const auto dir = scratch_dir("export-rl-hand");
  write_store(dir / "run", hand_built_run());
  const auto r = run_parley({"export-rl", "run", "--out", "rl.jsonl"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "parley: skipped 2 debate(s): 1 budget, 1 failed\n");
  EXPECT_NE(r.out.find("rl.jsonl: 10 line(s), one per agent trajectory, from 4 debate(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("debate (a1, a2, a3): 3 debate(s); bases α 0.3333, β 0.3333, γ 0.3333 (equal)"),
            std::string::npos)
      << r.out;
  const auto lines = json_lines(read_file(dir / "rl.jsonl"));
  ASSERT_EQ(lines.size(), 10u);
  // q2's a3 (rl_export_test.cc): reward 227/108; advantage 227/108 − (31/12 + 227/108 + 31/54 +
  // s/3)/3 with s = 1 − log2(6)/3; replay U = 7/27.
  const Json& q2_a3 = lines[5];
  EXPECT_EQ(q2_a3["task_id"], "q2");
  EXPECT_EQ(q2_a3["agent"], "a3");
  EXPECT_EQ(q2_a3["compromised"], true);
  const double s = 1.0 - std::log2(6.0) / 3.0;
  EXPECT_NEAR(q2_a3["reward"].get<double>(), 227.0 / 108, 1e-12);
  EXPECT_NEAR(q2_a3["advantage"].get<double>(), 227.0 / 108 - (31.0 / 12 + 227.0 / 108 + 31.0 / 54 + s / 3) / 3, 1e-12);
  EXPECT_NEAR(q2_a3["replay"]["uncertainty"].get<double>(), 7.0 / 27, 1e-12);

  const auto turns = run_parley({"export-rl", "run", "--out", "turns.jsonl", "--per", "turn", "--protocol", "debate"}, dir);
  ASSERT_EQ(turns.exit_code, 0) << turns.err;
  const auto turn_lines = json_lines(read_file(dir / "turns.jsonl"));
  ASSERT_EQ(turn_lines.size(), 27u);
  EXPECT_EQ(turn_lines[0]["prompt"], Json::parse(R"([{"role":"system","content":"You are a1."},)"
                                                 R"({"role":"user","content":"Question q1"}])"));
  EXPECT_EQ(turn_lines[0]["completion"][0]["content"], "Reasoning of a1.\nAnswer: A");

  // The options reach the computation: κ = 0 leaves every agent at the bases.
  ASSERT_EQ(run_parley({"export-rl", "run", "--out", "flat.jsonl", "--kappa", "0", "--bases", "equal"}, dir).exit_code, 0);
  for (const Json& line : json_lines(read_file(dir / "flat.jsonl")))
    EXPECT_NEAR(line["coefficients"]["beta"].get<double>(), 1.0 / 3, 1e-15);
}

TEST(ExportRlCli, ExportsASimulatedRunsDebates) {
  const auto dir = scratch_dir("export-rl-sim");
  write_file(dir / "exp.yaml",
             "models:\n  - {name: sim, backend: simulator}\n"
             "agents:\n  - {name: a1, model: sim}\n  - {name: a2, model: sim}\n  - {name: a3, model: sim}\n"
             "dataset: {path: " + (source_dir() / "examples/data/mc-sample.jsonl").string() + ", limit: 4}\n"
             "protocols:\n  - {name: debate, agents: 3, rounds: 2, compromised: 1}\n  - {name: single}\n"
             "seeds: [1, 2]\n");
  ASSERT_EQ(run_parley({"run", "exp.yaml", "--out", "out", "--quiet"}, dir).exit_code, 0);
  const auto r = run_parley({"export-rl", "out", "--out", "rl.jsonl", "--protocol", "debate"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("SIMULATED: rl.jsonl: 24 line(s)", 0), 0u) << r.out;
  const auto lines = json_lines(read_file(dir / "rl.jsonl"));
  ASSERT_EQ(lines.size(), 24u);  // 8 debates × 3 agents
  double advantages = 0.0;
  for (const Json& line : lines) {
    EXPECT_EQ(line["compromised"], line["agent"] == "a3") << line["agent"];
    ASSERT_EQ(line["turns"].size(), 3u);
    // The whole conversation: the system prompt, the question, then reply and peers per round.
    const Json& messages = line["messages"];
    EXPECT_EQ(messages.back()["role"], "assistant");
    EXPECT_EQ(messages.back()["content"], line["turns"][2]["completion"]);
    std::size_t replies = 0;
    for (const Json& m : messages) replies += m["role"] == "assistant";
    EXPECT_GE(replies, 3u);  // one per round (a re-ask's exchange adds one more)
    // No system prompt but the compromised seat's attack instruction.
    EXPECT_EQ(messages[0]["role"], line["compromised"].get<bool>() ? "system" : "user");
    advantages += line["advantage"].get<double>();
  }
  EXPECT_NEAR(advantages, 0.0, 1e-9);  // each agent's advantages sum to 0 over the batch
}

TEST(ExportRlCli, HostileInputsAreClearErrorsAndLeaveNoFile) {
  const auto dir = scratch_dir("export-rl-hostile");
  auto expect_refused = [&](const std::vector<std::string>& args, const std::string& message) {
    const auto r = run_parley(args, dir);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "rl.jsonl"));
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      EXPECT_EQ(entry.path().filename().string().find("rl.jsonl"), std::string::npos) << entry.path();  // no temporary
  };
  expect_refused({"export-rl", "nowhere", "--out", "rl.jsonl"}, "nowhere: no results.sqlite here");

  write_store(dir / "empty", {});
  expect_refused({"export-rl", "empty", "--out", "rl.jsonl"}, "empty: the run has no debates");

  write_store(dir / "run", hand_built_run());
  expect_refused({"export-rl", "run", "--out", "rl.jsonl", "--protocol", "udpo"},
                 "run: no protocol \"udpo\" in the run (it has: debate, single)");
  expect_refused({"export-rl", "run", "--out", "missing/rl.jsonl"}, "missing/rl.jsonl: the directory missing does not exist");
  EXPECT_FALSE(std::filesystem::exists(dir / "missing"));
  expect_refused({"export-rl", "run", "--out", "rl.jsonl", "--per", "debate"}, "--per");
  expect_refused({"export-rl", "run", "--out", "rl.jsonl", "--kappa=-1"}, "--kappa");
  expect_refused({"export-rl", "run", "--out", ""}, "--out: an empty path");
  // The run's own files are never the output: the store it reads, its WAL, the exports.
  const std::string store_before = read_file(dir / "run/results.sqlite");
  for (const char* own : {"run/results.sqlite", "run/../run/results.sqlite-wal", "./run/transcripts.jsonl", "run/summary.json"})
    expect_refused({"export-rl", "run", "--out", own}, "is one of the run's own files");
  EXPECT_EQ(read_file(dir / "run/results.sqlite"), store_before);
  EXPECT_EQ(run_parley({"export-rl", "run", "--out", "run/rl.jsonl"}, dir).exit_code, 0);  // beside them is fine
  std::filesystem::remove(dir / "run/rl.jsonl");

  // A store written before prompts were stored: the count, and nothing written.
  auto old = hand_built_run();
  for (Transcript& t : old) {
    t.answer_type.reset();
    for (MessageRecord& m : t.messages) m.prompt.reset(), m.prompt_extends.reset();
  }
  write_store(dir / "old", old);
  expect_refused({"export-rl", "old", "--out", "rl.jsonl"},
                 "old: 6 of the 6 debates to export were stored without the prompts their agents were sent");

  // A refusal leaves an earlier output as it was.
  write_file(dir / "kept.jsonl", "earlier\n");
  const auto r = run_parley({"export-rl", "old", "--out", "kept.jsonl"}, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(read_file(dir / "kept.jsonl"), "earlier\n");
}

}  // namespace
}  // namespace parley::testing
