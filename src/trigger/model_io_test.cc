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
  EXPECT_EQ(TriggerModel::load("/nonexistent/model.json").error().message,
            "trigger model: /nonexistent/model.json: file not found");
  EXPECT_EQ(TriggerModel::load("/tmp").error().message, "trigger model: /tmp: is a directory, not a file");
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

// Each field from_json reads is checked, and the error names it (docs/trigger.md, "Model file").
TEST(TriggerModelFromJson, EveryFieldNamesItsOwnError) {
  auto with = [](auto change) {
    json j = trained().to_json();
    change(j);
    return error_of(j);
  };
  EXPECT_EQ(with([](json& j) { j["format"] = 1; }),
            "trigger model: format: expected \"parley-trigger-model\", got 1");
  EXPECT_EQ(with([](json& j) { j["version"] = "1"; }),
            "trigger model: version: unsupported version \"1\" (this build reads version 1)");
  EXPECT_EQ(with([](json& j) { j["feature_names"] = json::array(); }),
            "trigger model: feature_names: expected a non-empty array of names");
  EXPECT_EQ(with([](json& j) { j["feature_names"] = "FinalConfidence"; }),
            "trigger model: feature_names: expected a non-empty array of names");
  EXPECT_EQ(with([](json& j) { j["feature_names"][1] = 3; }), "trigger model: feature_names: expected strings");
  EXPECT_EQ(with([](json& j) { j["feature_names"][2] = "f1"; }), "trigger model: feature_names: 'f1' twice");
  EXPECT_EQ(with([](json& j) { j["confidence_feature"] = 0; }),
            "trigger model: confidence_feature: expected a string");
  EXPECT_EQ(with([](json& j) { j["scaler"] = json::array(); }), "trigger model: scaler: expected an object");
  EXPECT_EQ(with([](json& j) { j["scaler"]["mean"] = "x"; }), "trigger model: scaler.mean: expected an array");
  EXPECT_EQ(with([](json& j) { j["scaler"]["mean"][0] = "x"; }),
            "trigger model: scaler.mean[0]: expected a number");
  EXPECT_EQ(with([](json& j) { j["scaler"]["scale"][2] = 0.0; }),
            "trigger model: scaler.scale: values must be positive");
  EXPECT_EQ(with([](json& j) { j["scaler"]["scale"][5] = -1.5; }),
            "trigger model: scaler.scale: values must be positive");
  EXPECT_EQ(with([](json& j) { j["threshold"] = "high"; }), "trigger model: threshold: expected a number");
  EXPECT_EQ(with([](json& j) { j["loss"] = 5; }), "trigger model: loss: expected a string");
  EXPECT_EQ(with([](json& j) { j["shape"]["layers"] = 1.5; }), "trigger model: shape.layers: expected an integer");
  EXPECT_EQ(with([](json& j) { j["shape"]["layers"] = 0; }),
            "trigger model: shape: layers and hidden must be positive");
  EXPECT_EQ(with([](json& j) { j["shape"]["hidden"] = 0; }),
            "trigger model: shape: layers and hidden must be positive");
  EXPECT_EQ(with([](json& j) { j["shape"]["dropout"] = "none"; }),
            "trigger model: shape.dropout: expected a number");
  EXPECT_EQ(with([](json& j) { j["network"].erase("batch_norm_eps"); }),
            "trigger model: network: missing field 'batch_norm_eps'");
  EXPECT_EQ(with([](json& j) { j["network"]["blocks"] = json::object(); }),
            "trigger model: network.blocks: expected 3 blocks (shape.layers)");
  EXPECT_EQ(with([](json& j) { j["network"]["blocks"][0]["weight"] = json::object(); }),
            "trigger model: network.blocks[0].weight: expected an array of rows");
  EXPECT_EQ(with([](json& j) { j["network"]["blocks"][0]["weight"].erase(7); }),
            "trigger model: network.blocks[0].weight: expected 8 rows, got 7");
  EXPECT_EQ(with([](json& j) { j["network"]["blocks"][0]["weight"][2] = 5; }),
            "trigger model: network.blocks[0].weight[2]: expected an array");
  EXPECT_EQ(with([](json& j) { j["network"]["blocks"][0]["weight"][2][1] = "x"; }),
            "trigger model: network.blocks[0].weight[2][1]: expected a number");
  // Block 0 reads the 6 features, later blocks the 8 hidden units.
  EXPECT_EQ(with([](json& j) { j["network"]["blocks"][1]["weight"] = j["network"]["blocks"][0]["weight"]; }),
            "trigger model: network.blocks[1].weight[0]: expected 8 values, got 6");
  for (const char* key : {"bias", "gamma", "beta", "running_mean", "running_var"}) {
    EXPECT_EQ(with([key](json& j) { j["network"]["blocks"][2][key].erase(0); }),
              std::string("trigger model: network.blocks[2].") + key + ": expected 8 values, got 7");
  }
  EXPECT_EQ(with([](json& j) { j["network"]["u_head"]["weight"].erase(0); }),
            "trigger model: network.u_head.weight: expected 8 values, got 7");
  EXPECT_EQ(with([](json& j) { j["network"]["p_head"].erase("bias"); }),
            "trigger model: network.p_head: missing field 'bias'");
  for (const char* key : {"w1", "w2", "epsilon"}) {
    EXPECT_EQ(with([key](json& j) { j["network"].erase(key); }),
              std::string("trigger model: network: missing field '") + key + "'");
  }
}

