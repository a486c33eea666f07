// The list's statements: the filters as one WHERE clause, the sort as one ORDER BY, every value
// bound; a walk or a sort for each page (debate_list.h).
#include "debate_list.h"

#include <algorithm>

#include <fmt/format.h>

#include "statement.h"

namespace parley {
namespace {

// The tasks whose id, question or gold has the text.
constexpr const char* kTextTasks =
    "d.task_id IN (SELECT t.task_id FROM debate_task t WHERE t.task_id LIKE ? ESCAPE '\\'"
    " OR t.question LIKE ? ESCAPE '\\' OR t.gold LIKE ? ESCAPE '\\')";

struct Where {
  std::vector<std::string> conditions;
  std::vector<SqlValue> values;

  std::string sql(const char* first = " WHERE ") const {
    std::string out;
    for (const std::string& c : conditions) out += (out.empty() ? first : " AND ") + c;
    return out;
  }
};

// The filters. `unindexed`: each column written +d.col, so that the planner reads no filter's
// index (a walk must go along the sort's). A metric's range is found through the value index
// where there is one (the debates in the range, looked up by id), else checked row by row.
Where where_of(const DebateQuery& q, const Resolved& metrics, const ListContext& context, bool unindexed) {
  Where w;
  const char* col = unindexed ? "+d." : "d.";
  const auto add = [&](const char* column, SqlValue value) {
    w.conditions.push_back(fmt::format("{}{} = ?", col, column));
    w.values.push_back(std::move(value));
  };
  if (q.protocol) add("protocol", *q.protocol);
  if (q.seed) add("seed", seed_to_sql(*q.seed));
  if (q.correct) add("correct", std::int64_t{*q.correct ? 1 : 0});
  // Wrong means its task has gold: a debate without it (served traffic) is neither right nor wrong.
  if (q.correct && !*q.correct) {
    w.conditions.push_back(fmt::format("{}task_id IN (SELECT g.task_id FROM debate_task g WHERE g.gold <> '')", col));
  }
  if (q.status) add("status", std::string(debate_status_name(*q.status)));
  if (q.flipped) add("flipped", std::int64_t{*q.flipped ? 1 : 0});
  for (std::size_t i = 0; i < q.ranges.size(); ++i) {
    const MetricRange& range = q.ranges[i];
    if (!metrics.ranges[i]) {
      w.conditions.emplace_back("0");  // no debate has the metric, so none is within its range
      continue;
    }
    std::string condition = context.metric_value_index
                                ? "d.id IN (SELECT r.debate FROM debate_metric r WHERE r.metric = ?"
                                : "EXISTS (SELECT 1 FROM debate_metric r WHERE r.debate = d.id AND r.metric = ?";
    w.values.emplace_back(*metrics.ranges[i]);
    if (range.min) {
      condition += " AND r.value >= ?";
      w.values.emplace_back(*range.min);
    }
    if (range.max) {
      condition += " AND r.value <= ?";
      w.values.emplace_back(*range.max);
    }
    w.conditions.push_back(condition + ")");
  }
  if (!q.text.empty()) {
    const std::string pattern = like_pattern(q.text);
    std::string condition = std::string("(") + kTextTasks;
    for (int i = 0; i < 3; ++i) w.values.emplace_back(pattern);
    if (!metrics.answers) {
      condition += " OR d.final_answer LIKE ? ESCAPE '\\'";
      w.values.emplace_back(pattern);
    } else if (!metrics.answers->empty()) {
      // Both ways indexed: SQLite reads the union of the two (a "multi-index OR").
      condition += " OR d.final_answer IN (?";
      for (std::size_t i = 1; i < metrics.answers->size(); ++i) condition += ", ?";
      condition += ")";
      for (const std::string& answer : *metrics.answers) w.values.emplace_back(answer);
    }
    w.conditions.push_back(condition + ")");
  }
  return w;
}

// The index a walk goes along, for the sorts that have one.
const char* sort_index(DebateSort sort) {
  switch (sort) {
    case DebateSort::kTask: return "debate_index_unit";
    case DebateSort::kProtocol: return "debate_index_protocol";
    case DebateSort::kSeed: return "debate_index_seed";
    case DebateSort::kCorrect: return "debate_index_correct";
    case DebateSort::kTokens: return "debate_index_tokens";
    case DebateSort::kCalls: return "debate_index_calls";
    case DebateSort::kRounds: return "debate_index_rounds";
    case DebateSort::kLatency: return "debate_index_latency";
    case DebateSort::kMetric: return nullptr;
  }
  return nullptr;
}

// The sort's key columns, each with the direction, ties broken by the key. `sorted`: the first
// written +d.col, so that the planner sorts rather than walks an index.
std::string order_of(const DebateQuery& q, const ListContext& context, bool sorted) {
  const char* dir = q.descending ? " DESC" : " ASC";
  const char* col = sorted ? "+d." : "d.";
  // Unsigned order of the stored (bit-for-bit signed) seeds: non-negative ones first.
  const auto seed = [&](const char* prefix) {
    return context.seeds_past_int64 ? fmt::format("(d.seed < 0){0}, d.seed{0}", dir) : fmt::format("{}seed{}", prefix, dir);
  };
  switch (q.sort) {
    case DebateSort::kTask:
      return fmt::format("{1}task_id{0}, d.protocol{0}, {2}", dir, col, seed("d."));
    case DebateSort::kProtocol:
      return fmt::format("{1}protocol{0}, d.id{0}", dir, col);
    case DebateSort::kSeed:
      return fmt::format("{1}, d.id{0}", dir, seed(col));
    case DebateSort::kCorrect:
      return fmt::format("{1}correct{0}, d.id{0}", dir, col);
    case DebateSort::kTokens:
      return fmt::format("{1}tokens{0}, d.id{0}", dir, col);
    case DebateSort::kCalls:
      return fmt::format("{1}calls{0}, d.id{0}", dir, col);
    case DebateSort::kRounds:
      return fmt::format("{1}rounds{0}, d.id{0}", dir, col);
    case DebateSort::kLatency:
      return fmt::format("{1}latency_ms{0}, d.id{0}", dir, col);
    case DebateSort::kMetric:
      return fmt::format("s.value IS NULL, s.value{0}, d.id{0}", dir);
  }
  return "d.id";
}

void append(std::vector<SqlValue>& to, const std::vector<SqlValue>& values) {
  to.insert(to.end(), values.begin(), values.end());
}

}  // namespace

bool contains_like(std::string_view text, std::string_view part) {
  const auto fold = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return std::search(text.begin(), text.end(), part.begin(), part.end(),
                     [&](char a, char b) { return fold(a) == fold(b); }) != text.end();
}

std::string like_pattern(const std::string& text) {
  std::string pattern = "%";
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') pattern += '\\';
    pattern += c;
  }
  return pattern + "%";
}

