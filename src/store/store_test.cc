#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include <sqlite3.h>

#include "parley/store.h"

namespace parley {
namespace {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("parley-store-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path db() const { return dir_ / "results.sqlite"; }

  static Transcript unit(const std::string& task, const std::string& protocol, std::uint64_t seed) {
    Transcript t;
    t.task_id = task;
    t.protocol = protocol;
    t.seed = seed;
    t.gold = "A";
    t.final_answer = "A";
    t.correct = true;
    MessageRecord m;
    m.agent = "a1";
    m.role = "answer";
    m.text = "Answer: A";
    m.answer = "A";
    m.prompt_tokens = 10;
    t.messages.push_back(m);
    return t;
  }

  std::filesystem::path dir_;
};

TEST_F(StoreTest, StoredTaskIsTheTaskAStoredDebateWasAskedBeforeAndAfterAFlush) {
  Transcript t = unit("q1", "single", 3);
  t.question = std::string(1500, 'q');  // longer than the index keeps: the whole question
  t.options = {"yes", "no"};
  t.answer_type = AnswerType::kChoice;
  t.gold = "B";
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store) << store.error().message;
    ASSERT_TRUE((*store)->put(t));
    auto unflushed = (*store)->stored_task("q1");
    ASSERT_TRUE(unflushed) << unflushed.error().message;
    ASSERT_TRUE(unflushed->has_value());
    EXPECT_EQ((*unflushed)->question, t.question);
    ASSERT_TRUE((*store)->flush());
  }
  auto store = Store::open(db());
  ASSERT_TRUE(store);
  auto task = (*store)->stored_task("q1");
  ASSERT_TRUE(task && task->has_value());
  EXPECT_EQ((*task)->id, "q1");
  EXPECT_EQ((*task)->question, t.question);
  EXPECT_EQ((*task)->options, (std::vector<std::string>{"yes", "no"}));
  EXPECT_EQ((*task)->answer_type, AnswerType::kChoice);
  EXPECT_EQ((*task)->answer, "B");
  EXPECT_FALSE((*task)->tolerance.has_value());
  auto absent = (*store)->stored_task("q2");
  ASSERT_TRUE(absent);
  EXPECT_FALSE(absent->has_value());
}

TEST_F(StoreTest, PutLoadAndFinishedAcrossReopen) {
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store) << store.error().message;
    ASSERT_TRUE((*store)->put(unit("q2", "single", 1)));
    ASSERT_TRUE((*store)->put(unit("q1", "single", 1)));
    ASSERT_TRUE((*store)->put(unit("q1", "debate", 2)));
    ASSERT_TRUE((*store)->set_meta("fingerprint", "abc"));
    ASSERT_TRUE((*store)->flush());
  }
  auto store = Store::open(db());
  ASSERT_TRUE(store);
  EXPECT_EQ((*store)->count(), 3);
  EXPECT_EQ((*store)->meta("fingerprint"), "abc");
  EXPECT_EQ((*store)->meta("schema_version"), "3");
  EXPECT_FALSE((*store)->meta("absent"));
  const auto finished = (*store)->finished();
  EXPECT_EQ(finished.size(), 3u);
  EXPECT_TRUE(finished.count(UnitKey{"q1", "debate", 2}));
  auto all = (*store)->load_all();
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 3u);
  // Ordered by (protocol, task_id, seed).
  EXPECT_EQ((*all)[0].protocol, "debate");
  EXPECT_EQ((*all)[1].task_id, "q1");
  EXPECT_EQ((*all)[2].task_id, "q2");
  EXPECT_EQ((*all)[2].messages[0].prompt_tokens, 10);
}

