#pragma once
// The store's index of its debates (schema version 3, docs/formats.md "results.sqlite"): one
// narrow row per debate with what the viewer filters and sorts by, its task's question and gold
// once per task, and its metrics one row each. The `debates` table holds whole transcripts
// (kilobytes each): a filter or a sort over it would read them all. Written by the Store in
// put()'s transaction; built once from the transcripts of a version-2 store. Read by RunBrowser
// (parley/run_browser.h). Internal to src/store; used on the connection's thread.

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "parley/result.h"
#include "parley/store.h"
#include "parley/transcript.h"
#include "statement.h"

namespace parley {

// The first bytes of a task's question kept in the index (cut at a UTF-8 character boundary):
// what the list shows and the text search reads.
inline constexpr std::size_t kIndexedQuestionBytes = 1000;

// Creates the index's tables and indexes where missing, but the metrics' value index.
Result<Ok> create_debate_index(sqlite3* db);

// Creates the metrics' value index, (metric, value): what sorts debates by a metric and finds
// them by a metric's range without reading every row. Kept up by puts once made, but not made by
// create_debate_index: a put inserts a dozen entries into it at random places, which costs more
// than the rest of the index together, so a run makes it when it has written its debates.
Result<Ok> create_metric_value_index(sqlite3* db);

class DebateIndexWriter {
 public:
  explicit DebateIndexWriter(sqlite3* db) : db_(db) {}

  // Indexes the debate stored at rowid `id` of `debates`: its row, its task (the first question
  // seen for a task id is kept, unless it was empty) and its finite metrics.
  Result<Ok> add(std::int64_t id, const Transcript& transcript);

  // Deletes debate `id`'s index rows (a put that could not be indexed whole is undone).
  Result<Ok> remove(std::int64_t id);

  // Deletes the index rows of the debates of `debates` whose status is `status`; called before
  // those debates are deleted.
  Result<Ok> remove_status(DebateStatus status);

  // Makes the index describe `debates` again where they differ: index rows of debates deleted by
  // hand (to run them again) go, debates without rows are indexed. The store calls it as it opens,
  // before any put, when the two tables' counts or last ids differ.
  Result<Ok> repair();

  // After a rollback: the metric names it knew may not be stored.
  void forget() { metric_ids_.clear(); }

 private:
  Result<Ok> failure(const char* what) const;
  Result<std::int64_t> metric_id(const std::string& name);
  Statement& metric_insert(std::size_t rows);

  sqlite3* db_;
  Statement row_, task_, metric_name_, metric_lookup_;  // prepared on first use, reused
  std::vector<Statement> metric_inserts_;                // [n]: inserts n + 1 metric rows
  std::map<std::string, std::int64_t, std::less<>> metric_ids_;
};

// Indexes every debate of `debates` from its stored transcript (a store written before the
// index existed). Within the caller's transaction; the index must be empty.
Result<Ok> build_debate_index(sqlite3* db, DebateIndexWriter& writer, const IndexProgress& progress);

}  // namespace parley
