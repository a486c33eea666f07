// The API's query parameters: every one read, every bad value named.
#include "view/query_params.h"

#include <gtest/gtest.h>

namespace parley::view {
namespace {

DebateQuery good(const Params& params) {
  auto parsed = parse_debate_query(params);
  if (auto* bad = std::get_if<BadParameter>(&parsed)) {
    ADD_FAILURE() << bad->message;
    return {};
  }
  return std::get<DebateQuery>(parsed);
}

// The parameter a bad request is blamed on, and its message.
BadParameter bad(const Params& params) {
  auto parsed = parse_debate_query(params);
  if (auto* error = std::get_if<BadParameter>(&parsed)) return *error;
  ADD_FAILURE() << "accepted";
  return {};
}

TEST(QueryParams, NothingGivenIsTheFirstPageOfEveryDebateByTask) {
  const DebateQuery q = good({});
  EXPECT_FALSE(q.protocol);
  EXPECT_FALSE(q.seed);
  EXPECT_FALSE(q.correct);
  EXPECT_FALSE(q.status);
  EXPECT_FALSE(q.flipped);
  EXPECT_TRUE(q.ranges.empty());
  EXPECT_EQ(q.text, "");
  EXPECT_EQ(q.sort, DebateSort::kTask);
  EXPECT_FALSE(q.descending);
  EXPECT_EQ(q.offset, 0);
  EXPECT_EQ(q.limit, 50);
}

TEST(QueryParams, EveryParameterIsRead) {
  const DebateQuery q = good({{"protocol", "debate"},
                              {"seed", "18446744073709551615"},
                              {"correct", "0"},
                              {"status", "budget"},
                              {"flipped", "1"},
                              {"range", "u_sys:0.25:"},
                              {"range", "maci:cl:-1e-3:2"},
                              {"range", "prr::0.5"},
                              {"q", "100% <script>"},
                              {"sort", "metric:u_sys"},
                              {"order", "desc"},
                              {"offset", "500000"},
                              {"limit", "200"}});
  EXPECT_EQ(q.protocol, "debate");
  EXPECT_EQ(q.seed, 18446744073709551615ULL);
  EXPECT_EQ(q.correct, false);
  EXPECT_EQ(q.status, DebateStatus::kBudget);
  EXPECT_EQ(q.flipped, true);
  ASSERT_EQ(q.ranges.size(), 3u);
  EXPECT_EQ(q.ranges[0].name, "u_sys");
  EXPECT_EQ(q.ranges[0].min, 0.25);
  EXPECT_FALSE(q.ranges[0].max);
  EXPECT_EQ(q.ranges[1].name, "maci:cl");  // a name with a colon: split at the last two
  EXPECT_EQ(q.ranges[1].min, -1e-3);
  EXPECT_EQ(q.ranges[1].max, 2.0);
  EXPECT_EQ(q.ranges[2].name, "prr");
  EXPECT_FALSE(q.ranges[2].min);
  EXPECT_EQ(q.ranges[2].max, 0.5);
  EXPECT_EQ(q.text, "100% <script>");
  EXPECT_EQ(q.sort, DebateSort::kMetric);
  EXPECT_EQ(q.sort_metric, "u_sys");
  EXPECT_TRUE(q.descending);
  EXPECT_EQ(q.offset, 500000);
  EXPECT_EQ(q.limit, 200);
}

TEST(QueryParams, EachSortKeyAndFlag) {
  const std::vector<std::pair<std::string, DebateSort>> keys = {
      {"task", DebateSort::kTask},       {"protocol", DebateSort::kProtocol}, {"seed", DebateSort::kSeed},
      {"correct", DebateSort::kCorrect}, {"tokens", DebateSort::kTokens},     {"calls", DebateSort::kCalls},
      {"rounds", DebateSort::kRounds},   {"latency", DebateSort::kLatency}};
  for (const auto& [name, sort] : keys) EXPECT_EQ(good({{"sort", name}}).sort, sort) << name;
  EXPECT_FALSE(good({{"order", "asc"}}).descending);
  EXPECT_EQ(good({{"correct", "1"}}).correct, true);
  EXPECT_EQ(good({{"flipped", "0"}}).flipped, false);
  EXPECT_EQ(good({{"status", "completed"}}).status, DebateStatus::kCompleted);
  EXPECT_EQ(good({{"status", "failed"}}).status, DebateStatus::kFailed);
  EXPECT_EQ(good({{"limit", "0"}}).limit, 0);
  EXPECT_EQ(good({{"seed", "0"}}).seed, 0u);
}

TEST(QueryParams, AnEmptyValueIsTheParameterLeftOut) {
  const DebateQuery q = good({{"protocol", ""}, {"seed", ""}, {"correct", ""}, {"status", ""}, {"flipped", ""},
                              {"range", ""}, {"q", ""}, {"sort", ""}, {"order", ""}, {"offset", ""}, {"limit", ""}});
  EXPECT_FALSE(q.protocol);
  EXPECT_FALSE(q.seed);
  EXPECT_TRUE(q.ranges.empty());
  EXPECT_EQ(q.limit, 50);
}

TEST(QueryParams, EachBadValueNamesItsParameter) {
  const std::vector<std::pair<Params, std::string>> cases = {
      {{{"seed", "-1"}}, "seed"},
      {{{"seed", "18446744073709551616"}}, "seed"},  // 2^64
      {{{"seed", "1.5"}}, "seed"},
      {{{"seed", "0x10"}}, "seed"},
      {{{"seed", " 1"}}, "seed"},
      {{{"correct", "yes"}}, "correct"},
      {{{"correct", "2"}}, "correct"},
      {{{"flipped", "true"}}, "flipped"},
      {{{"status", "cancelled"}}, "status"},  // never stored
      {{{"status", "Completed"}}, "status"},
      {{{"range", "u"}}, "range"},
      {{{"range", "u:1"}}, "range"},
      {{{"range", ":0:1"}}, "range"},
      {{{"range", "u:a:1"}}, "range"},
      {{{"range", "u:0:nan"}}, "range"},
      {{{"range", "u:0:inf"}}, "range"},
      {{{"range", "u:1e999:"}}, "range"},
      {{{"range", "u:0:1x"}}, "range"},
      {{{"sort", "bogus"}}, "sort"},
      {{{"sort", "metric:"}}, "sort"},
      {{{"sort", "TOKENS"}}, "sort"},
      {{{"order", "up"}}, "order"},
      {{{"offset", "-1"}}, "offset"},
      {{{"offset", "ten"}}, "offset"},
      {{{"offset", "99999999999999999999"}}, "offset"},
      {{{"limit", "201"}}, "limit"},
      {{{"limit", "-1"}}, "limit"},
      {{{"limit", "5.0"}}, "limit"},
      {{{"q", std::string(501, 'x')}}, "q"},
      {{{"colour", "red"}}, "colour"},          // unknown
      {{{"task", "t1"}}, "task"},               // a parameter of another route
      {{{"protocol", "a"}, {"protocol", "b"}}, "protocol"},  // twice
      {{{"sort", "tokens"}, {"sort", "calls"}}, "sort"},
  };
  for (const auto& [params, parameter] : cases) {
    const BadParameter error = bad(params);
    EXPECT_EQ(error.parameter, parameter) << error.message;
    EXPECT_TRUE(error.message.starts_with(parameter + ": ")) << error.message;
  }
  EXPECT_EQ(bad({{"limit", "500"}}).message, "limit: \"500\" is not a count from 0 to 200");
  EXPECT_EQ(bad({{"range", "u:a:1"}}).message, "range: \"a\" in \"u:a:1\" is not a finite number");
  EXPECT_EQ(bad({{"colour", "red"}}).message, "colour: unknown parameter");
}

TEST(QueryParams, AtMostSixteenRangesAndFiveHundredBytesOfText) {
  Params params;
  for (int i = 0; i < 16; ++i) params.emplace("range", "u:0:1");
  params.emplace("q", std::string(500, 'x'));
  EXPECT_EQ(good(params).ranges.size(), 16u);
  params.emplace("range", "u:0:1");
  EXPECT_EQ(bad(params).parameter, "range");
}

TEST(QueryParams, AUnitNeedsAllThreeParts) {
  auto unit = parse_unit({{"task", "t1"}, {"protocol", "debate"}, {"seed", "18446744073709551615"}});
  ASSERT_TRUE(std::holds_alternative<UnitKey>(unit));
  EXPECT_EQ(std::get<UnitKey>(unit), (UnitKey{"t1", "debate", 18446744073709551615ULL}));
  const std::vector<std::pair<Params, std::string>> cases = {
      {{{"protocol", "debate"}, {"seed", "1"}}, "task"},
      {{{"task", "t1"}, {"seed", "1"}}, "protocol"},
      {{{"task", "t1"}, {"protocol", "debate"}}, "seed"},
      {{{"task", ""}, {"protocol", "debate"}, {"seed", "1"}}, "task"},
      {{{"task", "t1"}, {"protocol", "debate"}, {"seed", "x"}}, "seed"},
      {{{"task", "t1"}, {"protocol", "debate"}, {"seed", "1"}, {"sort", "task"}}, "sort"},
      {{{"task", "t1"}, {"task", "t2"}, {"protocol", "debate"}, {"seed", "1"}}, "task"},
  };
  for (const auto& [params, parameter] : cases) {
    auto parsed = parse_unit(params);
    ASSERT_TRUE(std::holds_alternative<BadParameter>(parsed)) << parameter;
    EXPECT_EQ(std::get<BadParameter>(parsed).parameter, parameter) << std::get<BadParameter>(parsed).message;
  }
}

}  // namespace
}  // namespace parley::view
