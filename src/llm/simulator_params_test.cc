// Loading simulator parameter files: the built-in file, and one clear error per bad field.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "llm/simulator_params.h"
#include "parley/simulator.h"

namespace parley {
namespace {

nlohmann::json builtin() { return nlohmann::json::parse(embedded_simulator_params_json()); }

std::string error_of(const nlohmann::json& json) {
  auto parsed = parse_simulator_params(json.dump(), "p.json");
  return parsed.ok() ? "" : parsed.error().message;
}

TEST(SimulatorParamsTest, BuiltInParametersHaveTheShippedProfiles) {
  const auto params = default_simulator_params();
  EXPECT_EQ(params->version, "parley-simulator-1");
  ASSERT_EQ(params->profiles.size(), 3u);
  EXPECT_LT(params->profiles.at("weak").ability, params->profiles.at("default").ability);
  EXPECT_LT(params->profiles.at("default").ability, params->profiles.at("strong").ability);
  EXPECT_DOUBLE_EQ(params->format_error_rate, 0.025);
}

TEST(SimulatorParamsTest, EmbeddedTextIsTheShippedFile) {
  const char* source = PARLEY_SOURCE_DIR;  // compiled in by parley_test()
  std::ifstream in(std::filesystem::path(source) / "data/simulator/params-v1.json");
  ASSERT_TRUE(in);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, embedded_simulator_params_json());
}

TEST(SimulatorParamsTest, LoadsAUserFile) {
  auto json = builtin();
  json["profiles"]["tiny"] = json["profiles"]["weak"];
  json["profiles"]["tiny"]["ability"] = 0.1;
  const auto path = std::filesystem::temp_directory_path() / "parley_simulator_params_test.json";
  std::ofstream(path) << json.dump(2);
  auto loaded = load_simulator_params(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_DOUBLE_EQ((*loaded)->profiles.at("tiny").ability, 0.1);
}

TEST(SimulatorParamsTest, MissingFileIsAnError) {
  auto loaded = load_simulator_params("/nonexistent/params.json");
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("/nonexistent/params.json"), std::string::npos);
}

TEST(SimulatorParamsTest, ErrorsNameTheField) {
  auto json = builtin();
  json["persuasion_boost"] = 1.0;
  EXPECT_EQ(error_of(json), "p.json: persuasion_boost: unknown field");

  json = builtin();
  json.erase("persuasion");
  EXPECT_EQ(error_of(json), "p.json: persuasion: missing field");

  json = builtin();
  json["profiles"]["strong"].erase("verbosity");
  EXPECT_EQ(error_of(json), "p.json: profiles.strong.verbosity: missing field");

  json = builtin();
  json["profiles"]["weak"]["charm"] = 3;
  EXPECT_EQ(error_of(json), "p.json: profiles.weak.charm: unknown field");

  json = builtin();
  json["attractor_probability"] = 1.5;
  EXPECT_NE(error_of(json).find("attractor_probability: 1.5 is outside [0, 1]"), std::string::npos) << error_of(json);

  json = builtin();
  json["hedge_base"] = "often";
  EXPECT_EQ(error_of(json), "p.json: hedge_base: must be a number");

  json = builtin();
  json["version"] = "parley-simulator-0";
  EXPECT_NE(error_of(json).find("version"), std::string::npos);

  json = builtin();
  json["profiles"].erase("default");
  EXPECT_EQ(error_of(json), "p.json: profiles.default: missing field");

  EXPECT_EQ(parse_simulator_params("{ not json", "p.json").error().message, "p.json: not valid JSON");
}

}  // namespace
}  // namespace parley