Sql count_sql(const DebateQuery& q, const Resolved& metrics, const ListContext& context) {
  const Where w = where_of(q, metrics, context, false);
  return {"SELECT COUNT(*) FROM debate_index d" + w.sql(), w.values};
}

bool has_filters(const DebateQuery& q) {
  return q.protocol || q.seed || q.correct || q.status || q.flipped || !q.ranges.empty() || !q.text.empty();
}

bool walk_is_covered(const DebateQuery& q) {
  if (!has_filters(q)) return true;
  // The unit index holds (task, protocol, seed): a walk along it checks those filters in the index.
  return q.sort == DebateSort::kTask && !q.correct && !q.status && !q.flipped && q.ranges.empty() && q.text.empty();
}

bool walk_the_index(const DebateQuery& q, const ListContext& context, std::int64_t matching, std::int64_t all) {
  if (q.sort == DebateSort::kMetric) {
    if (!context.metric_value_index) return false;
  } else if (context.seeds_past_int64 && (q.sort == DebateSort::kSeed || q.sort == DebateSort::kTask)) {
    return false;  // no index has the unsigned order
  }
  if (walk_is_covered(q)) return true;
  if (matching <= 0) return false;  // nothing to read (and no share to divide by)
  // Entries read before the page ends, if the matching debates are spread evenly along the index.
  const double read = static_cast<double>(q.offset + q.limit) * static_cast<double>(all) / static_cast<double>(matching);
  return read <= static_cast<double>(context.walk_budget);
}