TEST_F(StoreTest, LoadAllAndCopyGivesEachRowAsWrittenInLoadOrder) {
  Transcript odd = unit("q1", "single", 3);
  odd.messages[0].text = "caf\xC3\xA9 \xff \"quoted\"\n";  // UTF-8, an invalid byte, escapes
  const std::vector<Transcript> puts = {unit("q2", "single", 1), odd, unit("q1", "debate", 2)};
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
    for (const auto& t : puts) ASSERT_TRUE((*store)->put(t));
  }
  auto store = Store::open(db());
  ASSERT_TRUE(store);
  std::vector<std::string> rows;
  auto all = (*store)->load_all_and_copy([&](std::string_view json) { rows.emplace_back(json); }, CallTexts::kRead);
  ASSERT_TRUE(all);
  // (protocol, task_id, seed): debate/q1, single/q1, single/q2.
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], transcript_to_json(puts[2]));
  EXPECT_EQ(rows[1], transcript_to_json(puts[1]));
  EXPECT_EQ(rows[2], transcript_to_json(puts[0]));
  EXPECT_NE(rows[1].find("caf\xC3\xA9 \xEF\xBF\xBD \\\"quoted\\\"\\n"), std::string::npos) << rows[1];
  // Copying a row is what decoding and writing it again would give, and the transcripts are
  // the ones load_all reads.
  ASSERT_EQ(all->size(), 3u);
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(transcript_to_json((*all)[i]), rows[i]);
  EXPECT_EQ((*all)[0].task_id, "q1");
  EXPECT_EQ((*all)[0].protocol, "debate");
  // Without the texts (the summary's reading) the rows copied are still whole.
  std::vector<std::string> whole_rows;
  auto counted = (*store)->load_all_and_copy([&](std::string_view json) { whole_rows.emplace_back(json); },
                                             CallTexts::kSkip);
  ASSERT_TRUE(counted);
  EXPECT_EQ(whole_rows, rows);
  ASSERT_EQ(counted->size(), 3u);
  EXPECT_TRUE((*counted)[1].messages[0].text.empty());
  EXPECT_EQ((*counted)[1].messages[0].prompt_tokens, (*all)[1].messages[0].prompt_tokens);
}

TEST_F(StoreTest, LoadAllSeesUnflushedPutsAndLeavesTheirTransactionOpen) {
  auto store = Store::open(db());
  ASSERT_TRUE(store);
  ASSERT_TRUE((*store)->put(unit("q2", "single", 7)));
  ASSERT_TRUE((*store)->put(unit("q2", "single", 3)));
  auto all = (*store)->load_all();
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].seed, 3u);
  EXPECT_EQ((*all)[1].seed, 7u);
  // The batch goes on and is made durable by the next flush.
  ASSERT_TRUE((*store)->put(unit("q1", "single", 1)));
  ASSERT_TRUE((*store)->flush());
  store->reset();
  auto reopened = Store::open(db());
  ASSERT_TRUE(reopened);
  EXPECT_EQ((*reopened)->count(), 3);
}

TEST_F(StoreTest, RemoveFailedDeletesOnlyFailedDebatesIncludingUnflushedOnes) {
  auto store = Store::open(db());
  ASSERT_TRUE(store);
  auto with_status = [](Transcript t, DebateStatus status) {
    t.status = status;
    return t;
  };
  ASSERT_TRUE((*store)->put(with_status(unit("q1", "single", 1), DebateStatus::kFailed)));
  ASSERT_TRUE((*store)->put(with_status(unit("q2", "single", 1), DebateStatus::kCompleted)));
  ASSERT_TRUE((*store)->put(with_status(unit("q3", "single", 1), DebateStatus::kBudget)));
  ASSERT_TRUE((*store)->put(with_status(unit("q1", "debate", 7), DebateStatus::kFailed)));
  auto removed = (*store)->remove_failed();  // the puts are still in the open transaction
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_EQ(*removed, 2);
  EXPECT_EQ((*store)->finished(), (std::set<UnitKey>{{"q2", "single", 1}, {"q3", "single", 1}}));
  // A removed unit can be stored again, and nothing is left to remove.
  ASSERT_TRUE((*store)->put(unit("q1", "single", 1)));
  EXPECT_EQ((*store)->remove_failed().value(), 0);
  EXPECT_EQ((*store)->count(), 3);
}

TEST_F(StoreTest, DuplicateUnitIsAnError) {
  auto store = Store::open(db());
  ASSERT_TRUE(store);
  ASSERT_TRUE((*store)->put(unit("q1", "single", 1)));
  auto again = (*store)->put(unit("q1", "single", 1));
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("already stored"), std::string::npos);
  // The failed insert does not lose the open batch.
  ASSERT_TRUE((*store)->put(unit("q1", "single", 2)));
  ASSERT_TRUE((*store)->flush());
  EXPECT_EQ((*store)->count(), 2);
}

TEST_F(StoreTest, ACancelledDebateIsNotAResultAndIsRefused) {
  auto store = Store::open(db());
  ASSERT_TRUE(store);
  Transcript cut_short = unit("q1", "debate", 1);
  cut_short.status = DebateStatus::kCancelled;
  auto put = (*store)->put(cut_short);
  ASSERT_FALSE(put);
  EXPECT_NE(put.error().message.find("debate (q1, debate, seed 1) was cut short by a stop and is not a result"),
            std::string::npos)
      << put.error().message;
  ASSERT_TRUE((*store)->flush());
  EXPECT_EQ((*store)->count(), 0);
  EXPECT_TRUE((*store)->finished().empty());  // a resume runs it again
}