// Every value read lands where scoring uses it: a model rebuilt from its file with one number
// changed scores differently (w1, w2, ε, both heads, the scaler, BatchNorm's statistics and eps).
TEST(TriggerModelFromJson, EveryNumberReachesTheScore) {
  const json original = trained().to_json();
  const std::vector<double> row = trigger_test::synthetic_set(1, 23, 6).rows[0];
  const TriggerScore base = TriggerModel::from_json(original).value().score(row);
  EXPECT_EQ(base.p, trained().score(row).p);
  EXPECT_EQ(base.u, trained().score(row).u);
  const std::vector<std::vector<std::string>> paths = {
      {"network", "w1"},          {"network", "w2"},        {"network", "epsilon"}, {"network", "batch_norm_eps"},
      {"network", "p_head", "bias"}, {"network", "u_head", "bias"}};
  for (const auto& path : paths) {
    json j = original;
    json* v = &j;
    for (const auto& key : path) v = &(*v)[key];
    *v = v->get<double>() + 0.5;
    const TriggerScore s = TriggerModel::from_json(j).value().score(row);
    EXPECT_TRUE(s.p != base.p || s.u != base.u) << path.back();
  }
  for (const char* key : {"mean", "scale"}) {
    for (int f = 0; f < 6; ++f) {
      json j = original;
      j["scaler"][key][f] = j["scaler"][key][f].get<double>() + 0.5;
      const TriggerScore s = TriggerModel::from_json(j).value().score(row);
      EXPECT_TRUE(s.p != base.p || s.u != base.u) << "scaler." << key << "[" << f << "]";
    }
  }
  for (const char* key : {"running_mean", "running_var", "gamma", "beta"}) {
    json j = original;
    for (auto& v : j["network"]["blocks"][2][key]) v = v.get<double>() + 0.5;
    const TriggerScore s = TriggerModel::from_json(j).value().score(row);
    EXPECT_TRUE(s.p != base.p || s.u != base.u) << key;
  }
}

TEST(TriggerModelFromJson, SameNamesInAnotherCountAndOptionalSections) {
  std::vector<std::string> doubled = trained().feature_names();
  doubled.push_back(doubled.front());
  EXPECT_EQ(error_of(trained().to_json(), &doubled),
            "trigger model: feature_names: feature list differs from the expected one: same names, different "
            "counts (6 vs 7)");
  // `training` and `metadata` are optional when reading.
  json j = trained().to_json();
  j.erase("training");
  j.erase("metadata");
  const Result<TriggerModel> m = TriggerModel::from_json(j);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->metadata(), json::object());
  EXPECT_EQ(m->to_json()["training"], json::object());
}

TEST(TriggerModelIo, SaveAndLoadFailuresAreErrors) {
  EXPECT_EQ(trained().save("/nonexistent-parley-dir/model.json").error().message,
            "trigger model: /nonexistent-parley-dir/model.json: cannot write: No such file or directory");
  // The destination is a non-empty directory: the rename fails and the temporary file goes.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("parley_trigger_dir_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "inside");
  const Result<Ok> saved = trained().save(dir.string());
  ASSERT_FALSE(saved.ok());
  EXPECT_EQ(saved.error().message, "trigger model: " + dir.string() + ": cannot write: Is a directory");
  for (const auto& entry : std::filesystem::directory_iterator(dir.parent_path()))
    EXPECT_NE(entry.path().filename().string().rfind(dir.filename().string() + ".tmp", 0), 0u) << "left behind";
  std::filesystem::remove_all(dir);
  // A file that parses but is not a model: the message names the file.
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("parley_trigger_wrong_" + std::to_string(::getpid()) + ".json"))
                               .string();
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs("{\"format\": \"parley-trigger-model\", \"version\": 7}", f);
    std::fclose(f);
  }
  const Result<TriggerModel> bad = TriggerModel::load(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "trigger model: version: unsupported version 7 (this build reads version 1) (in " + path + ")");
}

}  // namespace
}  // namespace parley
