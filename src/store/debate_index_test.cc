// The debate index the store writes with each debate (schema version 3), and builds once for a
// store of version 2.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <limits>

#include "parley/store.h"
#include "store_support.h"

namespace parley {
namespace {

using Rows = std::vector<std::vector<std::string>>;
using testing::query;
using testing::tamper;

class DebateIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("parley-index-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path db() const { return dir_ / "results.sqlite"; }

  std::filesystem::path dir_;
};

MessageRecord call(int id, int round, std::string agent, std::string role, std::optional<std::string> answer,
                   std::int64_t tokens) {
  MessageRecord m;
  m.id = id;
  m.round = round;
  m.agent = std::move(agent);
  m.role = std::move(role);
  m.text = "Answer: " + answer.value_or("?");
  m.answer = std::move(answer);
  m.prompt_tokens = tokens;
  m.completion_tokens = 1;
  m.latency_ms = 10.0 * (round + 1);
  return m;
}

// Two agents answer B (right) in round 0, both C in round 1; the debate answers C: a flip.
Transcript flipped_debate() {
  Transcript t;
  t.task_id = "t1";
  t.protocol = "debate";
  t.seed = 3;
  t.question = "Which planet is largest?";
  t.options = {"Mars", "Jupiter", "Venus"};
  t.gold = "B";
  t.answer_type = AnswerType::kChoice;
  t.messages = {call(0, 0, "a1", "answer", "B", 100), call(1, 0, "a2", "answer", "B", 100),
                call(2, 1, "a1", "revise", "C", 200), call(3, 1, "a2", "revise", "C", 200),
                call(4, 1, "j", "judge", "C", 50)};
  t.final_answer = "C";
  t.correct = false;
  t.metrics = {{"u_sys", 0.25}, {"prr", 0.5}, {"broken", std::numeric_limits<double>::quiet_NaN()}};
  return t;
}

TEST_F(DebateIndexTest, APutWritesTheDebatesRowItsTaskAndItsFiniteMetrics) {
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store) << store.error().message;
    ASSERT_TRUE((*store)->put(flipped_debate()));
  }
  EXPECT_EQ(query(db(), "SELECT value FROM meta WHERE key = 'schema_version'"), (Rows{{"3"}}));
  // id = the debate's rowid; tokens = prompt + completion of every call (5 calls, 650 + 5);
  // rounds = distinct rounds of the answer-bearing turns (the judge's is not one); latency = the
  // critical path (round 0: 10 ms, round 1: the slowest of a1, a2, j: 20 ms).
  EXPECT_EQ(query(db(),
                  "SELECT d.id = b.rowid, d.task_id, d.protocol, d.seed, d.status, d.correct, d.initially_correct,"
                  " d.flipped, d.tokens, d.calls, d.rounds, d.latency_ms, d.final_answer"
                  " FROM debate_index d JOIN debates b ON b.task_id = d.task_id"),
            (Rows{{"1", "t1", "debate", "3", "completed", "0", "1", "1", "655", "5", "2", "30.0", "C"}}));
  EXPECT_EQ(query(db(), "SELECT task_id, question, gold FROM debate_task"),
            (Rows{{"t1", "Which planet is largest?", "B"}}));
  // The NaN metric is left out (SQLite would make it NULL).
  EXPECT_EQ(query(db(),
                  "SELECT n.name, m.value FROM debate_metric m JOIN metric_name n ON n.id = m.metric ORDER BY n.name"),
            (Rows{{"prr", "0.5"}, {"u_sys", "0.25"}}));
}

TEST_F(DebateIndexTest, AnUnparsedFirstRoundIsNullAndAMissingFinalAnswerIsNull) {
  Transcript t = flipped_debate();
  t.messages[0].answer.reset();
  t.messages[1].answer.reset();
  t.final_answer.reset();
  t.status = DebateStatus::kFailed;
  t.metrics.clear();
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->put(t));
  }
  EXPECT_EQ(query(db(), "SELECT status, initially_correct, flipped, final_answer FROM debate_index"),
            (Rows{{"failed", "NULL", "0", "NULL"}}));
  EXPECT_EQ(query(db(), "SELECT COUNT(*) FROM debate_metric"), (Rows{{"0"}}));
}

TEST_F(DebateIndexTest, ATasksQuestionIsKeptOnceAndCutAtACharacterBoundary) {
  Transcript first = flipped_debate();
  first.question = "";  // as an older parley's transcript
  Transcript second = flipped_debate();
  second.seed = 4;
  second.question = std::string(999, 'x') + "\xC3\xA9 and more";  // é straddles byte 1,000
  Transcript third = flipped_debate();
  third.seed = 5;
  third.question = "another wording";
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
    for (const Transcript& t : {first, second, third}) ASSERT_TRUE((*store)->put(t));
  }
  // The first non-empty question stays; it is cut before the é rather than through it.
  EXPECT_EQ(query(db(), "SELECT COUNT(*), length(question), substr(question, 1, 3) FROM debate_task"),
            (Rows{{"1", "999", "xxx"}}));
  EXPECT_EQ(query(db(), "SELECT COUNT(*) FROM debate_index"), (Rows{{"3"}}));
}