TEST_F(StoreTest, KillLosesOnlyTheOpenBatch) {
  // A child process puts 64 + 10 debates and dies without flushing: the first full batch of
  // 64 was committed, the 10 in the open transaction are gone.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto store = Store::open(db());
    if (!store) ::_exit(3);
    for (int i = 0; i < 74; ++i)
      if (!(*store)->put(unit("q" + std::to_string(i), "single", 1))) ::_exit(4);
    ::_exit(0);  // no destructor, no flush: like SIGKILL
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  auto store = Store::open(db());
  ASSERT_TRUE(store) << store.error().message;
  EXPECT_EQ((*store)->count(), 64);
}

TEST_F(StoreTest, SchemaVersionMismatchIsRefused) {
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->set_meta("schema_version", "99"));
  }
  auto store = Store::open(db());
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("schema version 99"), std::string::npos);
}

TEST_F(StoreTest, AVersionOneStoreIsRefusedWithTheReason) {
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->put(unit("q1", "single", 1)));
    ASSERT_TRUE((*store)->set_meta("schema_version", "1"));
  }
  auto store = Store::open(db());
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("re-asks are not linked"), std::string::npos) << store.error().message;
  EXPECT_NE(store.error().message.find("run the experiment again"), std::string::npos);
}

// Runs one statement on the store's file behind parley's back (a damaged or hand-edited store).
void tamper(const std::filesystem::path& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

TEST_F(StoreTest, AStoreWithDebatesButNoSchemaVersionIsRefusedNotStamped) {
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->put(unit("q1", "single", 1)));
  }
  tamper(db(), "DELETE FROM meta WHERE key = 'schema_version'");
  for (int attempt = 0; attempt < 2; ++attempt) {  // refused again: the first refusal wrote nothing
    auto store = Store::open(db());
    ASSERT_FALSE(store);
    EXPECT_NE(store.error().message.find("has debates but no schema version"), std::string::npos)
        << store.error().message;
  }
}

std::int64_t page_size(const std::filesystem::path& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &stmt, nullptr);
  const std::int64_t size = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return size;
}

TEST_F(StoreTest, ANewStoreHasPagesATranscriptRowFitsOnAndAnOlderOneKeepsItsOwn) {
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->put(unit("q1", "single", 1)));
  }
  EXPECT_EQ(page_size(db()), 16384);
  // A store begun with SQLite's default 4 KB pages (an older parley) is read and written as it is.
  const auto older = dir_ / "older.sqlite";
  tamper(older, "PRAGMA page_size=4096; CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  {
    auto store = Store::open(older);
    ASSERT_TRUE(store) << store.error().message;
    Transcript big = unit("q1", "single", 1);
    big.messages[0].text = std::string(20000, 'x');  // spans several 4 KB pages
    ASSERT_TRUE((*store)->put(big));
  }
  EXPECT_EQ(page_size(older), 4096);
  auto store = Store::open(older);
  ASSERT_TRUE(store);
  auto all = (*store)->load_all();
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].messages[0].text.size(), 20000u);
}

TEST_F(StoreTest, AnUnreadableTranscriptNamesItsDebate) {
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->put(unit("q1", "single", 1)));
    ASSERT_TRUE((*store)->put(unit("q2", "mad", 7)));
  }
  tamper(db(), "UPDATE debates SET transcript = '{\"messages\": 5}' WHERE task_id = 'q2'");
  auto store = Store::open(db());
  ASSERT_TRUE(store) << store.error().message;
  auto all = (*store)->load_all();
  ASSERT_FALSE(all);
  EXPECT_NE(all.error().message.find("debate of task q2, protocol mad, seed 7: "), std::string::npos)
      << all.error().message;
}

TEST_F(StoreTest, NotADatabaseIsAnError) {
  std::ofstream(db()) << "this is not sqlite, just text that is long enough to have a header...........";
  auto store = Store::open(db());
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find(db().string()), std::string::npos);
}

TEST_F(StoreTest, MissingDirectoryIsAnError) {
  auto store = Store::open(dir_ / "no" / "such" / "dir" / "results.sqlite");
  EXPECT_FALSE(store);
}

}  // namespace
}  // namespace parley
