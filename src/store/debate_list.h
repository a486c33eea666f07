#pragma once
// The SQL of RunBrowser::list (internal to src/store): a DebateQuery as a WHERE clause and an
// ORDER BY over the debate index (debate_index.h), made of fixed fragments with a `?` for every
// value, and the values to bind in order. No text of the query is ever part of the SQL.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "parley/run_browser.h"

namespace parley {

using SqlValue = std::variant<std::int64_t, double, std::string>;

// A query's metrics as the index numbers them (metric_name.id).
struct ResolvedMetrics {
  std::optional<std::int64_t> sort;  // nullopt: not sorting by a metric, or no debate has it
  // One per DebateQuery::ranges entry; nullopt for a metric no debate has (matches nothing).
  std::vector<std::optional<std::int64_t>> ranges;
};

struct ListSql {
  std::string count;  // SELECT COUNT(*) ...
  std::string page;   // SELECT d.id ... ORDER BY ... LIMIT ? OFFSET ?
  std::vector<SqlValue> count_values;
  std::vector<SqlValue> page_values;  // the count's, the sort metric's first, then LIMIT, OFFSET
};

// `seeds_past_int64`: some stored seed is 2^63 or more (stored negative), so seeds sort by an
// expression giving their unsigned order rather than by the seed index. The query must have its
// limit and offset within their bounds already.
ListSql list_sql(const DebateQuery& query, const ResolvedMetrics& metrics, bool seeds_past_int64);

}  // namespace parley
