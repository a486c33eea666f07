// RunBrowser over SQLite: a read-only connection to DIR/results.sqlite and the debate index's
// queries. Each answer is read in one read transaction, so a page and its total agree while a run
// commits beside it.
#include "parley/run_browser.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <system_error>

#include <fmt/format.h>

#include "debate_list.h"
#include "run_browser_tuning.h"
#include "statement.h"

namespace parley {
namespace {

// The version of the store whose index this browser reads (sqlite_store.cc writes it).
constexpr const char* kIndexedVersion = "3";
// The page cache of one connection: the memory a browser holds whatever the store's size.
constexpr const char* kCacheSize = "PRAGMA cache_size = -8192";  // KiB

// A row's columns; then the table, with an index named or not.
constexpr const char* kRowColumns =
    "SELECT d.task_id, d.protocol, d.seed, d.status, d.correct, d.initially_correct, d.flipped, d.tokens, d.calls,"
    " d.rounds, d.latency_ms, d.final_answer, t.gold, substr(t.question, 1, 300) FROM debate_index d";
constexpr const char* kRowTask = " LEFT JOIN debate_task t ON t.task_id = d.task_id";
static_assert(RunBrowser::kListedQuestionChars == 300, "kRowColumns' substr");

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (!text.empty() && start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

void bind_all(Statement& s, const std::vector<SqlValue>& values) {
  int i = 1;
  for (const SqlValue& v : values) {
    std::visit([&](const auto& x) { s.bind(i, x); }, v);
    ++i;
  }
}

class SqliteRunBrowser final : public RunBrowser {
 public:
  SqliteRunBrowser(sqlite3* db, std::string path, BrowserTuning tuning)
      : db_(db), path_(std::move(path)), tuning_(tuning) {}
  ~SqliteRunBrowser() override { sqlite3_close_v2(db_); }

  Result<RunFacts> facts() override {
    ReadTransaction read(*this);
    RunFacts facts;
    {
      Statement s(db_, "SELECT COUNT(*) FROM debate_index");
      if (!s || s.step() != SQLITE_ROW) return failure("count the debates");
      facts.debates = s.integer(0);
    }
    auto stored = distinct_text("protocol");
    if (!stored) return stored.error();
    facts.protocols = protocol_order(*stored);
    auto seeds = distinct_integers("seed");
    if (!seeds) return seeds.error();
    for (std::int64_t v : *seeds) facts.seeds.push_back(seed_from_sql(v));
    std::sort(facts.seeds.begin(), facts.seeds.end());
    auto statuses = distinct_text("status");
    if (!statuses) return statuses.error();
    facts.statuses = std::move(*statuses);
    {
      Statement s(db_,
                  "SELECT name FROM metric_name m WHERE EXISTS (SELECT 1 FROM debate_metric WHERE metric = m.id)"
                  " ORDER BY name");
      if (!s) return failure("read the metric names");
      int rc;
      while ((rc = s.step()) == SQLITE_ROW) facts.metrics.push_back(s.text(0));
      if (rc != SQLITE_DONE) return failure("read the metric names");
    }
    facts.simulated = meta("simulated") == "1";
    return facts;
  }

  Result<bool> has_metric(const std::string& name) override {
    auto id = metric_id(name);
    if (!id) return id.error();
    return id->has_value();
  }

  Result<DebatePage> list(const DebateQuery& asked) override {
    DebateQuery q = asked;
    q.offset = std::max<std::int64_t>(q.offset, 0);
    q.limit = std::clamp(q.limit, 0, kMaxLimit);
    ReadTransaction read(*this);

    Resolved metrics;
    if (q.sort == DebateSort::kMetric) {
      auto id = metric_id(q.sort_metric);
      if (!id) return id.error();
      metrics.sort = *id;
    }
    for (const MetricRange& range : q.ranges) {
      auto id = metric_id(range.name);
      if (!id) return id.error();
      metrics.ranges.push_back(*id);
    }
    if (!q.text.empty()) {
      auto answers = distinct_text("final_answer", tuning_.listed_answers);
      if (!answers) return answers.error();
      if (answers->size() <= tuning_.listed_answers) {
        metrics.answers.emplace();
        for (const std::string& answer : *answers) {
          if (contains_like(answer, q.text)) metrics.answers->push_back(answer);
        }
      }
    }
    ListContext context;
    context.walk_budget = tuning_.walk_budget;
    if (q.sort == DebateSort::kSeed || q.sort == DebateSort::kTask) {
      auto big = single_integer("SELECT EXISTS (SELECT 1 FROM debate_index WHERE seed < 0)", {});
      if (!big) return big.error();
      context.seeds_past_int64 = *big != 0;
    }
    if (q.sort == DebateSort::kMetric || !q.ranges.empty()) {
      auto exists = single_integer(
          "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'debate_metric_value')", {});
      if (!exists) return exists.error();
      context.metric_value_index = *exists != 0;
    }

    DebatePage page;
    page.offset = q.offset;
    page.limit = q.limit;
    const Sql count = count_sql(q, metrics, context);
    auto total = single_integer(count.text, count.values);
    if (!total) return total.error();
    page.total = *total;
    std::vector<std::int64_t> ids;
    if (q.limit > 0 && q.offset < page.total) {
      auto all = has_filters(q) ? single_integer("SELECT COUNT(*) FROM debate_index", {}) : total;
      if (!all) return all.error();
      const bool walk = walk_the_index(q, context, page.total, *all);
      if (q.sort == DebateSort::kMetric && metrics.sort && walk) {
        // The debates that have the metric in its order, then, past them, those that lack it.
        if (auto ok = read_ids(with_metric_page_sql(q, metrics, context, q.limit, q.offset), ids); !ok) return ok.error();
        if (static_cast<int>(ids.size()) < q.limit) {
          const Sql with = with_metric_count_sql(q, metrics, context);
          auto having = single_integer(with.text, with.values);
          if (!having) return having.error();
          const std::int64_t rest = q.limit - static_cast<std::int64_t>(ids.size());
          const Sql without =
              without_metric_page_sql(q, metrics, context, rest, std::max<std::int64_t>(q.offset - *having, 0));
          if (auto ok = read_ids(without, ids); !ok) return ok.error();
        }
      } else if (auto ok = read_ids(page_sql(q, metrics, context, walk), ids); !ok) {
        return ok.error();
      }
    }
    // The metrics a row shows: those the query is about.
    std::vector<std::pair<std::string, std::int64_t>> shown;
    if (metrics.sort) shown.emplace_back(q.sort_metric, *metrics.sort);
    for (std::size_t i = 0; i < q.ranges.size(); ++i) {
      if (metrics.ranges[i]) shown.emplace_back(q.ranges[i].name, *metrics.ranges[i]);
    }
    Statement row(db_, std::string(kRowColumns) + kRowTask + " WHERE d.id = ?");
    Statement value(db_, "SELECT value FROM debate_metric WHERE debate = ? AND metric = ?");
    if (!row || !value) return failure("prepare the rows");
    for (std::int64_t id : ids) {
      row.bind(1, id);
      if (row.step() != SQLITE_ROW) return failure("read a row");
      DebateRow r = read_row(row);
      row.reset();
      for (const auto& [name, metric] : shown) {
        value.bind(1, id);
        value.bind(2, metric);
        if (value.step() == SQLITE_ROW) r.metrics[name] = value.real(0);
        value.reset();
      }
      page.rows.push_back(std::move(r));
    }
    return page;
  }

  Result<std::optional<std::string>> transcript_json(const UnitKey& unit) override {
    Statement s(db_, "SELECT transcript FROM debates WHERE task_id = ? AND protocol = ? AND seed = ?");
    if (!s) return failure("prepare");
    s.bind(1, unit.task_id);
    s.bind(2, unit.protocol);
    s.bind(3, seed_to_sql(unit.seed));
    const int rc = s.step();
    if (rc == SQLITE_DONE) return std::optional<std::string>();
    if (rc != SQLITE_ROW) return failure("read the debate");
    return std::optional<std::string>(s.text(0));
  }

  Result<std::vector<DebateRow>> others(const UnitKey& unit) override {
    ReadTransaction read(*this);
    // Along the unit index: by a bound seed's equality alone the planner may take the seed's, which
    // holds a quarter of the store for a run of four seeds.
    Statement s(db_, std::string(kRowColumns) + " INDEXED BY debate_index_unit" + kRowTask +
                         " WHERE d.task_id = ? AND d.seed = ? AND d.protocol <> ?");
    if (!s) return failure("prepare");
    s.bind(1, unit.task_id);
    s.bind(2, seed_to_sql(unit.seed));
    s.bind(3, unit.protocol);
    std::vector<DebateRow> rows;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) rows.push_back(read_row(s));
    if (rc != SQLITE_DONE) return failure("read the other protocols");
    const std::vector<std::string> order = split_lines(meta("protocol_order").value_or(""));
    auto rank = [&](const std::string& protocol) {
      return std::find(order.begin(), order.end(), protocol) - order.begin();
    };
    std::sort(rows.begin(), rows.end(), [&](const DebateRow& a, const DebateRow& b) {
      return std::pair(rank(a.protocol), a.protocol) < std::pair(rank(b.protocol), b.protocol);
    });
    return rows;
  }

 private:
  // The one integer `sql` gives.
  Result<std::int64_t> single_integer(const std::string& sql, const std::vector<SqlValue>& values) {
    Statement s(db_, sql);
    if (!s) return failure("prepare");
    bind_all(s, values);
    if (s.step() != SQLITE_ROW) return failure("read the index");
    return s.integer(0);
  }

  // Appends the ids `sql` gives.
  Result<Ok> read_ids(const Sql& sql, std::vector<std::int64_t>& ids) {
    Statement s(db_, sql.text);
    if (!s) return failure("prepare the page");
    bind_all(s, sql.values);
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) ids.push_back(s.integer(0));
    if (rc != SQLITE_DONE) return failure("read the page");
    return Ok{};
  }

