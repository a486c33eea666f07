// Store on SQLite in WAL mode. Puts are grouped into one transaction of at most kBatch
// debates or kFlushInterval, so the runner never waits on fsync per debate; a kill loses at
// most the open transaction, which --resume redoes.
#include <sqlite3.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <utility>

#include <fmt/format.h>

#include "parley/store.h"
#include "debate_index.h"
#include "statement.h"
#include "wal_checkpointer.h"

namespace parley {
namespace {

// 2: every call has an id and a re-ask names the call it repeats (MessageRecord::repeats).
// 3: the debate index (debate_index.h), written with each debate; a version-2 store gets it built
// from its transcripts when it is opened.
constexpr int kSchemaVersion = 3;
constexpr int kBatch = 64;
constexpr auto kFlushInterval = std::chrono::milliseconds(200);
// SQLite's default automatic checkpoint size (16 MiB of WAL at this store's page size).
constexpr int kCheckpointPages = 1000;

class SqliteStore final : public Store {
 public:
  SqliteStore(sqlite3* db, std::string path, IndexProgress progress)
      : db_(db), path_(std::move(path)), index_progress_(std::move(progress)), index_(db) {}
  ~SqliteStore() override {
    (void)flush();
    checkpointer_.reset();  // its connection closes first, so this one's close checkpoints the rest
    insert_ = Statement();  // finalized before the connection closes
    index_ = DebateIndexWriter(db_);
    sqlite3_close_v2(db_);
  }

  Result<Ok> init() {
    // The busy timeout comes first: a reader (parley report, a monitoring script) may hold the
    // file while this process switches it to WAL.
    for (const char* sql : {
             "PRAGMA busy_timeout=5000",
             // Before WAL, so that a new store gets it: a transcript row (a few KB) fits on one
             // page, and the store is written and read in a quarter of the system calls.
             "PRAGMA page_size=16384",
             "PRAGMA journal_mode=WAL",
             "PRAGMA synchronous=NORMAL",
             "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
             "CREATE TABLE IF NOT EXISTS debates ("
             " task_id TEXT NOT NULL, protocol TEXT NOT NULL, seed INTEGER NOT NULL,"
             " status TEXT NOT NULL, correct INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL,"
             " completion_tokens INTEGER NOT NULL, calls INTEGER NOT NULL, transcript TEXT NOT NULL,"
             " PRIMARY KEY (task_id, protocol, seed))",
         }) {
      if (auto ok = exec(sql); !ok) return ok;
    }
    if (auto ok = check_or_stamp_version(); !ok) return ok;
    checkpointer_.emplace(db_, path_, kCheckpointPages);
    return Ok{};
  }

  // A store of this schema version is used as it is; a new one is stamped with it; one of version
  // 2 gets its index built.
  Result<Ok> check_or_stamp_version() {
    const std::string version = std::to_string(kSchemaVersion);
    if (auto stored = meta("schema_version")) {
      if (*stored == "2") return add_index();
      if (*stored == "1") {
        // Version 1 folded re-asks into turns by (agent, round), which concurrent turns sharing
        // an agent name make ambiguous: its stored metrics may be wrong and cannot be redone.
        return Error{fmt::format("{}: store schema version 1 was written by an older parley whose re-asks are not "
                                 "linked to the calls they repeat, so its metrics cannot be trusted; run the "
                                 "experiment again into a new directory",
                                 path_)};
      }
      if (*stored != version) {
        return Error{fmt::format("{}: store schema version {} is not supported (this parley writes {})", path_,
                                 *stored, version)};
      }
      if (auto ok = create_debate_index(db_); !ok) return Error{fmt::format("{}: {}", path_, ok.error().message)};
      return repair_index();
    }
    // Only a new store may be stamped: every parley store records its version with its first write.
    if (count() > 0) {
      return Error{fmt::format("{}: store has debates but no schema version (not written by parley, or damaged)",
                               path_)};
    }
    if (auto ok = create_debate_index(db_); !ok) return Error{fmt::format("{}: {}", path_, ok.error().message)};
    return set_meta("schema_version", version);
  }

