// WalCheckpointer on a real WAL database: commits past the threshold are checkpointed by the
// helper thread (the database file grows, the WAL restarts), below it nothing is, SQLite's own
// checkpoint in COMMIT is gone, and a helper that cannot open the file reports it.
#include "wal_checkpointer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace parley {
namespace {

class WalCheckpointerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("parley-wal-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    ASSERT_EQ(sqlite3_open(path().c_str(), &db_), SQLITE_OK);
    exec("PRAGMA page_size=4096");
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    exec("CREATE TABLE t (x TEXT NOT NULL)");
    // Settle the schema into the database file, so that the file grows only by checkpoints.
    exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  void TearDown() override {
    sqlite3_close_v2(db_);
    std::filesystem::remove_all(dir_);
  }
  std::string path() const { return (dir_ / "db.sqlite").string(); }
  void exec(const std::string& sql) {
    char* message = nullptr;
    ASSERT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK) << (message ? message : "");
  }
  // One transaction of `rows` rows of 3,000 bytes: about `rows` pages of WAL.
  void commit_rows(int rows) {
    exec("BEGIN");
    for (int i = 0; i < rows; ++i) exec("INSERT INTO t VALUES (printf('%.3000c', 'x'))");
    exec("COMMIT");
  }
  std::uintmax_t database_bytes() const { return std::filesystem::file_size(path()); }
  // Waits up to 10 s for the helper to finish `count` checkpoints.
  static bool wait_for(WalCheckpointer& checkpointer, int count) {
    for (int i = 0; i < 1000 && checkpointer.checkpoints() < count; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return checkpointer.checkpoints() >= count;
  }

  std::filesystem::path dir_;
  sqlite3* db_ = nullptr;
};

TEST_F(WalCheckpointerTest, ACommitPastTheThresholdIsCheckpointedByTheHelper) {
  WalCheckpointer checkpointer(db_, path(), 50);
  const auto before = database_bytes();
  commit_rows(20);  // about 20 pages: under the threshold
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(checkpointer.checkpoints(), 0);
  EXPECT_EQ(database_bytes(), before);

  commit_rows(60);  // past it
  ASSERT_TRUE(wait_for(checkpointer, 1));
  // The pages are in the database file now, and the next commit starts the WAL over.
  EXPECT_GE(database_bytes(), before + 60 * 4096);
  commit_rows(1);
  int wal_frames = -1, checkpointed = -1;
  ASSERT_EQ(sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &wal_frames, &checkpointed), SQLITE_OK);
  EXPECT_LT(wal_frames, 10);
  EXPECT_FALSE(checkpointer.take_error());

  // Every row is there for a reader on another connection.
  sqlite3* reader = nullptr;
  ASSERT_EQ(sqlite3_open(path().c_str(), &reader), SQLITE_OK);
  sqlite3_stmt* count = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(reader, "SELECT count(*) FROM t", -1, &count, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(count), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(count, 0), 81);
  sqlite3_finalize(count);
  sqlite3_close_v2(reader);
}

TEST_F(WalCheckpointerTest, CommitsNoLongerCheckpointInline) {
  // SQLite alone would checkpoint in the COMMIT that passes 1,000 pages; with the hook set and
  // the threshold out of reach, the WAL keeps every page and the database file stays as it was.
  WalCheckpointer checkpointer(db_, path(), 1'000'000);
  const auto before = database_bytes();
  commit_rows(1200);
  EXPECT_EQ(database_bytes(), before);
  EXPECT_EQ(checkpointer.checkpoints(), 0);
}