  // One snapshot for the statements of one answer; a no-op inside another.
  class ReadTransaction {
   public:
    explicit ReadTransaction(SqliteRunBrowser& b) : db_(b.db_), began_(sqlite3_get_autocommit(db_) != 0) {
      if (began_) sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr);
    }
    ~ReadTransaction() {
      if (began_) sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    }
    ReadTransaction(const ReadTransaction&) = delete;
    ReadTransaction& operator=(const ReadTransaction&) = delete;

   private:
    sqlite3* db_;
    bool began_;
  };

  static DebateRow read_row(const Statement& s) {
    DebateRow r;
    r.task_id = s.text(0);
    r.protocol = s.text(1);
    r.seed = seed_from_sql(s.integer(2));
    r.status = parse_debate_status(s.view(3)).value_or(DebateStatus::kCompleted);
    r.correct = s.integer(4) != 0;
    if (!s.is_null(5)) r.initially_correct = s.integer(5) != 0;
    r.flipped = s.integer(6) != 0;
    r.tokens = s.integer(7);
    r.calls = s.integer(8);
    r.rounds = s.integer(9);
    r.latency_ms = s.real(10);
    if (!s.is_null(11)) r.final_answer = s.text(11);
    r.gold = s.text(12);
    r.question = s.text(13);
    return r;
  }

