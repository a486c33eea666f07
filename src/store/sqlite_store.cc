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
#include "wal_checkpointer.h"

namespace parley {
namespace {

// 2: every call has an id and a re-ask names the call it repeats (MessageRecord::repeats).
constexpr int kSchemaVersion = 2;
constexpr int kBatch = 64;
constexpr auto kFlushInterval = std::chrono::milliseconds(200);
// SQLite's default automatic checkpoint size (16 MiB of WAL at this store's page size).
constexpr int kCheckpointPages = 1000;

// Seeds are uint64; SQLite integers are int64. Stored bit-for-bit.
std::int64_t to_sql(std::uint64_t seed) {
  std::int64_t v;
  std::memcpy(&v, &seed, sizeof v);
  return v;
}
std::uint64_t from_sql(std::int64_t v) {
  std::uint64_t seed;
  std::memcpy(&seed, &v, sizeof seed);
  return seed;
}

// A prepared statement, finalized on scope exit. One kept for reuse is reset after each use.
class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&& other) noexcept {
    std::swap(stmt_, other.stmt_);
    return *this;
  }
  sqlite3_stmt* get() const { return stmt_; }
  explicit operator bool() const { return stmt_ != nullptr; }
  void bind(int i, std::string_view text) { sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT); }
  // Binds without a copy: `text` must outlive the statement's next step().
  void bind_borrowed(int i, std::string_view text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  }
  void bind(int i, std::int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  int step() { return sqlite3_step(stmt_); }
  // Ready for the next use: bindings cleared, so no borrowed text is referenced after it.
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string text(int column) const { return std::string(view(column)); }
  // Valid until the next step() or reset().
  std::string_view view(int column) const {
    const auto* p = sqlite3_column_text(stmt_, column);
    return p ? std::string_view(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))) : std::string_view();
  }
  std::int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

class SqliteStore final : public Store {
 public:
  SqliteStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteStore() override {
    (void)flush();
    checkpointer_.reset();  // its connection closes first, so this one's close checkpoints the rest
    insert_ = Statement();  // finalized before the connection closes
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

  // A store of this schema version is used as it is; a new one is stamped with it.
  Result<Ok> check_or_stamp_version() {
    const std::string version = std::to_string(kSchemaVersion);
    if (auto stored = meta("schema_version")) {
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
      return Ok{};
    }
    // Only a new store may be stamped: every parley store records its version with its first write.
    if (count() > 0) {
      return Error{fmt::format("{}: store has debates but no schema version (not written by parley, or damaged)",
                               path_)};
    }
    return set_meta("schema_version", version);
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
    Statement& s = insert_;
    const std::string json = transcript_to_json(t);
    s.bind(1, t.task_id);
    s.bind(2, t.protocol);
    s.bind(3, to_sql(t.seed));
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
    ++pending_;
    if (pending_ >= kBatch || std::chrono::steady_clock::now() - transaction_started_ >= kFlushInterval) return flush();
    return Ok{};
  }

  Result<Ok> flush() override {
    if (!in_transaction_) return Ok{};
    in_transaction_ = false;
    return exec("COMMIT");
  }

  std::set<UnitKey> finished() override {
    std::set<UnitKey> units;
    Statement s(db_, "SELECT task_id, protocol, seed FROM debates");
    if (!s) return units;
    while (s.step() == SQLITE_ROW) units.insert(UnitKey{s.text(0), s.text(1), from_sql(s.integer(2))});
    return units;
  }

  Result<std::int64_t> remove_failed() override {
    Statement s(db_, "DELETE FROM debates WHERE status = ?1");
    if (!s) return failure("prepare");
    s.bind(1, std::string_view(debate_status_name(DebateStatus::kFailed)));
    if (s.step() != SQLITE_DONE) return failure("delete failed debates");
    return std::int64_t{sqlite3_changes(db_)};
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
                                 from_sql(s.integer(3)), t.error().message)};
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
  Statement insert_;  // prepared by the first put(), reused by the rest
  std::optional<WalCheckpointer> checkpointer_;
  bool in_transaction_ = false;
  int pending_ = 0;
  std::chrono::steady_clock::time_point transaction_started_;
};

}  // namespace

Result<std::unique_ptr<Store>> Store::open(const std::filesystem::path& path) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    Error error{fmt::format("{}: cannot open store: {}", path.string(), db ? sqlite3_errmsg(db) : sqlite3_errstr(rc))};
    sqlite3_close_v2(db);
    return error;
  }
  auto store = std::make_unique<SqliteStore>(db, path.string());
  if (auto ok = store->init(); !ok) return ok.error();
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace parley
