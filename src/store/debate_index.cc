// The debate index (debate_index.h): its schema, one debate's rows, and the one-time build from a
// version-2 store's transcripts. Every value is bound; no SQL is assembled here.
#include "debate_index.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "parley/metrics.h"
#include "parley/store.h"

namespace parley {
namespace {

// The tables and the indexes the viewer's filters and sorts use (docs/performance.md, "Viewer",
// says which each query uses). A debate's row's id is its rowid in `debates`.
constexpr const char* kSchema[] = {
    "CREATE TABLE IF NOT EXISTS debate_index ("
    " id INTEGER PRIMARY KEY, task_id TEXT NOT NULL, protocol TEXT NOT NULL, seed INTEGER NOT NULL,"
    " status TEXT NOT NULL, correct INTEGER NOT NULL, initially_correct INTEGER, flipped INTEGER NOT NULL,"
    " tokens INTEGER NOT NULL, calls INTEGER NOT NULL, rounds INTEGER NOT NULL, latency_ms REAL NOT NULL,"
    " final_answer TEXT)",
    "CREATE TABLE IF NOT EXISTS debate_task ("
    " task_id TEXT PRIMARY KEY, question TEXT NOT NULL, gold TEXT NOT NULL) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS metric_name (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
    "CREATE TABLE IF NOT EXISTS debate_metric ("
    " debate INTEGER NOT NULL, metric INTEGER NOT NULL, value REAL NOT NULL,"
    " PRIMARY KEY (debate, metric)) WITHOUT ROWID",
    "CREATE UNIQUE INDEX IF NOT EXISTS debate_index_unit ON debate_index (task_id, protocol, seed)",
    "CREATE INDEX IF NOT EXISTS debate_index_protocol ON debate_index (protocol)",
    "CREATE INDEX IF NOT EXISTS debate_index_seed ON debate_index (seed)",
    "CREATE INDEX IF NOT EXISTS debate_index_status ON debate_index (status)",
    "CREATE INDEX IF NOT EXISTS debate_index_correct ON debate_index (correct)",
    "CREATE INDEX IF NOT EXISTS debate_index_flipped ON debate_index (flipped)",
    "CREATE INDEX IF NOT EXISTS debate_index_tokens ON debate_index (tokens)",
    "CREATE INDEX IF NOT EXISTS debate_index_calls ON debate_index (calls)",
    "CREATE INDEX IF NOT EXISTS debate_index_rounds ON debate_index (rounds)",
    "CREATE INDEX IF NOT EXISTS debate_index_latency ON debate_index (latency_ms)",
    "CREATE INDEX IF NOT EXISTS debate_index_answer ON debate_index (final_answer)",
};

// The most metric rows one INSERT writes (a debate has a few dozen at most).
constexpr std::size_t kMetricsPerInsert = 32;

// The first `max_bytes` of `text`, not cutting a UTF-8 character in two.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

Result<Ok> exec(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    Error error{message ? message : sqlite3_errmsg(db)};
    sqlite3_free(message);
    return error;
  }
  return Ok{};
}

}  // namespace

Result<Ok> create_debate_index(sqlite3* db) {
  for (const char* sql : kSchema) {
    if (auto ok = exec(db, sql); !ok) return ok;
  }
  return Ok{};
}

Result<Ok> create_metric_value_index(sqlite3* db) {
  return exec(db, "CREATE INDEX IF NOT EXISTS debate_metric_value ON debate_metric (metric, value)");
}

Result<Ok> DebateIndexWriter::failure(const char* what) const {
  return Error{fmt::format("{}: {}", what, sqlite3_errmsg(db_))};
}

Result<std::int64_t> DebateIndexWriter::metric_id(const std::string& name) {
  if (const auto found = metric_ids_.find(name); found != metric_ids_.end()) return found->second;
  metric_name_.bind_borrowed(1, name);
  int rc = metric_name_.step();
  metric_name_.reset();
  if (rc != SQLITE_DONE) return failure("index a metric's name").error();
  metric_lookup_.bind_borrowed(1, name);
  rc = metric_lookup_.step();
  const std::int64_t id = metric_lookup_.integer(0);
  metric_lookup_.reset();
  if (rc != SQLITE_ROW) return failure("index a metric's name").error();
  metric_ids_.emplace(name, id);
  return id;
}

