// The trigger model file: bit-exact save/load round trip and from_json's one-line errors.

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "parley/trigger_model.h"
#include "trigger/trigger_test_support.h"

namespace parley {
namespace {

using nlohmann::json;

const TriggerModel& trained() {
  static const TriggerModel model = [] {
    TrainOptions o;
    o.shape = MlpShape{3, 8, 0.2};
    o.epochs = 5;
    TriggerModel m = TriggerModel::train(trigger_test::synthetic_set(80, 21, 6), o).value();
    m.metadata() = {{"trained_on", "synthetic"}, {"simulated", true}};
    return m;
  }();
  return model;
}

std::string error_of(const json& j, const std::vector<std::string>* expected = nullptr) {
  const Result<TriggerModel> m = TriggerModel::from_json(j, expected);
  EXPECT_FALSE(m.ok());
  return m.ok() ? std::string() : m.error().message;
}

TEST(TriggerModelIo, SaveLoadRoundTripIsBitExact) {
  const TriggerModel& m = trained();
  const std::string path =
      (std::filesystem::temp_directory_path() / ("parley_trigger_" + std::to_string(::getpid()) + ".json"))
          .string();
  ASSERT_TRUE(m.save(path).ok());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  const std::vector<std::string> names = m.feature_names();
  const Result<TriggerModel> loaded = TriggerModel::load(path, &names);
  std::filesystem::remove(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const TrainingSet probe = trigger_test::synthetic_set(50, 22, 6);
  for (const auto& row : probe.rows) {
    EXPECT_EQ(loaded->score(row).p, m.score(row).p);
    EXPECT_EQ(loaded->score(row).u, m.score(row).u);
  }
  EXPECT_EQ(loaded->threshold(), m.threshold());
  EXPECT_EQ(loaded->feature_names(), m.feature_names());
  EXPECT_EQ(loaded->confidence_feature(), "FinalConfidence");
  EXPECT_EQ(loaded->loss(), "af+6*cp+5*ece");
  EXPECT_EQ(loaded->metadata()["trained_on"], "synthetic");
  EXPECT_EQ(loaded->to_json(), m.to_json());
}

TEST(TriggerModelIo, FileLayout) {
  const json j = trained().to_json();
  EXPECT_EQ(j["format"], "parley-trigger-model");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["shape"]["layers"], 3);
  EXPECT_EQ(j["shape"]["hidden"], 8);
  EXPECT_EQ(j["network"]["blocks"].size(), 3u);
  EXPECT_EQ(j["network"]["blocks"][0]["weight"].size(), 8u);     // rows = units
  EXPECT_EQ(j["network"]["blocks"][0]["weight"][0].size(), 6u);  // columns = features
  EXPECT_EQ(j["scaler"]["mean"].size(), 6u);
  EXPECT_EQ(j["training"]["epochs"], 5);
  EXPECT_EQ(j["threshold"], 0.7);
}

TEST(TriggerModelIo, LoadErrors) {
  EXPECT_NE(TriggerModel::load("/nonexistent/model.json").error().message.find("cannot open"),
            std::string::npos);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("parley_trigger_bad_" + std::to_string(::getpid()) + ".json"))
                               .string();
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs("{\"format\": ", f);
    std::fclose(f);
  }
  const Result<TriggerModel> bad = TriggerModel::load(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("not valid JSON"), std::string::npos);
}

TEST(TriggerModelFromJson, WrongFormatOrVersion) {
  json j = trained().to_json();
  j["version"] = 2;
  EXPECT_EQ(error_of(j), "trigger model: version: unsupported version 2 (this build reads version 1)");
  j = trained().to_json();
  j["format"] = "something-else";
  EXPECT_NE(error_of(j).find("format: expected \"parley-trigger-model\""), std::string::npos);
  j.erase("format");
  EXPECT_EQ(error_of(j), "trigger model: missing field 'format'");
  EXPECT_EQ(error_of(json::array()), "trigger model: expected a JSON object");
}

TEST(TriggerModelFromJson, FeatureListMustMatchTheExpectedOne) {
  const json j = trained().to_json();
  std::vector<std::string> expected = trained().feature_names();  // FinalConfidence, f1 … f5
  EXPECT_TRUE(TriggerModel::from_json(j, &expected).ok());

  std::vector<std::string> more = expected;
  more.push_back("Hedges");
  EXPECT_EQ(error_of(j, &more),
            "trigger model: feature_names: feature list differs from the expected one: missing 'Hedges'");

  std::vector<std::string> renamed = expected;
  renamed[2] = "Hedges";
  EXPECT_EQ(error_of(j, &renamed),
            "trigger model: feature_names: feature list differs from the expected one: missing 'Hedges'; "
            "extra 'f2'");

  std::vector<std::string> swapped = expected;
  std::swap(swapped[1], swapped[3]);
  EXPECT_EQ(
      error_of(j, &swapped),
      "trigger model: feature_names: feature list differs from the expected one: same names out of order "
      "(position 1: model has 'f1', expected 'f3')");
}

TEST(TriggerModelFromJson, TruncatedOrMissingWeights) {
  json j = trained().to_json();
  j["network"]["blocks"][1]["weight"][4].erase(7);
  EXPECT_EQ(error_of(j), "trigger model: network.blocks[1].weight[4]: expected 8 values, got 7");

  j = trained().to_json();
  j["network"]["blocks"].erase(2);
  EXPECT_EQ(error_of(j), "trigger model: network.blocks: expected 3 blocks (shape.layers)");

  j = trained().to_json();
  j["network"]["p_head"]["weight"].erase(0);
  EXPECT_EQ(error_of(j), "trigger model: network.p_head.weight: expected 8 values, got 7");

  j = trained().to_json();
  j["scaler"]["scale"].erase(5);
  EXPECT_EQ(error_of(j), "trigger model: scaler.scale: expected 6 values, got 5");

  j = trained().to_json();
  j["network"]["u_head"].erase("bias");
  EXPECT_EQ(error_of(j), "trigger model: network.u_head: missing field 'bias'");

  j = trained().to_json();
  j["network"]["blocks"][0]["running_var"][3] = "x";
  EXPECT_EQ(error_of(j), "trigger model: network.blocks[0].running_var[3]: expected a number");

  j = trained().to_json();
  j["confidence_feature"] = "Confidence";
  EXPECT_EQ(error_of(j), "trigger model: confidence_feature: 'Confidence' is not a feature");
}

}  // namespace
}  // namespace parley
