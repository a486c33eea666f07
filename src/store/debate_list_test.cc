// The list's statements: fixed fragments, every value bound in order, the query's text never in
// the SQL; and when a page is walked along an index rather than sorted.
#include "debate_list.h"

#include <gtest/gtest.h>

namespace parley {
namespace {

// Each bound value with its type: i:42, d:0.250000, s:text.
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

// The ORDER BY of a statement, up to its LIMIT.
std::string order_by(const std::string& sql) {
  const auto from = sql.find(" ORDER BY ") + 10;
  return sql.substr(from, sql.find(" LIMIT") - from);
}

TEST(DebateListSql, ASearchIsALiteralLikePattern) {
  EXPECT_EQ(like_pattern("planet"), "%planet%");
  EXPECT_EQ(like_pattern("100%_x\\y"), "%100\\%\\_x\\\\y%");
  EXPECT_EQ(like_pattern("'; DROP TABLE debates; --"), "%'; DROP TABLE debates; --%");
}

TEST(DebateListSql, AnAnswerContainsTheTextAsLikeWouldFindIt) {
  EXPECT_TRUE(contains_like("Paris, France", "paris"));
  EXPECT_TRUE(contains_like("paris", "PARIS"));
  EXPECT_TRUE(contains_like("B", "b"));
  EXPECT_TRUE(contains_like("a", "A"));
  EXPECT_TRUE(contains_like("ZEBRA", "zebra"));  // both ends of the alphabet fold
  EXPECT_FALSE(contains_like("@[", "`{"));       // the characters beside them do not
  EXPECT_TRUE(contains_like("x", ""));
  EXPECT_FALSE(contains_like("Par is", "paris"));
  EXPECT_FALSE(contains_like("B", "BB"));
  // Only ASCII letters fold, as in SQLite's LIKE: É and é stay apart.
  EXPECT_FALSE(contains_like("\xC3\x89" "cole", "\xC3\xA9" "cole"));
  EXPECT_TRUE(contains_like("\xC3\x89" "COLE", "\xC3\x89" "cole"));
  EXPECT_FALSE(contains_like("[a]", "[b]"));
}

TEST(DebateListSql, ASearchFindsListedAnswersThroughTheirIndex) {
  DebateQuery q;
  q.text = "b";
  Resolved listed;
  listed.answers = std::vector<std::string>{"B", "ab"};
  const Sql count = count_sql(q, listed, {});
  EXPECT_EQ(count.text,
            "SELECT COUNT(*) FROM debate_index d WHERE (d.task_id IN (SELECT t.task_id FROM debate_task t WHERE"
            " t.task_id LIKE ? ESCAPE '\\' OR t.question LIKE ? ESCAPE '\\' OR t.gold LIKE ? ESCAPE '\\')"
            " OR d.final_answer IN (?, ?))");
  EXPECT_EQ(shown(count.values), (Values{"s:%b%", "s:%b%", "s:%b%", "s:B", "s:ab"}));
  // No answer has it: the tasks alone.
  listed.answers->clear();
  EXPECT_EQ(count_sql(q, listed, {}).text,
            "SELECT COUNT(*) FROM debate_index d WHERE (d.task_id IN (SELECT t.task_id FROM debate_task t WHERE"
            " t.task_id LIKE ? ESCAPE '\\' OR t.question LIKE ? ESCAPE '\\' OR t.gold LIKE ? ESCAPE '\\'))");
  EXPECT_EQ(shown(count_sql(q, listed, {}).values), (Values{"s:%b%", "s:%b%", "s:%b%"}));
}

TEST(DebateListSql, NoFilterCountsAllAndWalksTheKey) {
  DebateQuery q;
  q.limit = 50;
  EXPECT_EQ(count_sql(q, {}, {}).text, "SELECT COUNT(*) FROM debate_index d");
  EXPECT_TRUE(count_sql(q, {}, {}).values.empty());
  const Sql page = page_sql(q, {}, {}, true);
  EXPECT_EQ(page.text,
            "SELECT d.id FROM debate_index d INDEXED BY debate_index_unit ORDER BY d.task_id ASC, d.protocol ASC,"
            " d.seed ASC LIMIT ? OFFSET ?");
  EXPECT_EQ(shown(page.values), (Values{"i:50", "i:0"}));
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
  q.sort = DebateSort::kTokens;
  q.descending = true;
  q.offset = 40;
  q.limit = 20;
  const Resolved metrics{std::nullopt, {7, 9}};
  const Sql count = count_sql(q, metrics, {});
  EXPECT_EQ(count.text,
            "SELECT COUNT(*) FROM debate_index d WHERE d.protocol = ? AND d.seed = ? AND d.correct = ?"
            " AND d.task_id IN (SELECT g.task_id FROM debate_task g WHERE g.gold <> '') AND d.status = ?"
            " AND d.flipped = ?"
            " AND EXISTS (SELECT 1 FROM debate_metric r WHERE r.debate = d.id AND r.metric = ? AND r.value >= ?)"
            " AND EXISTS (SELECT 1 FROM debate_metric r WHERE r.debate = d.id AND r.metric = ? AND r.value <= ?)"
            " AND (d.task_id IN (SELECT t.task_id FROM debate_task t WHERE t.task_id LIKE ? ESCAPE '\\'"
            " OR t.question LIKE ? ESCAPE '\\' OR t.gold LIKE ? ESCAPE '\\') OR d.final_answer LIKE ? ESCAPE '\\')");
  const std::string text = "s:%\\%'); DROP TABLE debates; --%";
  const Values where = {"s:debate' OR 1=1 --", "i:-1", "i:0", "s:budget", "i:1", "i:7", "d:0.250000",
                        "i:9", "d:0.750000", text, text, text, text};
  EXPECT_EQ(shown(count.values), where);
  // A walk: along the sort's index, every filter kept off its own index.
  const Sql walk = page_sql(q, metrics, {}, true);
  EXPECT_TRUE(walk.text.starts_with(
      "SELECT d.id FROM debate_index d INDEXED BY debate_index_tokens WHERE +d.protocol = ? AND +d.seed = ? AND"
      " +d.correct = ? AND +d.task_id IN (SELECT g.task_id FROM debate_task g WHERE g.gold <> '') AND +d.status = ?"
      " AND +d.flipped = ? AND EXISTS"))
      << walk.text;
  EXPECT_EQ(order_by(walk.text), "d.tokens DESC, d.id DESC");
  Values page = where;
  page.push_back("i:20");
  page.push_back("i:40");
  EXPECT_EQ(shown(walk.values), page);
  // A sort: the filters as they are, the order's first column kept off its index.
  const Sql sort = page_sql(q, metrics, {}, false);
  EXPECT_TRUE(sort.text.starts_with("SELECT d.id FROM debate_index d WHERE d.protocol = ? AND d.seed = ?")) << sort.text;
  EXPECT_EQ(order_by(sort.text), "+d.tokens DESC, d.id DESC");
  EXPECT_EQ(shown(sort.values), page);
  // The query's words are values, never SQL.
  for (const Sql* sql : {&count, &walk, &sort}) {
    EXPECT_EQ(sql->text.find("DROP"), std::string::npos);
    EXPECT_EQ(sql->text.find("1=1"), std::string::npos);
  }
}

TEST(DebateListSql, AMetricsRangeIsReadFromTheValueIndexWhereThereIsOne) {
  DebateQuery q;
  q.ranges = {{"u", 0.25, 0.5}};
  const Resolved metrics{std::nullopt, {4}};
  EXPECT_EQ(count_sql(q, metrics, {}).text,
            "SELECT COUNT(*) FROM debate_index d WHERE EXISTS (SELECT 1 FROM debate_metric r WHERE r.debate = d.id"
            " AND r.metric = ? AND r.value >= ? AND r.value <= ?)");
  ListContext indexed;
  indexed.metric_value_index = true;
  EXPECT_EQ(count_sql(q, metrics, indexed).text,
            "SELECT COUNT(*) FROM debate_index d WHERE d.id IN (SELECT r.debate FROM debate_metric r WHERE r.metric = ?"
            " AND r.value >= ? AND r.value <= ?)");
  EXPECT_EQ(shown(count_sql(q, metrics, indexed).values), (Values{"i:4", "d:0.250000", "d:0.500000"}));
}

TEST(DebateListSql, AMetricNoDebateHasMatchesNothingAndSortsByTheKey) {
  DebateQuery q;
  q.ranges = {{"ghost", 0.0, 1.0}};
  q.sort = DebateSort::kMetric;
  q.sort_metric = "ghost";
  const Resolved metrics{std::nullopt, {std::nullopt}};
  EXPECT_EQ(count_sql(q, metrics, {}).text, "SELECT COUNT(*) FROM debate_index d WHERE 0");
  EXPECT_TRUE(count_sql(q, metrics, {}).values.empty());
  EXPECT_EQ(page_sql(q, metrics, {}, false).text,
            "SELECT d.id FROM debate_index d WHERE 0 ORDER BY d.id ASC LIMIT ? OFFSET ?");
  // With a filter the metric's absence leaves, its value is bound.
  q.ranges.clear();
  q.protocol = "mad";
  q.limit = 9;
  const Sql filtered = page_sql(q, Resolved{}, {}, false);
  EXPECT_EQ(filtered.text, "SELECT d.id FROM debate_index d WHERE d.protocol = ? ORDER BY d.id ASC LIMIT ? OFFSET ?");
  EXPECT_EQ(shown(filtered.values), (Values{"s:mad", "i:9", "i:0"}));
}

TEST(DebateListSql, EachSortsOrderWalkedAndSorted) {
  const auto order = [](DebateSort sort, bool descending, bool big_seeds, bool walk) {
    DebateQuery q;
    q.sort = sort;
    q.descending = descending;
    ListContext context;
    context.seeds_past_int64 = big_seeds;
    return order_by(page_sql(q, Resolved{3, {}}, context, walk).text);
  };
  EXPECT_EQ(order(DebateSort::kTask, false, false, true), "d.task_id ASC, d.protocol ASC, d.seed ASC");
  EXPECT_EQ(order(DebateSort::kTask, false, false, false), "+d.task_id ASC, d.protocol ASC, d.seed ASC");
  EXPECT_EQ(order(DebateSort::kTask, true, true, false),
            "+d.task_id DESC, d.protocol DESC, (d.seed < 0) DESC, d.seed DESC");
  EXPECT_EQ(order(DebateSort::kProtocol, false, false, true), "d.protocol ASC, d.id ASC");
  EXPECT_EQ(order(DebateSort::kSeed, false, false, true), "d.seed ASC, d.id ASC");
  EXPECT_EQ(order(DebateSort::kSeed, false, false, false), "+d.seed ASC, d.id ASC");
  EXPECT_EQ(order(DebateSort::kSeed, false, true, false), "(d.seed < 0) ASC, d.seed ASC, d.id ASC");
  EXPECT_EQ(order(DebateSort::kCorrect, true, false, true), "d.correct DESC, d.id DESC");
  EXPECT_EQ(order(DebateSort::kTokens, false, false, true), "d.tokens ASC, d.id ASC");
  EXPECT_EQ(order(DebateSort::kCalls, false, false, false), "+d.calls ASC, d.id ASC");
  EXPECT_EQ(order(DebateSort::kRounds, false, false, true), "d.rounds ASC, d.id ASC");
  EXPECT_EQ(order(DebateSort::kLatency, true, false, true), "d.latency_ms DESC, d.id DESC");
  EXPECT_EQ(order(DebateSort::kMetric, false, false, false), "s.value IS NULL, s.value ASC, d.id ASC");
  // Each walk goes along its own index.
  for (const auto& [sort, index] : std::vector<std::pair<DebateSort, std::string>>{
           {DebateSort::kProtocol, "debate_index_protocol"}, {DebateSort::kSeed, "debate_index_seed"},
           {DebateSort::kCorrect, "debate_index_correct"},   {DebateSort::kCalls, "debate_index_calls"},
           {DebateSort::kRounds, "debate_index_rounds"},     {DebateSort::kLatency, "debate_index_latency"}}) {
    DebateQuery q;
    q.sort = sort;
    EXPECT_NE(page_sql(q, {}, {}, true).text.find("INDEXED BY " + index + " "), std::string::npos) << index;
    EXPECT_EQ(page_sql(q, {}, {}, false).text.find("INDEXED BY"), std::string::npos) << index;
  }
}

TEST(DebateListSql, AMetricSortWalkedReadsThoseWithItThenThoseWithout) {
  DebateQuery q;
  q.sort = DebateSort::kMetric;
  q.sort_metric = "u";
  q.descending = true;
  const Resolved metrics{5, {}};
  const Sql with = with_metric_page_sql(q, metrics, {}, 20, 100);
  EXPECT_EQ(with.text,
            "SELECT m.debate FROM debate_metric m INDEXED BY debate_metric_value WHERE m.metric = ?"
            " ORDER BY m.value DESC, m.debate DESC LIMIT ? OFFSET ?");
  EXPECT_EQ(shown(with.values), (Values{"i:5", "i:20", "i:100"}));
  EXPECT_EQ(with_metric_count_sql(q, metrics, {}).text, "SELECT COUNT(*) FROM debate_metric m WHERE m.metric = ?");
  const Sql without = without_metric_page_sql(q, metrics, {}, 7, 3);
  EXPECT_EQ(without.text,
            "SELECT d.id FROM debate_index d WHERE NOT EXISTS (SELECT 1 FROM debate_metric x WHERE x.debate = d.id"
            " AND x.metric = ?) ORDER BY d.id DESC LIMIT ? OFFSET ?");
  EXPECT_EQ(shown(without.values), (Values{"i:5", "i:7", "i:3"}));
  // With a filter, each entry's row is looked up for it.
  q.protocol = "mad";
  q.descending = false;
  const Sql filtered = with_metric_page_sql(q, metrics, {}, 20, 0);
  EXPECT_EQ(filtered.text,
            "SELECT m.debate FROM debate_metric m INDEXED BY debate_metric_value CROSS JOIN debate_index d"
            " ON d.id = m.debate WHERE m.metric = ? AND +d.protocol = ? ORDER BY m.value ASC, m.debate ASC"
            " LIMIT ? OFFSET ?");
  EXPECT_EQ(shown(filtered.values), (Values{"i:5", "s:mad", "i:20", "i:0"}));
  EXPECT_EQ(with_metric_count_sql(q, metrics, {}).text,
            "SELECT COUNT(*) FROM debate_metric m JOIN debate_index d ON d.id = m.debate WHERE m.metric = ?"
            " AND d.protocol = ?");
  EXPECT_EQ(shown(with_metric_count_sql(q, metrics, {}).values), (Values{"i:5", "s:mad"}));
  const Sql without_filtered = without_metric_page_sql(q, metrics, {}, 7, 3);
  EXPECT_EQ(without_filtered.text,
            "SELECT d.id FROM debate_index d WHERE NOT EXISTS (SELECT 1 FROM debate_metric x WHERE x.debate = d.id"
            " AND x.metric = ?) AND d.protocol = ? ORDER BY d.id ASC LIMIT ? OFFSET ?");
  EXPECT_EQ(shown(without_filtered.values), (Values{"i:5", "s:mad", "i:7", "i:3"}));
}

TEST(DebateListSql, AWalkIsChosenWhenItReadsLittle) {
  DebateQuery q;
  ListContext context;
  // No filter: a walk reads offset + limit index entries, however deep.
  q.offset = 900000;
  EXPECT_TRUE(walk_is_covered(q));
  EXPECT_TRUE(walk_the_index(q, context, 1000000, 1000000));
  // By task, filters on the task's unit are in the index too.
  q.protocol = "single";
  q.seed = 3;
  EXPECT_TRUE(walk_is_covered(q));
  EXPECT_TRUE(walk_the_index(q, context, 10, 1000000));
  q.sort = DebateSort::kTokens;
  EXPECT_FALSE(walk_is_covered(q));
  // Filtered: (offset + limit) × all / matching entries read, against the budget of 20,000.
  q.offset = 0;
  q.limit = 50;
  EXPECT_TRUE(walk_the_index(q, context, 500000, 1000000));  // 100
  EXPECT_TRUE(walk_the_index(q, context, 2500, 1000000));    // 20,000
  EXPECT_FALSE(walk_the_index(q, context, 2499, 1000000));
  q.offset = 250000;
  EXPECT_FALSE(walk_the_index(q, context, 500000, 1000000));  // 500,100
  EXPECT_FALSE(walk_the_index(q, context, 0, 1000000));
  context.walk_budget = 1000000000;
  EXPECT_TRUE(walk_the_index(q, context, 500000, 1000000));
  // Big seeds: no index has their order.
  DebateQuery by_seed;
  by_seed.sort = DebateSort::kSeed;
  context.seeds_past_int64 = true;
  EXPECT_FALSE(walk_the_index(by_seed, context, 10, 10));
  by_seed.sort = DebateSort::kTask;
  EXPECT_FALSE(walk_the_index(by_seed, context, 10, 10));
  by_seed.sort = DebateSort::kTokens;
  EXPECT_TRUE(walk_the_index(by_seed, context, 10, 10));
  // A metric is walked along its value index only where there is one.
  DebateQuery by_metric;
  by_metric.sort = DebateSort::kMetric;
  EXPECT_FALSE(walk_the_index(by_metric, ListContext{}, 10, 10));
  ListContext indexed;
  indexed.metric_value_index = true;
  EXPECT_TRUE(walk_the_index(by_metric, indexed, 10, 10));
  by_metric.flipped = true;
  EXPECT_FALSE(walk_is_covered(by_metric));
}

}  // namespace
}  // namespace parley