TEST_F(DebateIndexTest, RemovingFailedDebatesRemovesTheirIndexRowsAndMetrics) {
  Transcript failed = flipped_debate();
  failed.status = DebateStatus::kFailed;
  Transcript kept = flipped_debate();
  kept.seed = 9;
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->put(failed));
    ASSERT_TRUE((*store)->put(kept));
    auto removed = (*store)->remove_failed();
    ASSERT_TRUE(removed) << removed.error().message;
    EXPECT_EQ(*removed, 1);
    // The same unit can be stored again (a retry), index and all.
    failed.status = DebateStatus::kCompleted;
    ASSERT_TRUE((*store)->put(failed));
  }
  EXPECT_EQ(query(db(), "SELECT seed, status FROM debate_index ORDER BY seed"),
            (Rows{{"3", "completed"}, {"9", "completed"}}));
  EXPECT_EQ(query(db(), "SELECT COUNT(*) FROM debate_metric"), (Rows{{"4"}}));
  EXPECT_EQ(query(db(), "SELECT COUNT(*) FROM debate_metric WHERE debate NOT IN (SELECT id FROM debate_index)"),
            (Rows{{"0"}}));
}

TEST_F(DebateIndexTest, ADebateWhoseIndexRowCannotBeWrittenIsNotStoredEither) {
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
  }
  tamper(db(),
         "CREATE TRIGGER refuse BEFORE INSERT ON debate_index WHEN NEW.task_id = 'bad'"
         " BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;"
         "CREATE TRIGGER refuse_metric BEFORE INSERT ON debate_metric WHEN NEW.value = 0.125"
         " BEGIN SELECT RAISE(ABORT, 'metric refused'); END");
  Transcript bad = flipped_debate();
  bad.task_id = "bad";
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->put(flipped_debate()));
    auto refused = (*store)->put(bad);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("refused by the test"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("debate (bad, debate, seed 3)"), std::string::npos);
    // Refused at its last metric, after its row and first metric were written: undone whole.
    Transcript bad_metric = flipped_debate();
    bad_metric.seed = 5;
    bad_metric.metrics["zz_last"] = 0.125;
    auto undone = (*store)->put(bad_metric);
    ASSERT_FALSE(undone);
    EXPECT_NE(undone.error().message.find("metric refused"), std::string::npos) << undone.error().message;
    // The transaction goes on: the debate before them, and one after them, are stored.
    Transcript after = flipped_debate();
    after.seed = 8;
    ASSERT_TRUE((*store)->put(after));
  }
  EXPECT_EQ(query(db(), "SELECT task_id, seed FROM debates ORDER BY seed"), (Rows{{"t1", "3"}, {"t1", "8"}}));
  EXPECT_EQ(query(db(), "SELECT task_id, seed FROM debate_index ORDER BY seed"), (Rows{{"t1", "3"}, {"t1", "8"}}));
  EXPECT_EQ(query(db(), "SELECT COUNT(*) FROM debate_metric WHERE debate NOT IN (SELECT id FROM debate_index)"),
            (Rows{{"0"}}));
}

TEST_F(DebateIndexTest, ADebateDeletedByHandLeavesTheIndexWhenTheStoreIsNextOpened) {
  Transcript other = flipped_debate();
  other.seed = 4;
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->put(other));            // rowid 1
    ASSERT_TRUE((*store)->put(flipped_debate()));  // rowid 2
  }
  // Deleted from `debates` behind parley's back, to run it again: the next debate stored reuses
  // its rowid, and its unit comes back.
  tamper(db(), "DELETE FROM debates WHERE seed = 3");
  Transcript again = flipped_debate();
  again.final_answer = "B";
  again.correct = true;
  again.metrics = {{"u_sys", 0.75}};
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store) << store.error().message;
    ASSERT_TRUE((*store)->put(again));
  }
  // The same with a rowid that is not reused (seed 4's, below the last).
  tamper(db(), "DELETE FROM debates WHERE seed = 4");
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store) << store.error().message;
    ASSERT_TRUE((*store)->put(other));
  }
  EXPECT_EQ(query(db(), "SELECT d.seed, d.correct, d.flipped, d.id = b.rowid FROM debate_index d"
                        " JOIN debates b ON b.seed = d.seed ORDER BY d.seed"),
            (Rows{{"3", "1", "0", "1"}, {"4", "0", "1", "1"}}));
  EXPECT_EQ(query(db(), "SELECT COUNT(*) FROM debate_index"), (Rows{{"2"}}));
  EXPECT_EQ(query(db(), "SELECT d.seed, n.name, m.value FROM debate_metric m JOIN metric_name n ON n.id = m.metric"
                        " JOIN debate_index d ON d.id = m.debate ORDER BY d.seed, n.name"),
            (Rows{{"3", "u_sys", "0.75"}, {"4", "prr", "0.5"}, {"4", "u_sys", "0.25"}}));
  EXPECT_EQ(query(db(), "SELECT COUNT(*) FROM debate_metric"), (Rows{{"3"}}));
}