  // The experiment's order, then the stored protocols it does not name, by name.
  std::vector<std::string> protocol_order(const std::vector<std::string>& stored) {
    std::vector<std::string> order;
    for (std::string& p : split_lines(meta("protocol_order").value_or(""))) {
      if (std::find(order.begin(), order.end(), p) == order.end()) order.push_back(std::move(p));
    }
    for (const std::string& p : stored) {
      if (std::find(order.begin(), order.end(), p) == order.end()) order.push_back(p);
    }
    return order;
  }

  // The distinct values of an indexed column, each found by one seek in its index rather than by
  // reading the index whole. `column` is one of this file's literals.
  // At most `cap` of them (cap + 1 when there are more).
  template <class T, class Read>
  Result<std::vector<T>> distinct(const char* column, Read read, std::size_t cap = SIZE_MAX) {
    Statement first(db_, fmt::format("SELECT MIN({0}) FROM debate_index", column));
    Statement next(db_, fmt::format("SELECT MIN({0}) FROM debate_index WHERE {0} > ?", column));
    if (!first || !next) return failure("prepare");
    std::vector<T> values;
    if (first.step() != SQLITE_ROW) return failure("read the index");
    if (first.is_null(0)) return values;
    values.push_back(read(first));
    while (values.size() <= cap) {
      next.bind(1, values.back());
      if (next.step() != SQLITE_ROW) return failure("read the index");
      if (next.is_null(0)) break;
      values.push_back(read(next));
      next.reset();
    }
    return values;
  }
  Result<std::vector<std::string>> distinct_text(const char* column, std::size_t cap = SIZE_MAX) {
    return distinct<std::string>(column, [](const Statement& s) { return s.text(0); }, cap);
  }
  Result<std::vector<std::int64_t>> distinct_integers(const char* column) {
    return distinct<std::int64_t>(column, [](const Statement& s) { return s.integer(0); });
  }

