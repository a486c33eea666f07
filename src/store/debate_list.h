#pragma once
// The SQL of RunBrowser::list (internal to src/store): a DebateQuery as statements over the debate
// index (debate_index.h), made of fixed fragments with a `?` for every value, and the values to
// bind in order. No text of the query is ever part of the SQL.
//
// A page is read one of two ways, chosen by RunBrowser::list from the matching total, so that the
// cost follows the page rather than the store:
//   walk — along the sort's index (INDEXED BY), filters checked row by row (written `+d.col` so
//          that no filter's index is taken instead): reads offset + limit rows when nothing is
//          filtered, about (offset + limit) / (share matching) when something is;
//   sort — the matching rows found by the filters' indexes (or a scan), then sorted: reads the
//          matching rows, whatever the offset.
// Sorting by a metric walks the metrics' value index (made when a run finishes, Store::finish):
// first the matching debates that have the metric, then, past them, those that do not.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "parley/run_browser.h"

namespace parley {

using SqlValue = std::variant<std::int64_t, double, std::string>;

struct Sql {
  std::string text;
  std::vector<SqlValue> values;
};

// What a query names, as the index has it: its metrics by number (metric_name.id), and the
// final answers its search text is in.
struct Resolved {
  std::optional<std::int64_t> sort;  // nullopt: not sorting by a metric, or no debate has it
  // One per DebateQuery::ranges entry; nullopt for a metric no debate has (matches nothing).
  std::vector<std::optional<std::int64_t>> ranges;
  // The stored final answers that contain the search text (as LIKE matches it), when the run has
  // few enough distinct ones to list: then a debate is found by its answer through the answers'
  // index, not by reading every row's. nullopt: too many to list; each row's answer is read.
  std::optional<std::vector<std::string>> answers;
};

// The most distinct final answers a search lists (Resolved::answers).
inline constexpr std::size_t kListedAnswers = 4096;

// Whether `text` contains `part`, ASCII letters compared case-insensitively: LIKE's rule.
bool contains_like(std::string_view text, std::string_view part);

// How many index entries a walk may read before a sort of the matching rows is the cheaper way:
// a filtered walk looks each entry's row up (microseconds each), a sort reads the matching rows
// through the filters' indexes once.
inline constexpr std::int64_t kDefaultWalkBudget = 20000;

// What the store is like, for the statements' shape, and how a page is read.
struct ListContext {
  // Some stored seed is 2^63 or more (stored negative): seeds sort by an expression giving their
  // unsigned order, which no index has, so such a sort is always a sort.
  bool seeds_past_int64 = false;
  bool metric_value_index = false;  // debate_metric_value exists
  std::int64_t walk_budget = kDefaultWalkBudget;
};

// The text of a search as a LIKE pattern (ESCAPE '\'): a substring, its % _ and \ literal.
std::string like_pattern(const std::string& text);

// SELECT COUNT(*) of the debates matching the filters. A metric's range is read from the value
// index where there is one (the debates in the range, looked up by id), else checked row by row.
Sql count_sql(const DebateQuery& q, const Resolved& metrics, const ListContext& context);

// Whether the query filters the debates at all.
bool has_filters(const DebateQuery& q);

// Whether walking the sort's index reads no row beyond the index (no filter, or only filters on
// columns the index holds), so that a walk costs offset + limit index entries at most.
bool walk_is_covered(const DebateQuery& q);

// Whether a page with this many matching debates of `all` is read by walking the sort's index.
bool walk_the_index(const DebateQuery& q, const ListContext& context, std::int64_t matching, std::int64_t all);

// SELECT d.id ... LIMIT ? OFFSET ?: a page of the matching debates in the query's order, by a
// walk or a sort. With a metric sort, the single statement whose ORDER BY puts debates without
// the metric last (the sort way of reading it).
Sql page_sql(const DebateQuery& q, const Resolved& metrics, const ListContext& context, bool walk);

// A metric sort, walked: the count of matching debates that have the metric, a page of them in
// the metric's order (the value index walked), and a page of those that lack it (in key order).
Sql with_metric_count_sql(const DebateQuery& q, const Resolved& metrics, const ListContext& context);
Sql with_metric_page_sql(const DebateQuery& q, const Resolved& metrics, const ListContext& context,
                         std::int64_t limit, std::int64_t offset);
Sql without_metric_page_sql(const DebateQuery& q, const Resolved& metrics, const ListContext& context,
                            std::int64_t limit, std::int64_t offset);

}  // namespace parley