TEST_F(DebateIndexTest, ADebateWhoseIndexRowsWereDeletedByHandIsIndexedAgainWhenOpened) {
  Transcript other = flipped_debate();
  other.seed = 4;
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->put(flipped_debate()));
    ASSERT_TRUE((*store)->put(other));
  }
  const auto before = query(db(), "SELECT * FROM debate_index ORDER BY id");
  tamper(db(), "DELETE FROM debate_index WHERE seed = 4; DELETE FROM debate_metric WHERE debate = 2");
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store) << store.error().message;
  }
  EXPECT_EQ(query(db(), "SELECT * FROM debate_index ORDER BY id"), before);
  EXPECT_EQ(query(db(), "SELECT COUNT(*) FROM debate_metric"), (Rows{{"4"}}));
  // A store whose counts agree is not touched (nothing to write, no lock taken).
  tamper(db(), "UPDATE debate_index SET tokens = 1 WHERE seed = 4");
  {
    auto store = Store::open(db());
    ASSERT_TRUE(store);
  }
  EXPECT_EQ(query(db(), "SELECT tokens FROM debate_index WHERE seed = 4"), (Rows{{"1"}}));
}

TEST_F(DebateIndexTest, AVersion2StoreIsIndexedFromItsTranscriptsOnceWhenOpened) {
  Transcript older = flipped_debate();
  older.question.clear();  // written before transcripts carried it
  older.options.clear();
  Transcript right = flipped_debate();
  right.task_id = "t2";
  right.final_answer = "B";
  right.correct = true;
  testing::write_version_2_store(db(), {older, right});
  std::vector<std::pair<std::int64_t, std::int64_t>> progress;
  {
    auto store = Store::open(db(), [&](std::int64_t done, std::int64_t total) { progress.emplace_back(done, total); });
    ASSERT_TRUE(store) << store.error().message;
    EXPECT_EQ((*store)->meta("schema_version"), "3");
    EXPECT_EQ((*store)->count(), 2);
  }
  ASSERT_GE(progress.size(), 2u);
  EXPECT_EQ(progress.front(), std::make_pair(std::int64_t{0}, std::int64_t{2}));
  EXPECT_EQ(progress.back(), std::make_pair(std::int64_t{2}, std::int64_t{2}));
  EXPECT_EQ(query(db(), "SELECT task_id, initially_correct, flipped, tokens FROM debate_index ORDER BY task_id"),
            (Rows{{"t1", "1", "1", "655"}, {"t2", "1", "0", "655"}}));
  EXPECT_EQ(query(db(), "SELECT task_id, question FROM debate_task ORDER BY task_id"),
            (Rows{{"t1", ""}, {"t2", "Which planet is largest?"}}));
  EXPECT_EQ(query(db(), "SELECT COUNT(*) FROM debate_metric"), (Rows{{"4"}}));
  // Once: opened again, nothing is rebuilt (no progress), and a new debate adds its row.
  progress.clear();
  {
    auto store = Store::open(db(), [&](std::int64_t done, std::int64_t total) { progress.emplace_back(done, total); });
    ASSERT_TRUE(store);
    Transcript more = flipped_debate();
    more.task_id = "t3";
    ASSERT_TRUE((*store)->put(more));
  }
  EXPECT_TRUE(progress.empty());
  EXPECT_EQ(query(db(), "SELECT COUNT(*) FROM debate_index"), (Rows{{"3"}}));
}

TEST_F(DebateIndexTest, AVersion2StoreWithADamagedTranscriptStaysVersion2) {
  Transcript bad = flipped_debate();
  bad.task_id = "t9";
  testing::write_version_2_store(db(), {flipped_debate(), bad});
  tamper(db(), "UPDATE debates SET transcript = '{\"messages\": 5}' WHERE task_id = 't9'");
  auto store = Store::open(db());
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("building the debate index of a version-2 store"), std::string::npos)
      << store.error().message;
  // Rolled back whole: still version 2, no half index.
  EXPECT_EQ(query(db(), "SELECT value FROM meta WHERE key = 'schema_version'"), (Rows{{"2"}}));
  EXPECT_EQ(query(db(), "SELECT COUNT(*) FROM sqlite_master WHERE name = 'debate_index'"), (Rows{{"0"}}));
}

}  // namespace
}  // namespace parley
