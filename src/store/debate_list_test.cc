// The list's SQL: fixed fragments, every value bound in order, the query's text never in the SQL.
#include "debate_list.h"

#include <gtest/gtest.h>

namespace parley {
namespace {

// Each bound value with its type: i:42, d:0.25, s:text.
std::vector<std::string> shown(const std::vector<SqlValue>& values) {
  std::vector<std::string> out;
  for (const SqlValue& v : values) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) out.push_back("i:" + std::to_string(*i));
    if (const auto* d = std::get_if<double>(&v)) out.push_back("d:" + std::to_string(*d));
    if (const auto* t = std::get_if<std::string>(&v)) out.push_back("s:" + *t);
  }
  return out;
}

using Values = std::vector<std::string>;

TEST(DebateListSql, NoFilterCountsAllAndPagesByTheKey) {
  DebateQuery q;
  q.limit = 50;
  const ListSql sql = list_sql(q, {}, false);
  EXPECT_EQ(sql.count, "SELECT COUNT(*) FROM debate_index d");
  EXPECT_EQ(sql.page,
            "SELECT d.id FROM debate_index d ORDER BY d.task_id ASC, d.protocol ASC, d.seed ASC LIMIT ? OFFSET ?");
  EXPECT_TRUE(sql.count_values.empty());
  EXPECT_EQ(shown(sql.page_values), (Values{"i:50", "i:0"}));
}

TEST(DebateListSql, EveryValueIsBoundInTheOrderOfItsPlaceholder) {
  DebateQuery q;
  q.protocol = "debate' OR 1=1 --";
  q.seed = 18446744073709551615ULL;  // stored bit for bit: -1
  q.correct = false;
  q.status = DebateStatus::kBudget;
  q.flipped = true;
  q.ranges = {{"u", 0.25, std::nullopt}, {"prr", std::nullopt, 0.75}};
  q.text = "%'); DROP TABLE debates; --";
  q.sort = DebateSort::kMetric;
  q.sort_metric = "u";
  q.descending = true;
  q.offset = 40;
  q.limit = 20;
  const ListSql sql = list_sql(q, ResolvedMetrics{7, {7, 9}}, false);
  EXPECT_EQ(sql.count,
            "SELECT COUNT(*) FROM debate_index d WHERE d.protocol = ? AND d.seed = ? AND d.correct = ? AND d.status = ?"
            " AND d.flipped = ?"
            " AND EXISTS (SELECT 1 FROM debate_metric r WHERE r.debate = d.id AND r.metric = ? AND r.value >= ?)"
            " AND EXISTS (SELECT 1 FROM debate_metric r WHERE r.debate = d.id AND r.metric = ? AND r.value <= ?)"
            " AND (instr(lower(d.task_id), lower(?)) > 0 OR instr(lower(d.final_answer), lower(?)) > 0"
            " OR d.task_id IN (SELECT t.task_id FROM debate_task t"
            " WHERE instr(lower(t.question), lower(?)) > 0 OR instr(lower(t.gold), lower(?)) > 0))");
  const std::string text = "s:" + q.text;
  const Values where = {"s:debate' OR 1=1 --", "i:-1", "i:0", "s:budget", "i:1", "i:7", "d:0.250000",
                        "i:9", "d:0.750000", text, text, text, text};
  EXPECT_EQ(shown(sql.count_values), where);
  EXPECT_TRUE(sql.page.starts_with(
      "SELECT d.id FROM debate_index d LEFT JOIN debate_metric s ON s.debate = d.id AND s.metric = ? WHERE d.protocol"))
      << sql.page;
  EXPECT_TRUE(sql.page.ends_with(" ORDER BY s.value IS NULL, s.value DESC, d.id DESC LIMIT ? OFFSET ?")) << sql.page;
  Values page = {"i:7"};
  page.insert(page.end(), where.begin(), where.end());
  page.push_back("i:20");
  page.push_back("i:40");
  EXPECT_EQ(shown(sql.page_values), page);
  // The query's words are values, never SQL.
  EXPECT_EQ(sql.page.find("DROP"), std::string::npos);
  EXPECT_EQ(sql.page.find("1=1"), std::string::npos);
}

TEST(DebateListSql, AMetricNoDebateHasMatchesNothingAndSortsByTheKey) {
  DebateQuery q;
  q.ranges = {{"ghost", 0.0, 1.0}};
  q.sort = DebateSort::kMetric;
  q.sort_metric = "ghost";
  const ListSql sql = list_sql(q, ResolvedMetrics{std::nullopt, {std::nullopt}}, false);
  EXPECT_EQ(sql.count, "SELECT COUNT(*) FROM debate_index d WHERE 0");
  EXPECT_TRUE(sql.count_values.empty());
  EXPECT_EQ(sql.page, "SELECT d.id FROM debate_index d WHERE 0 ORDER BY d.id ASC LIMIT ? OFFSET ?");
}

TEST(DebateListSql, EachSortsOrderAndTieBreak) {
  const auto order = [](DebateSort sort, bool descending, bool big_seeds) {
    DebateQuery q;
    q.sort = sort;
    q.descending = descending;
    const std::string page = list_sql(q, ResolvedMetrics{3, {}}, big_seeds).page;
    const auto from = page.find(" ORDER BY ") + 10;
    return page.substr(from, page.find(" LIMIT") - from);
  };
  EXPECT_EQ(order(DebateSort::kTask, false, false), "d.task_id ASC, d.protocol ASC, d.seed ASC");
  EXPECT_EQ(order(DebateSort::kTask, true, true), "d.task_id DESC, d.protocol DESC, (d.seed < 0) DESC, d.seed DESC");
  EXPECT_EQ(order(DebateSort::kProtocol, false, false), "d.protocol ASC, d.id ASC");
  EXPECT_EQ(order(DebateSort::kSeed, false, false), "d.seed ASC, d.id ASC");
  EXPECT_EQ(order(DebateSort::kSeed, false, true), "(d.seed < 0) ASC, d.seed ASC, d.id ASC");
  EXPECT_EQ(order(DebateSort::kCorrect, true, false), "d.correct DESC, d.id DESC");
  EXPECT_EQ(order(DebateSort::kTokens, false, false), "d.tokens ASC, d.id ASC");
  EXPECT_EQ(order(DebateSort::kCalls, false, false), "d.calls ASC, d.id ASC");
  EXPECT_EQ(order(DebateSort::kRounds, false, false), "d.rounds ASC, d.id ASC");
  EXPECT_EQ(order(DebateSort::kLatency, true, false), "d.latency_ms DESC, d.id DESC");
  EXPECT_EQ(order(DebateSort::kMetric, false, false), "s.value IS NULL, s.value ASC, d.id ASC");
}

}  // namespace
}  // namespace parley