// One INSERT of `rows` metric rows: a debate's metrics go in one statement, not one each.
Statement& DebateIndexWriter::metric_insert(std::size_t rows) {
  while (metric_inserts_.size() < rows) {
    std::string sql = "INSERT OR FAIL INTO debate_metric (debate, metric, value) VALUES (?, ?, ?)";
    for (std::size_t i = 0; i < metric_inserts_.size(); ++i) sql += ", (?, ?, ?)";
    metric_inserts_.emplace_back(db_, sql);
  }
  return metric_inserts_[rows - 1];
}

Result<Ok> DebateIndexWriter::add(std::int64_t id, const Transcript& t) {
  if (!row_) {
    row_ = Statement(db_,
                     "INSERT OR FAIL INTO debate_index (id, task_id, protocol, seed, status, correct, initially_correct,"
                     " flipped, tokens, calls, rounds, latency_ms, final_answer)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
    // A task's question, unless an earlier debate of it (an older parley's) had none.
    task_ = Statement(db_,
                      "INSERT INTO debate_task (task_id, question, gold) VALUES (?1, ?2, ?3)"
                      " ON CONFLICT (task_id) DO UPDATE SET question = excluded.question"
                      " WHERE debate_task.question = '' AND excluded.question <> ''");
    metric_name_ = Statement(db_, "INSERT INTO metric_name (name) VALUES (?1) ON CONFLICT (name) DO NOTHING");
    metric_lookup_ = Statement(db_, "SELECT id FROM metric_name WHERE name = ?1");
    if (!row_ || !task_ || !metric_name_ || !metric_lookup_) return failure("prepare the debate index");
  }
  const DebateOutcome outcome = debate_outcome(t);
  row_.bind(1, id);
  row_.bind_borrowed(2, t.task_id);
  row_.bind_borrowed(3, t.protocol);
  row_.bind(4, seed_to_sql(t.seed));
  row_.bind(5, std::string_view(debate_status_name(t.status)));
  row_.bind(6, std::int64_t{t.correct ? 1 : 0});
  if (outcome.initially_correct) {
    row_.bind(7, std::int64_t{*outcome.initially_correct ? 1 : 0});
  } else {
    row_.bind_null(7);
  }
  row_.bind(8, std::int64_t{outcome.flipped ? 1 : 0});
  row_.bind(9, t.prompt_tokens() + t.completion_tokens());
  row_.bind(10, t.calls());
  row_.bind(11, std::int64_t{outcome.rounds});
  row_.bind(12, t.latency_ms());
  if (t.final_answer) {
    row_.bind_borrowed(13, *t.final_answer);
  } else {
    row_.bind_null(13);
  }
  int rc = row_.step();
  row_.reset();
  if (rc != SQLITE_DONE) return failure("index the debate");

  task_.bind_borrowed(1, t.task_id);
  task_.bind_borrowed(2, utf8_prefix(t.question, kIndexedQuestionBytes));
  task_.bind_borrowed(3, t.gold);
  rc = task_.step();
  task_.reset();
  if (rc != SQLITE_DONE) return failure("index the debate's task");

  std::vector<std::pair<std::int64_t, double>> metrics;
  metrics.reserve(t.metrics.size());
  for (const auto& [name, value] : t.metrics) {
    if (!std::isfinite(value)) continue;  // SQLite would store a NaN as NULL; JSON has neither
    auto metric = metric_id(name);
    if (!metric) return metric.error();
    metrics.emplace_back(*metric, value);
  }
  for (std::size_t from = 0; from < metrics.size(); from += kMetricsPerInsert) {
    const std::size_t rows = std::min(kMetricsPerInsert, metrics.size() - from);
    Statement& insert = metric_insert(rows);
    if (!insert) return failure("prepare the metrics' insert");
    for (std::size_t i = 0; i < rows; ++i) {
      const int at = static_cast<int>(3 * i);
      insert.bind(at + 1, id);
      insert.bind(at + 2, metrics[from + i].first);
      insert.bind(at + 3, metrics[from + i].second);
    }
    rc = insert.step();
    insert.reset();
    if (rc != SQLITE_DONE) return failure("index a metric");
  }
  return Ok{};
}

Result<Ok> DebateIndexWriter::remove(std::int64_t id) {
  Statement metrics(db_, "DELETE FROM debate_metric WHERE debate = ?1");
  Statement row(db_, "DELETE FROM debate_index WHERE id = ?1");
  if (!metrics || !row) return failure("prepare");
  metrics.bind(1, id);
  row.bind(1, id);
  if (metrics.step() != SQLITE_DONE || row.step() != SQLITE_DONE) return failure("unindex the debate");
  return Ok{};
}

Result<Ok> DebateIndexWriter::remove_status(DebateStatus status) {
  const std::string_view name = debate_status_name(status);
  Statement metrics(db_, "DELETE FROM debate_metric WHERE debate IN (SELECT id FROM debate_index WHERE status = ?1)");
  Statement rows(db_, "DELETE FROM debate_index WHERE status = ?1");
  if (!metrics || !rows) return failure("prepare");
  metrics.bind(1, name);
  rows.bind(1, name);
  if (metrics.step() != SQLITE_DONE) return failure("unindex the debates' metrics");
  if (rows.step() != SQLITE_DONE) return failure("unindex the debates");
  return Ok{};
}

Result<Ok> DebateIndexWriter::repair() {
  for (const char* sql : {"DELETE FROM debate_metric WHERE debate NOT IN (SELECT rowid FROM debates)",
                          "DELETE FROM debate_index WHERE id NOT IN (SELECT rowid FROM debates)"}) {
    if (auto ok = exec(db_, sql); !ok) return ok;
  }
  Statement missing(db_, "SELECT rowid, transcript FROM debates WHERE rowid NOT IN (SELECT id FROM debate_index)");
  if (!missing) return failure("read the debates");
  int rc;
  while ((rc = missing.step()) == SQLITE_ROW) {
    auto t = transcript_from_json(missing.view(1), CallTexts::kSkip);
    if (!t) return Error{fmt::format("debate at row {}: {}", missing.integer(0), t.error().message)};
    if (auto ok = add(missing.integer(0), *t); !ok) return ok;
  }
  if (rc != SQLITE_DONE) return failure("read the debates");
  return Ok{};
}

Result<Ok> build_debate_index(sqlite3* db, DebateIndexWriter& writer, const IndexProgress& progress) {
  Statement count(db, "SELECT COUNT(*) FROM debates");
  if (!count || count.step() != SQLITE_ROW) return Error{fmt::format("count the debates: {}", sqlite3_errmsg(db))};
  const std::int64_t total = count.integer(0);
  if (progress) progress(0, total);
  Statement rows(db, "SELECT rowid, transcript FROM debates ORDER BY rowid");
  if (!rows) return Error{fmt::format("read the debates: {}", sqlite3_errmsg(db))};
  std::int64_t done = 0;
  int rc;
  while ((rc = rows.step()) == SQLITE_ROW) {
    // The texts are not indexed: skipping them reads a transcript several times faster.
    auto t = transcript_from_json(rows.view(1), CallTexts::kSkip);
    if (!t) return Error{fmt::format("debate at row {}: {}", rows.integer(0), t.error().message)};
    if (auto ok = writer.add(rows.integer(0), *t); !ok) return ok;
    if (++done % 4096 == 0 && progress) progress(done, total);
  }
  if (rc != SQLITE_DONE) return Error{fmt::format("read the debates: {}", sqlite3_errmsg(db))};
  if (progress) progress(done, total);
  return Ok{};
}

}  // namespace parley
