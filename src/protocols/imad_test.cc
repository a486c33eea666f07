// imad on scripted replies with the shipped trigger model: the self-critique's score decides,
// exactly at the threshold; what the trigger event records; the model file's checks.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "parley/features.h"
#include "parley/protocol.h"
#include "parley/trigger_model.h"
#include "protocol_harness.h"

namespace parley {
namespace {

using testing::Harness;
using Json = nlohmann::json;

const std::string kModel = std::string(PARLEY_SOURCE_DIR) + "/examples/imad-trigger.json";

std::string critique_reply() {
  return "Initial answer: A\nInitial reasoning: Mars looks large in the night sky, so it may be the "
         "biggest.\n"
         "Initial confidence: 70%\nSelf-critique: However, Jupiter is a gas giant and could well be larger; "
         "I am "
         "not sure.\nAlternative answer: B\nCritique confidence: 45%\nFinal answer: A\nFinal confidence: 60%";
}

Harness imad_harness() {
  return Harness(
      [](const ChatRequest& r) -> std::string {
        if (r.note.turn == "self_critique") return critique_reply();
        if (r.note.turn == "affirmative") return "I defend A.\nAnswer: A\nConfidence: 70%";
        if (r.note.turn == "negative") return "Jupiter is larger.\nAnswer: B\nConfidence: 90%";
        return Json{
            {"Preference", "Yes"}, {"Supported Side", "Negative"}, {"Reason", "r"}, {"Debate Answer", "B"}}
            .dump();
      },
      2, 1);
}

Json trigger_of(const Transcript& t) {
  for (const auto& e : t.events)
    if (e.kind == "trigger") return Json::parse(e.detail);
  throw std::runtime_error("no trigger event");
}

TEST(Imad, TheEventRecordsTheScoreTheThresholdAndEveryFeature) {
  Harness h = imad_harness();
  const Transcript t = h.run("imad", {{"trigger_model", kModel}});
  const Json trigger = trigger_of(t);
  EXPECT_EQ(trigger["method"], "imad");
  const double p = trigger["p"].get<double>();
  EXPECT_GT(p, 0.0);
  EXPECT_LT(p, 1.0);
  EXPECT_GT(trigger["u"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(trigger["threshold"].get<double>(), 0.7);  // the model file's τ
  EXPECT_EQ(trigger["features"].size(), 41u);
  EXPECT_DOUBLE_EQ(trigger["features"]["FinalConfidence"].get<double>(), 0.60);
  EXPECT_DOUBLE_EQ(trigger["features"]["NegativeConfidence"].get<double>(), 0.45);
  EXPECT_EQ(trigger["single_answer"], "A");
  EXPECT_EQ(trigger["decision"], p < 0.7 ? "debate" : "skip");
  // The score is the model's on the features of this very response.
  const auto model = TriggerModel::load(kModel, &trigger_feature_names());
  ASSERT_TRUE(model) << model.error().message;
  const FeatureExtractor extractor;
  const auto values =
      extractor.extract(self_critique_feature_input("Which planet is largest?", critique_reply()));
  EXPECT_DOUBLE_EQ(model->score(values).p, p);
}

TEST(Imad, TheEventNamesTheSectionsTheResponseLacks) {
  // Bold labels with bare "Confidence:" lines, and no self-critique at all: the confidences are
  // read, and the two sections that are really missing are named (their features are defaults).
  const std::string compact =
      "**Initial Answer:** A\n**Reasoning:** Mars looks large in the night sky, so it may be the biggest.\n"
      "**Confidence:** 70%\n\n**Final Answer:** A\n**Confidence:** 60%";
  Harness h(
      [&](const ChatRequest& r) -> std::string {
        if (r.note.turn.starts_with("self_critique")) return compact;  // the re-ask gets the same
        if (r.note.turn == "affirmative") return "I defend A.\nAnswer: A\nConfidence: 70%";
        if (r.note.turn == "negative") return "Jupiter is larger.\nAnswer: B\nConfidence: 90%";
        return Json{{"Preference", "Yes"}, {"Supported Side", "Negative"}, {"Reason", "r"}, {"Debate Answer", "B"}}
            .dump();
      },
      2, 1);
  const Json trigger = trigger_of(h.run("imad", {{"trigger_model", kModel}}));
  EXPECT_EQ(trigger["missing_sections"], Json::array({"Self-critique", "Critique confidence"}));
  EXPECT_DOUBLE_EQ(trigger["features"]["InitialConfidence"].get<double>(), 0.70);
  EXPECT_DOUBLE_EQ(trigger["features"]["FinalConfidence"].get<double>(), 0.60);
  EXPECT_DOUBLE_EQ(trigger["features"]["NegativeConfidence"].get<double>(), 0.5);  // the default
  EXPECT_DOUBLE_EQ(trigger["features"]["AnswerToken"].get<double>(), 1.0);        // "A"

  Harness complete = imad_harness();
  EXPECT_FALSE(trigger_of(complete.run("imad", {{"trigger_model", kModel}})).contains("missing_sections"));
}

TEST(Imad, DebatesExactlyWhenTheScoreIsBelowTheThreshold) {
  Harness probe = imad_harness();
  const double p =
      trigger_of(probe.run("imad", {{"trigger_model", kModel}, {"threshold", 1.0}}))["p"].get<double>();

  Harness at = imad_harness();
  const Transcript kept = at.run("imad", {{"trigger_model", kModel}, {"threshold", p}});
  EXPECT_EQ(trigger_of(kept)["decision"], "skip");  // p < τ is false at τ = p
  EXPECT_EQ(kept.final_answer, "A");
  EXPECT_EQ(kept.messages.size(), 1u);

  Harness above = imad_harness();
  const Transcript debated =
      above.run("imad", {{"trigger_model", kModel}, {"threshold", std::nextafter(p, 1.0)}});
  EXPECT_EQ(trigger_of(debated)["decision"], "debate");
  EXPECT_EQ(debated.final_answer, "B");
  ASSERT_GE(debated.messages.size(), 4u);
  EXPECT_EQ(debated.messages[1].role, "affirmative");
  EXPECT_EQ(debated.messages[1].agent, "a1");  // the self-critique agent defends its answer
  const std::string& prompt = above.client->requests[1].messages.back().content;
  EXPECT_NE(prompt.find("Your stance: A. Mars"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("Self-critique: However, Jupiter"), std::string::npos)
      << prompt;  // synchronised transcript
}

TEST(Imad, TheModelFileIsCheckedWhenTheExperimentIsRead) {
  const ProtocolInfo* info = find_protocol("imad");
  ASSERT_NE(info, nullptr);
  const ParamSpec* spec = nullptr;
  for (const auto& s : info->params)
    if (s.name == "trigger_model") spec = &s;
  ASSERT_NE(spec, nullptr);
  EXPECT_TRUE(spec->required);
  EXPECT_EQ(spec->kind, ParamKind::kPath);
  EXPECT_EQ(spec->check(ParamValue(kModel)), "");

  // A model over another feature list is refused with the difference named.
  std::ifstream in(kModel);
  Json model = Json::parse(in);
  model["feature_names"][0] = "QuestionLength";
  const auto path = std::filesystem::temp_directory_path() / "parley-imad-test-model.json";
  std::ofstream(path) << model.dump();
  const std::string problem = spec->check(ParamValue(path.string()));
  EXPECT_NE(problem.find("QuestionToken"), std::string::npos) << problem;
  std::filesystem::remove(path);
  EXPECT_NE(spec->check(ParamValue(std::string("/nonexistent/model.json"))), "");
}

}  // namespace
}  // namespace parley
