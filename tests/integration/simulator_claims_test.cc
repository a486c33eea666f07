// The qualitative facts the papers report, reproduced on the simulator through the real
// runner and protocols (DESIGN.md §3): debate beats a single agent on average, and yet some
// agents' correct initial answers are flipped to wrong by their peers.
#include <gtest/gtest.h>

#include <unistd.h>

#include <map>

#include "integration/cli_support.h"
#include "parley/config.h"
#include "parley/runner.h"
#include "parley/store.h"

namespace parley::testing {
namespace {

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
  RunOptions options;
  options.out_dir = dir / "out";
  auto outcome = run_experiment(*config, options);
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->summary.protocols.size(), 2u);
  const auto& single = outcome->summary.protocols[0];
  const auto& debate = outcome->summary.protocols[1];
  ASSERT_EQ(single.n, 180);
  EXPECT_GT(debate.accuracy, single.accuracy);

  auto store = Store::open(options.out_dir / "results.sqlite");
  ASSERT_TRUE(store);
  auto transcripts = (*store)->load_all();
  ASSERT_TRUE(transcripts);
  int correct_to_wrong = 0, wrong_to_correct = 0;
  for (const auto& t : *transcripts) {
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

}  // namespace
}  // namespace parley::testing
