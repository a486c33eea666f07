// Black-box tests of `parley features` and `parley train-trigger`, and of imad's configuration
// errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "integration/cli_support.h"

namespace parley::testing {
namespace {

using Json = nlohmann::json;

const char* kResponse =
    "Initial answer: A\nInitial reasoning: Mars looks large, so it may be the biggest.\nInitial confidence: "
    "70%\n"
    "Self-critique: However, Jupiter is a gas giant and could well be larger.\nAlternative answer: B\n"
    "Critique confidence: 45%\nFinal answer: A\nFinal confidence: 60%\n";

std::string model_path() { return (source_dir() / "examples/imad-trigger.json").string(); }

TEST(TriggerCli, FeaturesPrintsTheFortyOneFeaturesInTableFivesOrder) {
  const auto dir = scratch_dir("features");
  write_file(dir / "response.txt", kResponse);
  const auto r =
      run_parley({"features", "--question", "Which planet is largest?", "--response", "response.txt"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json out = Json::parse(r.out);
  ASSERT_EQ(out["features"].size(), 41u);
  EXPECT_LT(r.out.find("\"QuestionToken\""), r.out.find("\"AnswerToken\""));
  EXPECT_LT(r.out.find("\"FinalConfidence\""), r.out.find("\"NegativeReason_SyntacticDepth\""));
  EXPECT_DOUBLE_EQ(out["features"]["QuestionToken"].get<double>(), 5.0);  // Which planet is largest ?
  EXPECT_DOUBLE_EQ(out["features"]["qtype_other"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(out["features"]["InitialConfidence"].get<double>(), 0.70);
  EXPECT_DOUBLE_EQ(out["features"]["NegativeConfidence"].get<double>(), 0.45);
  EXPECT_DOUBLE_EQ(out["features"]["FinalConfidence"].get<double>(), 0.60);
  EXPECT_DOUBLE_EQ(out["features"]["AnswerToken"].get<double>(), 1.0);  // the final answer "A" (Table 5)
  EXPECT_EQ(out["missing_sections"], Json::array());
  EXPECT_FALSE(out.contains("trigger"));

  // A compact layout: the answer, its reasoning and its confidence on one line, no critique.
  write_file(dir / "compact.txt",
             "Initial answer: A \xE2\x80\x94 Mars looks large in the night sky, so it may be the biggest. "
             "Confidence: 70%\nFinal answer: A (confidence: 60%)\n");
  const auto compact =
      run_parley({"features", "--question", "Which planet is largest?", "--response", "compact.txt"}, dir);
  ASSERT_EQ(compact.exit_code, 0) << compact.err;
  const Json read = Json::parse(compact.out);
  EXPECT_EQ(read["missing_sections"], Json::array({"Self-critique", "Critique confidence"}));
  EXPECT_DOUBLE_EQ(read["features"]["InitialConfidence"].get<double>(), 0.70);
  EXPECT_DOUBLE_EQ(read["features"]["FinalConfidence"].get<double>(), 0.60);
  EXPECT_GT(read["features"]["InitialReason_num_nouns"].get<double>(), 0.0);  // the reasoning was read
  EXPECT_NE(compact.err.find("Self-critique, Critique confidence"), std::string::npos) << compact.err;

  const auto scored = run_parley({"features", "--question", "Which planet is largest?", "--response",
                                  "response.txt", "--model", model_path()},
                                 dir);
  ASSERT_EQ(scored.exit_code, 0) << scored.err;
  const Json trigger = Json::parse(scored.out)["trigger"];
  EXPECT_DOUBLE_EQ(trigger["threshold"].get<double>(), 0.7);
  EXPECT_EQ(trigger["decision"], trigger["p"].get<double>() < 0.7 ? "debate" : "skip");

  const auto missing = run_parley({"features", "--question", "q", "--response", "nope.txt"}, dir);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.txt: cannot read"), std::string::npos) << missing.err;

  // A response with no readable section (empty, or bytes that are no text) is no input: an
  // error, not 41 defaults a trigger could score.
  write_file(dir / "empty.txt", "");
  write_file(dir / "garbage.txt", std::string("\x89PNG\r\n\x1a\n\x00\x01\xff\xfe binary", 20));
  for (const char* file : {"empty.txt", "garbage.txt"}) {
    const auto unread = run_parley({"features", "--question", "q", "--response", file}, dir);
    EXPECT_EQ(unread.exit_code, 2) << file;
    EXPECT_TRUE(unread.out.empty()) << unread.out;
    EXPECT_NE(unread.err.find(std::string(file) + ": no section of a self-critique response could be read"),
              std::string::npos)
        << unread.err;
  }
}

TEST(TriggerCli, TrainTriggerLearnsFromARunAndWritesAModelImadCanUse) {
  const auto dir = scratch_dir("train-trigger");
  const std::string data = (source_dir() / "examples/data/mc-sample.jsonl").string();
  write_file(
      dir / "train.yaml",
      "models:\n  - {name: sim, backend: simulator}\n"
      "agents:\n  - {name: a1, model: sim, temperature: 0.7}\n  - {name: a2, model: sim, temperature: 0.7}\n"
      "dataset: {path: " +
          data +
          ", limit: 20}\n"
          "protocols:\n  - {name: self_critique, agents: [a1]}\n  - {name: mad, agents: [a1, a2]}\n"
          "seeds: [1, 2, 3]\n");
  ASSERT_EQ(run_parley({"run", "train.yaml", "--out", "run", "--quiet"}, dir).exit_code, 0);
  const auto r = run_parley({"train-trigger", "run", "--out", "model.json", "--layers", "2", "--hidden", "16",
                             "--epochs", "5", "--validation", "0.3", "--examples-out", "examples.jsonl"},
                            dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SIMULATED: 60 self-critique responses from run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("validation: AUC"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("beneficial decisions"), std::string::npos) << r.out;
  const Json model = Json::parse(read_file(dir / "model.json"));
  EXPECT_EQ(model["format"], "parley-trigger-model");
  EXPECT_EQ(model["feature_names"].size(), 41u);
  EXPECT_DOUBLE_EQ(model["threshold"].get<double>(), 0.7);
  EXPECT_EQ(model["metadata"]["simulated"], true);
  EXPECT_EQ(model["metadata"]["examples"], 60);
  EXPECT_EQ(model["metadata"]["epoch_loss"].size(), 5u);
  EXPECT_TRUE(model["metadata"].contains("validation"));
  const std::string lines = read_file(dir / "examples.jsonl");
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 60);

  // The model drives imad.
  write_file(
      dir / "imad.yaml",
      "models:\n  - {name: sim, backend: simulator}\n"
      "agents:\n  - {name: a1, model: sim, temperature: 0.7}\n  - {name: a2, model: sim, temperature: 0.7}\n"
      "dataset: {path: " +
          data +
          ", limit: 4}\n"
          "protocols:\n  - {name: imad, agents: [a1, a2], trigger_model: model.json, threshold: 0.5}\n");
  const auto imad = run_parley({"run", "imad.yaml", "--out", "imad-run"}, dir);
  EXPECT_EQ(imad.exit_code, 0) << imad.err;
  EXPECT_NE(imad.out.find("selective debate decisions"), std::string::npos) << imad.out;
}

// iMAD has one τ: the decision threshold is also eq. 7's (§4.1, §4.2). --threshold sets both;
// --penalty-threshold gives eq. 7 another only when asked. Training is deterministic given the
// seed, so equal losses mean the same τ in eq. 7 and different losses a different one.
TEST(TriggerCli, TrainTriggerThresholdIsTheTauOfTheConfidencePenaltyToo) {
  const auto dir = scratch_dir("train-trigger-tau");
  const std::string data = (source_dir() / "examples/data/mc-sample.jsonl").string();
  write_file(dir / "train.yaml",
             "models:\n  - {name: sim, backend: simulator}\n"
             "agents:\n  - {name: a1, model: sim, temperature: 0.7}\n"
             "dataset: {path: " +
                 data +
                 ", limit: 20}\n"
                 "protocols:\n  - {name: self_critique, agents: [a1]}\nseeds: [1, 2]\n");
  ASSERT_EQ(run_parley({"run", "train.yaml", "--out", "run", "--quiet"}, dir).exit_code, 0);
  ASSERT_EQ(run_parley({"train-trigger", "run", "--out", "first.json", "--examples-out", "examples.jsonl",
                        "--quiet"},
                       dir)
                .exit_code,
            0);
  const auto train = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> args = {"train-trigger", "--examples-in", "examples.jsonl", "--out", out,
                                     "--layers",      "2",             "--hidden",       "16", "--epochs",
                                     "8",             "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_parley(args, dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(read_file(dir / out));
  };
  const Json one_tau = train("one.json", {"--threshold", "0.5"});
  EXPECT_DOUBLE_EQ(one_tau["threshold"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(one_tau["training"]["focus"]["threshold"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(one_tau["training"]["focus"]["penalty_threshold"].get<double>(), 0.5);
  const Json same = train("same.json", {"--threshold", "0.5", "--penalty-threshold", "0.5"});
  EXPECT_EQ(same["metadata"]["epoch_loss"], one_tau["metadata"]["epoch_loss"]);
  const Json other = train("other.json", {"--threshold", "0.5", "--penalty-threshold", "0.7"});
  EXPECT_DOUBLE_EQ(other["threshold"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(other["training"]["focus"]["penalty_threshold"].get<double>(), 0.7);
  EXPECT_NE(other["metadata"]["epoch_loss"], one_tau["metadata"]["epoch_loss"]);
}

TEST(TriggerCli, TrainTriggerErrorsAreOneLine) {
  const auto dir = scratch_dir("train-trigger-errors");
  write_file(dir / "single.yaml",
             "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\n"
             "dataset: {path: " +
                 (source_dir() / "examples/data/mc-sample.jsonl").string() +
                 ", limit: 3}\n"
                 "protocols:\n  - {name: single}\n");
  ASSERT_EQ(run_parley({"run", "single.yaml", "--out", "run", "--quiet"}, dir).exit_code, 0);
  const auto empty = run_parley({"train-trigger", "run", "--out", "m.json"}, dir);
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("no self-critique responses"), std::string::npos) << empty.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.json"));

  const auto missing = run_parley({"train-trigger", "nowhere", "--out", "m.json"}, dir);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
}

TEST(TriggerCli, ImadWithoutAModelOrWithABadOneIsAConfigError) {
  const auto dir = scratch_dir("imad-config");
  const std::string head =
      "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\n"
      "dataset: {path: " +
      (source_dir() / "examples/data/mc-sample.jsonl").string() + ", limit: 2}\nprotocols:\n";
  write_file(dir / "none.yaml", head + "  - {name: imad}\n");
  const auto none = run_parley({"run", "none.yaml"}, dir);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("protocol imad needs 'trigger_model'"), std::string::npos) << none.err;

  write_file(dir / "missing.yaml", head + "  - {name: imad, trigger_model: absent.json}\n");
  const auto missing = run_parley({"run", "missing.yaml"}, dir);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("file not found: absent.json"), std::string::npos) << missing.err;

  write_file(dir / "bad.json", "{\"format\": \"something else\"}");
  write_file(dir / "bad.yaml", head + "  - {name: imad, trigger_model: bad.json}\n");
  const auto bad = run_parley({"run", "bad.yaml"}, dir);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  EXPECT_NE(bad.err.find("trigger_model"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace parley::testing