  // Debates deleted (or added) by hand since the last writer: the index follows. Only when the
  // counts or the last ids differ does this take the write lock, so a reader of a store being
  // written (parley report) never waits here.
  Result<Ok> repair_index() {
    Statement counts(db_,
                     "SELECT (SELECT COUNT(*) FROM debates) = (SELECT COUNT(*) FROM debate_index)"
                     " AND (SELECT MAX(rowid) FROM debates) IS (SELECT MAX(id) FROM debate_index)");
    if (!counts || counts.step() != SQLITE_ROW) return failure("count the debates");
    if (counts.integer(0) != 0) return Ok{};
    counts = Statement();
    if (auto ok = exec("BEGIN IMMEDIATE"); !ok) return ok;
    if (auto ok = index_.repair(); !ok) {
      (void)exec("ROLLBACK");
      index_.forget();
      return Error{fmt::format("{}: bringing the debate index up to date: {}", path_, ok.error().message)};
    }
    return exec("COMMIT");
  }

  // Version 2 to 3: the index, built from the stored transcripts in one transaction, so that a
  // store is either of version 2 or indexed whole. A second process that opened the store at
  // once finds it indexed when its turn comes.
  Result<Ok> add_index() {
    if (auto ok = exec("BEGIN IMMEDIATE"); !ok) return ok;
    auto built = [&]() -> Result<Ok> {
      if (meta("schema_version") != "2") return Ok{};  // indexed meanwhile
      if (auto ok = create_debate_index(db_); !ok) return ok;
      if (auto ok = build_debate_index(db_, index_, index_progress_); !ok) return ok;
      if (auto ok = create_metric_value_index(db_); !ok) return ok;
      return set_meta("schema_version", std::to_string(kSchemaVersion));
    }();
    if (!built) {
      (void)exec("ROLLBACK");
      index_.forget();
      return Error{fmt::format("{}: building the debate index of a version-2 store: {}", path_, built.error().message)};
    }
    return exec("COMMIT");
  }

  Result<Ok> set_meta(const std::string& key, const std::string& value) override {
    Statement s(db_, "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2");
    if (!s) return failure("prepare");
    s.bind(1, key);
    s.bind(2, value);
    if (s.step() != SQLITE_DONE) return failure("write meta");
    return Ok{};
  }

  std::optional<std::string> meta(const std::string& key) override {
    Statement s(db_, "SELECT value FROM meta WHERE key = ?1");
    if (!s) return std::nullopt;
    s.bind(1, key);
    if (s.step() != SQLITE_ROW) return std::nullopt;
    return s.text(0);
  }

