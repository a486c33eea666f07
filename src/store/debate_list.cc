// list_sql: the filters as one WHERE clause, the sort as one ORDER BY, values bound.
#include "debate_list.h"

#include <fmt/format.h>

#include "statement.h"

namespace parley {
namespace {

struct Where {
  std::string sql;
  std::vector<SqlValue> values;

  void add(const std::string& condition) { sql += (sql.empty() ? " WHERE " : " AND ") + condition; }
};

Where where_of(const DebateQuery& q, const ResolvedMetrics& metrics) {
  Where w;
  if (q.protocol) {
    w.add("d.protocol = ?");
    w.values.emplace_back(*q.protocol);
  }
  if (q.seed) {
    w.add("d.seed = ?");
    w.values.emplace_back(seed_to_sql(*q.seed));
  }
  if (q.correct) {
    w.add("d.correct = ?");
    w.values.emplace_back(std::int64_t{*q.correct ? 1 : 0});
  }
  if (q.status) {
    w.add("d.status = ?");
    w.values.emplace_back(std::string(debate_status_name(*q.status)));
  }
  if (q.flipped) {
    w.add("d.flipped = ?");
    w.values.emplace_back(std::int64_t{*q.flipped ? 1 : 0});
  }
  for (std::size_t i = 0; i < q.ranges.size(); ++i) {
    const MetricRange& range = q.ranges[i];
    if (!metrics.ranges[i]) {
      w.add("0");  // no debate has the metric, so none is within its range
      continue;
    }
    std::string condition = "EXISTS (SELECT 1 FROM debate_metric r WHERE r.debate = d.id AND r.metric = ?";
    w.values.emplace_back(*metrics.ranges[i]);
    if (range.min) {
      condition += " AND r.value >= ?";
      w.values.emplace_back(*range.min);
    }
    if (range.max) {
      condition += " AND r.value <= ?";
      w.values.emplace_back(*range.max);
    }
    w.add(condition + ")");
  }
  if (!q.text.empty()) {
    // instr, not LIKE: the text is literal, '%' and '_' included. lower() folds ASCII only.
    w.add("(instr(lower(d.task_id), lower(?)) > 0 OR instr(lower(d.final_answer), lower(?)) > 0"
          " OR d.task_id IN (SELECT t.task_id FROM debate_task t"
          " WHERE instr(lower(t.question), lower(?)) > 0 OR instr(lower(t.gold), lower(?)) > 0))");
    for (int i = 0; i < 4; ++i) w.values.emplace_back(q.text);
  }
  return w;
}

// The sort's key columns, each followed by the direction.
std::string order_of(const DebateQuery& q, const ResolvedMetrics& metrics, bool seeds_past_int64) {
  const char* dir = q.descending ? " DESC" : " ASC";
  // Unsigned order of the stored (bit-for-bit signed) seeds: non-negative ones first.
  const std::string seed = seeds_past_int64 ? fmt::format("(d.seed < 0){0}, d.seed{0}", dir) : fmt::format("d.seed{}", dir);
  switch (q.sort) {
    case DebateSort::kTask:
      return fmt::format("d.task_id{0}, d.protocol{0}, {1}", dir, seed);
    case DebateSort::kProtocol:
      return fmt::format("d.protocol{0}, d.id{0}", dir);
    case DebateSort::kSeed:
      return fmt::format("{1}, d.id{0}", dir, seed);
    case DebateSort::kCorrect:
      return fmt::format("d.correct{0}, d.id{0}", dir);
    case DebateSort::kTokens:
      return fmt::format("d.tokens{0}, d.id{0}", dir);
    case DebateSort::kCalls:
      return fmt::format("d.calls{0}, d.id{0}", dir);
    case DebateSort::kRounds:
      return fmt::format("d.rounds{0}, d.id{0}", dir);
    case DebateSort::kLatency:
      return fmt::format("d.latency_ms{0}, d.id{0}", dir);
    case DebateSort::kMetric:
      // Debates without the metric last in either direction.
      if (!metrics.sort) return fmt::format("d.id{}", dir);
      return fmt::format("s.value IS NULL, s.value{0}, d.id{0}", dir);
  }
  return "d.id";
}

}  // namespace

ListSql list_sql(const DebateQuery& q, const ResolvedMetrics& metrics, bool seeds_past_int64) {
  const Where where = where_of(q, metrics);
  ListSql out;
  out.count = "SELECT COUNT(*) FROM debate_index d" + where.sql;
  out.count_values = where.values;
  const bool metric_sort = q.sort == DebateSort::kMetric && metrics.sort;
  out.page = "SELECT d.id FROM debate_index d";
  if (metric_sort) {
    out.page += " LEFT JOIN debate_metric s ON s.debate = d.id AND s.metric = ?";
    out.page_values.emplace_back(*metrics.sort);
  }
  out.page += where.sql + " ORDER BY " + order_of(q, metrics, seeds_past_int64) + " LIMIT ? OFFSET ?";
  out.page_values.insert(out.page_values.end(), where.values.begin(), where.values.end());
  out.page_values.emplace_back(std::int64_t{q.limit});
  out.page_values.emplace_back(q.offset);
  return out;
}

}  // namespace parley