TEST_F(WalCheckpointerTest, OneRequestIsOneCheckpoint) {
  WalCheckpointer checkpointer(db_, path(), 1'000'000);
  checkpointer.request();
  ASSERT_TRUE(wait_for(checkpointer, 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(checkpointer.checkpoints(), 1);
}

TEST_F(WalCheckpointerTest, TheThresholdIsReachedAtExactlyItsPageCount) {
  // Count the WAL frames one commit writes (the same on a new database), then make that the
  // threshold: SQLite's own rule checkpoints at ">= N pages", and so does this.
  commit_rows(20);
  const auto wal_bytes = std::filesystem::file_size(path() + "-wal");
  const int frames = static_cast<int>((wal_bytes - 32) / (4096 + 24));
  ASSERT_GT(frames, 20);
  exec("PRAGMA wal_checkpoint(TRUNCATE)");
  exec("DELETE FROM t");
  exec("PRAGMA wal_checkpoint(TRUNCATE)");
  {
    WalCheckpointer below(db_, path(), frames + 1);
    commit_rows(20);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(below.checkpoints(), 0);
  }
  exec("PRAGMA wal_checkpoint(TRUNCATE)");
  exec("DELETE FROM t");
  exec("PRAGMA wal_checkpoint(TRUNCATE)");
  WalCheckpointer at(db_, path(), frames);
  commit_rows(20);
  EXPECT_TRUE(wait_for(at, 1));
}

TEST_F(WalCheckpointerTest, TheWalStartsOverThoughTheWriterAlwaysHasATransactionOpen) {
  // The store's pattern: the next transaction begins as soon as one commits. The helper's
  // checkpoints then always end inside a transaction, so only the writer's catch-up
  // checkpoint (at four thresholds) lets the WAL start over; without it the WAL grows with
  // every commit (here to about 1,800 frames).
  WalCheckpointer checkpointer(db_, path(), 50);
  exec("BEGIN IMMEDIATE");
  std::uintmax_t largest_wal = 0;
  for (int commit = 0; commit < 60; ++commit) {
    for (int i = 0; i < 30; ++i) exec("INSERT INTO t VALUES (printf('%.3000c', 'x'))");
    exec("COMMIT");
    exec("BEGIN IMMEDIATE");
    largest_wal = std::max(largest_wal, std::filesystem::file_size(path() + "-wal"));
  }
  exec("COMMIT");
  EXPECT_GE(checkpointer.inline_checkpoints(), 1);
  // At most four thresholds, the commit that passes them and the one that follows the catch-up.
  EXPECT_LE(largest_wal, 32 + (4 * 50 + 2 * 31) * (4096 + 24)) << largest_wal;
}

TEST_F(WalCheckpointerTest, AHelperThatCannotOpenTheFileSaysSoOnceAndCommitsCheckpointInstead) {
  WalCheckpointer checkpointer(db_, (dir_ / "no-such-dir" / "db.sqlite").string(), 10);
  checkpointer.request();
  ASSERT_TRUE(wait_for(checkpointer, 1));
  const auto error = checkpointer.take_error();
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("cannot open for a checkpoint"), std::string::npos) << *error;
  EXPECT_FALSE(checkpointer.take_error());
  // As SQLite would: the commit past the threshold copies the WAL into the database itself.
  EXPECT_EQ(checkpointer.inline_checkpoints(), 0);
  const auto before = database_bytes();
  commit_rows(5);  // under the threshold
  EXPECT_EQ(checkpointer.inline_checkpoints(), 0);
  commit_rows(12);  // past it
  EXPECT_EQ(checkpointer.inline_checkpoints(), 1);
  EXPECT_GT(database_bytes(), before);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(checkpointer.checkpoints(), 1);  // the helper is not asked again
}

TEST_F(WalCheckpointerTest, AFileThatIsNotADatabaseIsReported) {
  const std::string garbage = (dir_ / "garbage.sqlite").string();
  {
    std::ofstream out(garbage);
    out << std::string(8192, 'x');
  }
  WalCheckpointer checkpointer(db_, garbage, 10);
  checkpointer.request();
  ASSERT_TRUE(wait_for(checkpointer, 1));
  const auto error = checkpointer.take_error();
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("cannot read for a checkpoint"), std::string::npos) << *error;
}

TEST_F(WalCheckpointerTest, ItHooksTheWriterAndDestroyingItUnhooksIt) {
  { WalCheckpointer checkpointer(db_, path(), 1); }
  // sqlite3_wal_hook returns the argument it replaces: a hook left behind would call into the
  // destroyed object on the next commit.
  EXPECT_EQ(sqlite3_wal_hook(db_, nullptr, nullptr), nullptr);
  WalCheckpointer live(db_, path(), 1);
  EXPECT_EQ(sqlite3_wal_hook(db_, nullptr, nullptr), &live);
}

}  // namespace
}  // namespace parley
