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

#include "parley/result.h"
#include "parley/store.h"
#include "parley/transcript.h"
#include "statement.h"

namespace parley {

// The first bytes of a task's question kept in the index (cut at a UTF-8 character boundary):
// what the list shows and the text search reads.
inline constexpr std::size_t kIndexedQuestionBytes = 1000;

// Creates the index's tables and indexes where missing.
Result<Ok> create_debate_index(sqlite3* db);

class DebateIndexWriter {
 public:
  explicit DebateIndexWriter(sqlite3* db) : db_(db) {}

  // Indexes the debate stored at rowid `id` of `debates`: its row, its task (the first question
  // seen for a task id is kept, unless it was empty) and its finite metrics. Index rows of the
  // same unit or id — left by a debate deleted from `debates` by hand — are replaced.
  Result<Ok> add(std::int64_t id, const Transcript& transcript);

  // Deletes the index rows of the debates of `debates` whose status is `status`; called before
  // those debates are deleted.
  Result<Ok> remove_status(DebateStatus status);

 private:
  Result<Ok> failure(const char* what) const;

  sqlite3* db_;
  Statement row_, task_, metric_name_, metric_, stale_metrics_, stale_row_;  // prepared on first use, reused
};

// Indexes every debate of `debates` from its stored transcript (a store written before the
// index existed). Within the caller's transaction; the index must be empty.
Result<Ok> build_debate_index(sqlite3* db, DebateIndexWriter& writer, const IndexProgress& progress);

}  // namespace parley