Sql page_sql(const DebateQuery& q, const Resolved& metrics, const ListContext& context, bool walk) {
  Sql sql;
  if (q.sort == DebateSort::kMetric) {
    const Where w = where_of(q, metrics, context, false);
    const char* dir = q.descending ? " DESC" : " ASC";
    if (!metrics.sort) {  // no debate has the metric: all lack it, in key order
      sql.text = fmt::format("SELECT d.id FROM debate_index d{} ORDER BY d.id{} LIMIT ? OFFSET ?", w.sql(), dir);
      sql.values = w.values;
    } else {
      sql.text = "SELECT d.id FROM debate_index d LEFT JOIN debate_metric s ON s.debate = d.id AND s.metric = ?" +
                 w.sql() + " ORDER BY " + order_of(q, context, false) + " LIMIT ? OFFSET ?";
      sql.values.emplace_back(*metrics.sort);
      append(sql.values, w.values);
    }
  } else {
    const Where w = where_of(q, metrics, context, walk);
    sql.text = "SELECT d.id FROM debate_index d";
    if (walk) sql.text += fmt::format(" INDEXED BY {}", sort_index(q.sort));
    sql.text += w.sql() + " ORDER BY " + order_of(q, context, !walk) + " LIMIT ? OFFSET ?";
    sql.values = w.values;
  }
  sql.values.emplace_back(std::int64_t{q.limit});
  sql.values.emplace_back(q.offset);
  return sql;
}

Sql with_metric_count_sql(const DebateQuery& q, const Resolved& metrics, const ListContext& context) {
  Sql sql;
  sql.values.emplace_back(metrics.sort.value_or(0));
  if (!has_filters(q)) {
    sql.text = "SELECT COUNT(*) FROM debate_metric m WHERE m.metric = ?";
    return sql;
  }
  const Where w = where_of(q, metrics, context, false);
  sql.text = "SELECT COUNT(*) FROM debate_metric m JOIN debate_index d ON d.id = m.debate WHERE m.metric = ?" +
             w.sql(" AND ");
  append(sql.values, w.values);
  return sql;
}

Sql with_metric_page_sql(const DebateQuery& q, const Resolved& metrics, const ListContext& context,
                         std::int64_t limit, std::int64_t offset) {
  const char* dir = q.descending ? " DESC" : " ASC";
  Sql sql;
  sql.values.emplace_back(metrics.sort.value_or(0));
  if (!has_filters(q)) {
    sql.text = fmt::format(
        "SELECT m.debate FROM debate_metric m INDEXED BY debate_metric_value WHERE m.metric = ?"
        " ORDER BY m.value{0}, m.debate{0} LIMIT ? OFFSET ?",
        dir);
  } else {
    // CROSS JOIN: the value index is the outer loop, each entry's row looked up for the filters.
    const Where w = where_of(q, metrics, context, true);
    sql.text = "SELECT m.debate FROM debate_metric m INDEXED BY debate_metric_value CROSS JOIN debate_index d"
               " ON d.id = m.debate WHERE m.metric = ?" +
               w.sql(" AND ") + fmt::format(" ORDER BY m.value{0}, m.debate{0} LIMIT ? OFFSET ?", dir);
    append(sql.values, w.values);
  }
  sql.values.emplace_back(limit);
  sql.values.emplace_back(offset);
  return sql;
}

Sql without_metric_page_sql(const DebateQuery& q, const Resolved& metrics, const ListContext& context,
                            std::int64_t limit, std::int64_t offset) {
  const Where w = where_of(q, metrics, context, false);
  Sql sql;
  sql.text = "SELECT d.id FROM debate_index d WHERE NOT EXISTS (SELECT 1 FROM debate_metric x WHERE x.debate = d.id"
             " AND x.metric = ?)" +
             w.sql(" AND ") + fmt::format(" ORDER BY d.id{} LIMIT ? OFFSET ?", q.descending ? " DESC" : " ASC");
  sql.values.emplace_back(metrics.sort.value_or(0));
  append(sql.values, w.values);
  sql.values.emplace_back(limit);
  sql.values.emplace_back(offset);
  return sql;
}

}  // namespace parley