  Result<std::optional<std::int64_t>> metric_id(const std::string& name) {
    Statement s(db_, "SELECT id FROM metric_name WHERE name = ?");
    if (!s) return failure("prepare");
    s.bind(1, name);
    const int rc = s.step();
    if (rc == SQLITE_DONE) return std::optional<std::int64_t>();
    if (rc != SQLITE_ROW) return failure("read the metric names");
    return std::optional<std::int64_t>(s.integer(0));
  }

  std::optional<std::string> meta(const char* key) {
    Statement s(db_, "SELECT value FROM meta WHERE key = ?");
    if (!s) return std::nullopt;
    s.bind(1, std::string_view(key));
    if (s.step() != SQLITE_ROW) return std::nullopt;
    return s.text(0);
  }

  Error failure(const char* what) const { return Error{fmt::format("{}: {}: {}", path_, what, sqlite3_errmsg(db_))}; }

  sqlite3* db_;
  std::string path_;
  BrowserTuning tuning_;
};

// Opens `path` read-only; the store's schema version, or an Error saying what the file is not.
Result<std::string> open_read_only(const std::filesystem::path& path, sqlite3** db) {
  const int rc = sqlite3_open_v2(path.c_str(), db, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    return Error{fmt::format("{}: cannot open: {}", path.string(), *db ? sqlite3_errmsg(*db) : sqlite3_errstr(rc))};
  }
  for (const char* sql : {"PRAGMA busy_timeout = 5000", kCacheSize, "PRAGMA query_only = 1"}) {
    sqlite3_exec(*db, sql, nullptr, nullptr, nullptr);
  }
  Statement version(*db, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (!version) {
    return Error{fmt::format("{}: not a parley store ({})", path.string(), sqlite3_errmsg(*db))};
  }
  const int step = version.step();
  if (step == SQLITE_ROW) return version.text(0);
  if (step == SQLITE_DONE) return Error{fmt::format("{}: not a parley store (no schema version)", path.string())};
  return Error{fmt::format("{}: cannot read: {}", path.string(), sqlite3_errmsg(*db))};
}

}  // namespace

Result<std::unique_ptr<RunBrowser>> RunBrowser::open(const std::filesystem::path& run_dir,
                                                     const IndexProgress& progress) {
  return open_run_browser(run_dir, progress, BrowserTuning{});
}

Result<std::unique_ptr<RunBrowser>> open_run_browser(const std::filesystem::path& run_dir,
                                                     const IndexProgress& progress, BrowserTuning tuning) {
  std::error_code ec;
  if (!std::filesystem::is_directory(run_dir, ec)) {
    return Error{fmt::format("{}: {}", run_dir.string(),
                             std::filesystem::exists(run_dir, ec) ? "not a directory" : "no such directory")};
  }
  const std::filesystem::path path = run_dir / "results.sqlite";
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error{fmt::format("{}: not a run directory: it has no results.sqlite (`parley run --out {}` writes one)",
                             run_dir.string(), run_dir.string())};
  }
  for (int attempt = 0;; ++attempt) {
    sqlite3* db = nullptr;
    auto version = open_read_only(path, &db);
    if (version && *version == kIndexedVersion) return std::unique_ptr<RunBrowser>(new SqliteRunBrowser(db, path.string(), tuning));
    sqlite3_close_v2(db);
    if (!version) return version.error();
    if (*version == "1") {
      return Error{fmt::format("{}: store schema version 1 was written by an older parley whose re-asks are not "
                               "linked to the calls they repeat; run the experiment again into a new directory",
                               path.string())};
    }
    if (*version != "2" || attempt > 0) {
      return Error{fmt::format("{}: store schema version {} is not one this parley reads (it reads {})",
                               path.string(), *version, kIndexedVersion)};
    }
    // An older parley's store: index it once (Store::open does, and stamps it 3), then read.
    auto store = Store::open(path, progress);
    if (!store) return store.error();
  }
}

}  // namespace parley