  Result<Ok> put(const Transcript& t) override {
    if (t.status == DebateStatus::kCancelled) {
      return Error{fmt::format("{}: debate ({}, {}, seed {}) was cut short by a stop and is not a result", path_,
                               t.task_id, t.protocol, t.seed)};
    }
    if (!in_transaction_) {
      if (auto ok = exec("BEGIN IMMEDIATE"); !ok) return ok;
      in_transaction_ = true;
      transaction_started_ = std::chrono::steady_clock::now();
      pending_ = 0;
    }
    if (!insert_) {
      insert_ = Statement(db_,
                          "INSERT INTO debates (task_id, protocol, seed, status, correct, prompt_tokens, completion_tokens,"
                          " calls, transcript) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
      if (!insert_) return failure("prepare");
    }
    if (auto added = insert(t); !added) return added;
    ++pending_;
    if (pending_ >= kBatch || std::chrono::steady_clock::now() - transaction_started_ >= kFlushInterval) return flush();
    return Ok{};
  }

  Result<Ok> insert(const Transcript& t) {
    Statement& s = insert_;
    const std::string json = transcript_to_json(t);
    s.bind(1, t.task_id);
    s.bind(2, t.protocol);
    s.bind(3, seed_to_sql(t.seed));
    s.bind(4, std::string_view(debate_status_name(t.status)));
    s.bind(5, std::int64_t{t.correct ? 1 : 0});
    s.bind(6, t.prompt_tokens());
    s.bind(7, t.completion_tokens());
    s.bind(8, t.calls());
    s.bind_borrowed(9, json);
    const int rc = s.step();
    s.reset();
    if (rc == SQLITE_CONSTRAINT && sqlite3_extended_errcode(db_) == SQLITE_CONSTRAINT_PRIMARYKEY) {
      return Error{fmt::format("{}: debate ({}, {}, seed {}) is already stored", path_, t.task_id, t.protocol, t.seed)};
    }
    if (rc != SQLITE_DONE) return failure("insert debate");
    // The debate and its index rows go in together or not at all. Undone by hand rather than
    // inside a savepoint, whose journal would copy every page a put touches.
    const std::int64_t id = sqlite3_last_insert_rowid(db_);
    auto indexed = index_.add(id, t);
    if (indexed) return Ok{};
    Error error{fmt::format("{}: debate ({}, {}, seed {}): {}", path_, t.task_id, t.protocol, t.seed, indexed.error().message)};
    Statement undo(db_, "DELETE FROM debates WHERE rowid = ?1");
    undo.bind(1, id);
    if (!index_.remove(id) || !undo || undo.step() != SQLITE_DONE) {
      // Neither kept whole nor undone: the open transaction goes, so nothing half-indexed is
      // committed; a resume runs its debates again.
      (void)exec("ROLLBACK");
      in_transaction_ = false;
      index_.forget();
      error.message += fmt::format(" (and the {} debates of the open transaction were not stored)", pending_);
    }
    return error;
  }

  Result<Ok> flush() override {
    if (!in_transaction_) return Ok{};
    in_transaction_ = false;
    auto committed = exec("COMMIT");
    if (!committed) index_.forget();  // the transaction may be gone with the names it added
    return committed;
  }

  Result<Ok> finish() override {
    if (auto ok = flush(); !ok) return ok;
    if (auto ok = create_metric_value_index(db_); !ok) {
      return Error{fmt::format("{}: building the metrics' value index: {}", path_, ok.error().message)};
    }
    return Ok{};
  }

  std::set<UnitKey> finished() override {
    std::set<UnitKey> units;
    Statement s(db_, "SELECT task_id, protocol, seed FROM debates");
    if (!s) return units;
    while (s.step() == SQLITE_ROW) units.insert(UnitKey{s.text(0), s.text(1), seed_from_sql(s.integer(2))});
    return units;
  }

  Result<std::optional<Task>> stored_task(const std::string& task_id) override {
    Statement s(db_, "SELECT transcript FROM debates WHERE task_id = ?1 LIMIT 1");
    if (!s) return failure("prepare");
    s.bind(1, std::string_view(task_id));
    const int rc = s.step();
    if (rc == SQLITE_DONE) return std::optional<Task>();
    if (rc != SQLITE_ROW) return failure("read a debate");
    auto t = transcript_from_json(s.view(0), CallTexts::kSkip);
    if (!t) return Error{fmt::format("{}: debate of task {}: {}", path_, task_id, t.error().message)};
    Task task;
    task.id = t->task_id;
    task.question = std::move(t->question);
    task.options = std::move(t->options);
    task.answer_type = t->answer_type.value_or(AnswerType::kText);  // absent only in older parleys' stores
    task.answer = std::move(t->gold);
    task.tolerance = t->tolerance;
    return std::optional<Task>(std::move(task));
  }

  Result<std::int64_t> remove_failed() override {
    if (auto ok = exec("SAVEPOINT remove_failed"); !ok) return ok.error();
    auto removed = [&]() -> Result<std::int64_t> {
      if (auto ok = index_.remove_status(DebateStatus::kFailed); !ok) {
        return Error{fmt::format("{}: {}", path_, ok.error().message)};
      }
      Statement s(db_, "DELETE FROM debates WHERE status = ?1");
      if (!s) return failure("prepare");
      s.bind(1, std::string_view(debate_status_name(DebateStatus::kFailed)));
      if (s.step() != SQLITE_DONE) return failure("delete failed debates");
      return std::int64_t{sqlite3_changes(db_)};
    }();
    (void)exec(removed ? "RELEASE remove_failed" : "ROLLBACK TO remove_failed; RELEASE remove_failed");
    return removed;
  }

  Result<std::vector<Transcript>> load_all() override { return load_all_and_copy(nullptr, CallTexts::kRead); }

  Result<std::vector<Transcript>> load_all_and_copy(const std::function<void(std::string_view)>& copy,
                                                    CallTexts texts) override {
    // One snapshot for both statements below (unless a write transaction already is one).
    const bool own_snapshot = !in_transaction_;
    if (own_snapshot) {
      if (auto ok = exec("BEGIN"); !ok) return ok.error();
    }
    auto loaded = load_rows(copy, texts);
    if (own_snapshot) (void)exec(loaded ? "COMMIT" : "ROLLBACK");
    return loaded;
  }

  std::int64_t count() override {
    Statement s(db_, "SELECT COUNT(*) FROM debates");
    if (!s || s.step() != SQLITE_ROW) return 0;
    return s.integer(0);
  }

 private:
  // Sorts the keys alone, then reads each row by its rowid: an ORDER BY over the rows themselves
  // would have SQLite sort megabytes of transcripts through a temporary file.
  Result<std::vector<Transcript>> load_rows(const std::function<void(std::string_view)>& copy, CallTexts texts) {
    std::vector<std::int64_t> rowids;
    {
      Statement keys(db_, "SELECT rowid FROM debates ORDER BY protocol, task_id, seed");
      if (!keys) return failure("prepare");
      int rc;
      while ((rc = keys.step()) == SQLITE_ROW) rowids.push_back(keys.integer(0));
      if (rc != SQLITE_DONE) return failure("read debates");
    }
    Statement s(db_, "SELECT transcript, task_id, protocol, seed FROM debates WHERE rowid = ?1");
    if (!s) return failure("prepare");
    std::vector<Transcript> transcripts;
    transcripts.reserve(rowids.size());
    for (const std::int64_t rowid : rowids) {
      s.bind(1, rowid);
      if (s.step() != SQLITE_ROW) return failure("read debates");
      const std::string_view json = s.view(0);
      if (copy) copy(json);
      auto t = transcript_from_json(json, texts);
      if (!t) {
        return Error{fmt::format("{}: debate of task {}, protocol {}, seed {}: {}", path_, s.view(1), s.view(2),
                                 seed_from_sql(s.integer(3)), t.error().message)};
      }
      transcripts.push_back(std::move(*t));
      s.reset();
    }
    return transcripts;
  }

  Result<Ok> exec(const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      Error error{fmt::format("{}: {}", path_, message ? message : sqlite3_errmsg(db_))};
      sqlite3_free(message);
      return error;
    }
    return Ok{};
  }
  Error failure(const char* what) const { return Error{fmt::format("{}: {}: {}", path_, what, sqlite3_errmsg(db_))}; }

  sqlite3* db_;
  std::string path_;
  IndexProgress index_progress_;
  Statement insert_;  // prepared by the first put(), reused by the rest
  DebateIndexWriter index_;
  std::optional<WalCheckpointer> checkpointer_;
  bool in_transaction_ = false;
  int pending_ = 0;
  std::chrono::steady_clock::time_point transaction_started_;
};

}  // namespace

Result<std::unique_ptr<Store>> Store::open(const std::filesystem::path& path) { return open(path, nullptr); }

Result<std::unique_ptr<Store>> Store::open(const std::filesystem::path& path, const IndexProgress& progress) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    Error error{fmt::format("{}: cannot open store: {}", path.string(), db ? sqlite3_errmsg(db) : sqlite3_errstr(rc))};
    sqlite3_close_v2(db);
    return error;
  }
  auto store = std::make_unique<SqliteStore>(db, path.string(), progress);
  if (auto ok = store->init(); !ok) return ok.error();
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace parley
