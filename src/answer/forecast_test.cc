// parse_forecast: the protocols paper's extraction rule (§2.3).
#include <gtest/gtest.h>

#include "parley/answer.h"

namespace parley {
namespace {

TEST(ParseForecast, ImpactLineThenFirstSignedPercentage) {
  EXPECT_EQ(parse_forecast("Reasoning...\nImpact: -0.25\nConfidence: 70%"), -0.25);
  EXPECT_EQ(parse_forecast("impact: +1.5% on core CPI"), 1.5);
  EXPECT_EQ(parse_forecast("Core inflation moves +0.3% then -0.1 %."), 0.3);
  EXPECT_EQ(parse_forecast("A drop of - 0.4% is likely"), -0.4);
  EXPECT_FALSE(parse_forecast("Confidence: 80%"));        // unsigned: not a forecast
  EXPECT_FALSE(parse_forecast("a 2-3% range"));           // a range, not a signed value
  EXPECT_FALSE(parse_forecast("step-by-step, no numbers"));
}

TEST(ParseForecast, AnImpactLineMayBeABulletButNotAnyWordBeforeIt) {
  EXPECT_EQ(parse_forecast("- Impact: -0.2\nThen +0.5%"), -0.2);
  EXPECT_EQ(parse_forecast("+ Impact: -0.2\nThen +0.5%"), -0.2);
  // "x impact:" is no Impact line: the first signed percentage of the text is the forecast.
  EXPECT_EQ(parse_forecast("x impact: -0.2\nThen +0.5%"), 0.5);
}

}  // namespace
}  // namespace parley
