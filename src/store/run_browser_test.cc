// RunBrowser on a hand-built store: every filter, combined filters, every sort with its ties,
// paging at its edges, hostile search text, a version-2 store, and what is not a run.
#include "parley/run_browser.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include <fmt/format.h>

#include "run_browser_tuning.h"
#include "store_support.h"

namespace parley {
namespace {

constexpr std::uint64_t kBigSeed = 9223372036854775813ULL;  // 2^63 + 5: stored negative

using Keys = std::vector<std::string>;

MessageRecord call(int id, int round, const std::string& agent, std::optional<std::string> answer,
                   std::int64_t tokens, double latency) {
  MessageRecord m;
  m.id = id;
  m.round = round;
  m.agent = agent;
  m.role = round == 0 ? "answer" : "revise";
  m.text = "reply";
  m.answer = std::move(answer);
  m.prompt_tokens = tokens;
  m.latency_ms = latency;
  return m;
}

struct Spec {
  std::string task, protocol;
  std::uint64_t seed;
  std::vector<std::optional<std::string>> first_round;  // one call each, round 0
  std::optional<std::string> final_answer;              // also the one round-1 call's answer
  std::int64_t tokens;                                  // of the round-1 call (first-round calls: 10 each)
  double latency;                                       // of the round-1 call (first-round calls: 1 ms)
  std::map<std::string, double> metrics;
  DebateStatus status = DebateStatus::kCompleted;
};

// Gold per task: t1 B, t2 C, t3 D, t4 A.
std::string gold_of(const std::string& task) {
  if (task == "t1") return "B";
  if (task == "t2") return "C";
  if (task == "t4") return "A";
  return "D";
}

std::string question_of(const std::string& task) {
  if (task == "t3") return "Is 100% of <script>alert('x')</script> a_b \"quoted\"?";
  return "Question " + task + ": which PLANET is largest?";
}

Transcript make(const Spec& s) {
  Transcript t;
  t.task_id = s.task;
  t.protocol = s.protocol;
  t.seed = s.seed;
  t.question = question_of(s.task);
  t.options = {"Mars", "Jupiter", "Venus", "Earth"};
  t.gold = gold_of(s.task);
  t.answer_type = AnswerType::kChoice;
  int id = 0;
  for (const auto& answer : s.first_round) {
    t.messages.push_back(call(id, 0, "a" + std::to_string(id + 1), answer, 10, 1.0));
    ++id;
  }
  t.messages.push_back(call(id++, 1, "a1", s.final_answer, s.tokens, s.latency));
  t.final_answer = s.final_answer;
  t.correct = s.final_answer == t.gold;
  t.status = s.status;
  t.metrics = s.metrics;
  return t;
}

// The debates, in the order stored (their ids 1..9):
//   1 t1 single 1   right from the start                  tokens 110  latency 11  u .1
//   2 t1 debate 1   B,B then C: flipped                   tokens 320  latency 31  u .5 prr .2
//   3 t2 single 1   wrong                                  tokens 110  latency 13  u .3
//   4 t2 debate 1   A,A then C: wrong to right             tokens 250  latency 26  u .5 prr .4
//   5 t1 single 2   right                                  tokens 130  latency 11  u .1
//   6 t1 debate 2   failed: no final answer                tokens  70  latency  5
//   7 t3 single 1   hostile text in its task and question  tokens 110  latency 11  u .9
//   8 t4 debate 2   budget; first round unparsed, wrong   tokens 220  latency 21  prr .4
//   9 t1 single 2^63+5  right                              tokens 110  latency 11  u .2
std::vector<Spec> specs() {
  return {
      {"t1", "single", 1, {"B"}, "B", 100, 10, {{"u", 0.1}}},
      {"t1", "debate", 1, {"B", "B"}, "C", 300, 30, {{"u", 0.5}, {"prr", 0.2}}},
      {"t2", "single", 1, {"A"}, "A", 100, 12, {{"u", 0.3}}},
      {"t2", "debate", 1, {"A", "A"}, "C", 230, 25, {{"u", 0.5}, {"prr", 0.4}}},
      {"t1", "single", 2, {"B"}, "B", 120, 10, {{"u", 0.1}}},
      {"t1", "debate", 2, {"B", "B"}, std::nullopt, 50, 4, {}, DebateStatus::kFailed},
      {"t3", "single", 1, {"D"}, "D", 100, 10, {{"u", 0.9}}},
      {"t4", "debate", 2, {std::nullopt, std::nullopt}, "B", 200, 20, {{"prr", 0.4}}, DebateStatus::kBudget},
      {"t1", "single", kBigSeed, {"B"}, "B", 100, 10, {{"u", 0.2}}},
  };
}

std::string key(const DebateRow& r) { return r.task_id + "/" + r.protocol + "/" + std::to_string(r.seed); }

Keys keys(const DebatePage& page) {
  Keys out;
  for (const DebateRow& r : page.rows) out.push_back(key(r));
  return out;
}

// Every list is read each way a page can be (debate_list.h): walking the sort's index wherever it
// has the order, sorting the matching rows wherever a walk is not covered; with the metrics' value
// index a finished run has, and without it (a run still writing).
struct Reading {
  std::int64_t walk_budget;  // 0: "Sorted", which also finds searched answers row by row
  bool finished;
};

std::string reading_name(const ::testing::TestParamInfo<Reading>& info) {
  return std::string(info.param.walk_budget == 0 ? "Sorted" : "Walked") + (info.param.finished ? "Finished" : "Writing");
}

class RunBrowserTest : public ::testing::TestWithParam<Reading> {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("parley-browse-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void write_store() {
    auto store = Store::open(dir_ / "results.sqlite");
    ASSERT_TRUE(store) << store.error().message;
    ASSERT_TRUE((*store)->set_meta("protocol_order", "single\ndebate"));
    ASSERT_TRUE((*store)->set_meta("simulated", "1"));
    for (const Spec& s : specs()) ASSERT_TRUE((*store)->put(make(s)));
    if (GetParam().finished) {
      ASSERT_TRUE((*store)->finish());
    }
  }

  // Sorted pages also read every row's final answer for a search; walked ones list the answers.
  static BrowserTuning tuning() {
    return BrowserTuning{GetParam().walk_budget, GetParam().walk_budget == 0 ? 0 : kListedAnswers};
  }

  std::unique_ptr<RunBrowser> browser() {
    auto opened = open_run_browser(dir_, nullptr, tuning());
    EXPECT_TRUE(opened) << opened.error().message;
    return opened ? std::move(*opened) : nullptr;
  }

  // The keys of the page `query` gives, checking its total.
  Keys list(RunBrowser& b, DebateQuery q, std::int64_t total) {
    auto page = b.list(q);
    EXPECT_TRUE(page) << page.error().message;
    if (!page) return {};
    EXPECT_EQ(page->total, total);
    return keys(*page);
  }

  std::filesystem::path dir_;
};

const std::string kBig = "t1/single/" + std::to_string(kBigSeed);

TEST_P(RunBrowserTest, FactsNameTheRunsProtocolsSeedsMetricsAndStatuses) {
  write_store();
  auto b = browser();
  ASSERT_TRUE(b);
  auto facts = b->facts();
  ASSERT_TRUE(facts) << facts.error().message;
  EXPECT_EQ(facts->debates, 9);
  EXPECT_EQ(facts->protocols, (std::vector<std::string>{"single", "debate"}));  // the experiment's order
  EXPECT_EQ(facts->seeds, (std::vector<std::uint64_t>{1, 2, kBigSeed}));        // unsigned order
  EXPECT_EQ(facts->metrics, (std::vector<std::string>{"prr", "u"}));
  EXPECT_EQ(facts->statuses, (std::vector<std::string>{"budget", "completed", "failed"}));
  EXPECT_TRUE(facts->simulated);
  EXPECT_EQ(b->has_metric("prr").value(), true);
  EXPECT_EQ(b->has_metric("nope").value(), false);
}

TEST_P(RunBrowserTest, AProtocolTheExperimentDoesNotNameComesAfterItsOnesByName) {
  write_store();
  {
    auto store = Store::open(dir_ / "results.sqlite");
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->set_meta("protocol_order", "debate"));
    ASSERT_TRUE((*store)->set_meta("simulated", "0"));
  }
  auto facts = browser()->facts();
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->protocols, (std::vector<std::string>{"debate", "single"}));
  EXPECT_FALSE(facts->simulated);
}

TEST_P(RunBrowserTest, TheDefaultListIsByTaskProtocolAndSeed) {
  write_store();
  auto b = browser();
  EXPECT_EQ(list(*b, {}, 9), (Keys{"t1/debate/1", "t1/debate/2", "t1/single/1", "t1/single/2", kBig, "t2/debate/1",
                                   "t2/single/1", "t3/single/1", "t4/debate/2"}));
  DebateQuery desc;
  desc.descending = true;
  EXPECT_EQ(list(*b, desc, 9), (Keys{"t4/debate/2", "t3/single/1", "t2/single/1", "t2/debate/1", kBig, "t1/single/2",
                                     "t1/single/1", "t1/debate/2", "t1/debate/1"}));
}

TEST_P(RunBrowserTest, ARowCarriesTheIndexedFacts) {
  write_store();
  auto b = browser();
  DebateQuery q;
  q.protocol = "debate";
  q.seed = 1;
  q.ranges = {{"prr", std::nullopt, std::nullopt}};
  auto page = b->list(q);
  ASSERT_TRUE(page);
  ASSERT_EQ(page->rows.size(), 2u);
  const DebateRow& r = page->rows[0];
  EXPECT_EQ(key(r), "t1/debate/1");
  EXPECT_EQ(r.status, DebateStatus::kCompleted);
  EXPECT_FALSE(r.correct);
  EXPECT_EQ(r.initially_correct, true);
  EXPECT_TRUE(r.flipped);
  EXPECT_EQ(r.tokens, 320);
  EXPECT_EQ(r.calls, 3);
  EXPECT_EQ(r.rounds, 2);
  EXPECT_DOUBLE_EQ(r.latency_ms, 31.0);
  EXPECT_EQ(r.final_answer, "C");
  EXPECT_EQ(r.gold, "B");
  EXPECT_EQ(r.question, "Question t1: which PLANET is largest?");
  // Only the metrics the query names.
  EXPECT_EQ(r.metrics, (std::map<std::string, double>{{"prr", 0.2}}));
  EXPECT_EQ(page->rows[1].initially_correct, false);
  EXPECT_FALSE(page->rows[1].flipped);
  EXPECT_TRUE(page->rows[1].correct);
}

TEST_P(RunBrowserTest, EachFilterAlone) {
  write_store();
  auto b = browser();
  DebateQuery q;
  q.protocol = "debate";
  EXPECT_EQ(list(*b, q, 4), (Keys{"t1/debate/1", "t1/debate/2", "t2/debate/1", "t4/debate/2"}));
  q = {};
  q.protocol = "nonesuch";
  EXPECT_EQ(list(*b, q, 0), Keys{});
  q = {};
  q.seed = 2;
  EXPECT_EQ(list(*b, q, 3), (Keys{"t1/debate/2", "t1/single/2", "t4/debate/2"}));
  q.seed = kBigSeed;
  EXPECT_EQ(list(*b, q, 1), (Keys{kBig}));
  q = {};
  q.correct = true;
  EXPECT_EQ(list(*b, q, 5), (Keys{"t1/single/1", "t1/single/2", kBig, "t2/debate/1", "t3/single/1"}));
  q.correct = false;
  EXPECT_EQ(list(*b, q, 4), (Keys{"t1/debate/1", "t1/debate/2", "t2/single/1", "t4/debate/2"}));
  q = {};
  q.status = DebateStatus::kFailed;
  EXPECT_EQ(list(*b, q, 1), (Keys{"t1/debate/2"}));
  q.status = DebateStatus::kBudget;
  EXPECT_EQ(list(*b, q, 1), (Keys{"t4/debate/2"}));
  q = {};
  q.flipped = true;
  EXPECT_EQ(list(*b, q, 1), (Keys{"t1/debate/1"}));
  q.flipped = false;
  EXPECT_EQ(list(*b, q, 8).size(), 8u);
}

TEST_P(RunBrowserTest, MetricRangesAreInclusiveOpenWhereUnboundedAndNeedTheMetric) {
  write_store();
  auto b = browser();
  DebateQuery q;
  q.ranges = {{"u", 0.3, 0.5}};
  EXPECT_EQ(list(*b, q, 3), (Keys{"t1/debate/1", "t2/debate/1", "t2/single/1"}));
  q.ranges = {{"u", 0.5, std::nullopt}};
  EXPECT_EQ(list(*b, q, 3), (Keys{"t1/debate/1", "t2/debate/1", "t3/single/1"}));
  q.ranges = {{"u", std::nullopt, 0.1}};
  EXPECT_EQ(list(*b, q, 2), (Keys{"t1/single/1", "t1/single/2"}));
  // Unbounded both ways: the debates that have the metric.
  q.ranges = {{"prr", std::nullopt, std::nullopt}};
  EXPECT_EQ(list(*b, q, 3), (Keys{"t1/debate/1", "t2/debate/1", "t4/debate/2"}));
  // Two ranges: both must hold.
  q.ranges = {{"prr", 0.3, std::nullopt}, {"u", 0.0, 1.0}};
  EXPECT_EQ(list(*b, q, 1), (Keys{"t2/debate/1"}));
  // A metric no debate has matches nothing; an empty range matches nothing.
  q.ranges = {{"nonesuch", std::nullopt, std::nullopt}};
  EXPECT_EQ(list(*b, q, 0), Keys{});
  q.ranges = {{"u", 0.6, 0.4}};
  EXPECT_EQ(list(*b, q, 0), Keys{});
}

TEST_P(RunBrowserTest, FiltersCombine) {
  write_store();
  auto b = browser();
  DebateQuery q;
  q.protocol = "single";
  q.seed = 1;
  q.correct = true;
  EXPECT_EQ(list(*b, q, 2), (Keys{"t1/single/1", "t3/single/1"}));
  q.text = "planet";
  EXPECT_EQ(list(*b, q, 1), (Keys{"t1/single/1"}));
  q = {};
  q.protocol = "debate";
  q.correct = false;
  q.status = DebateStatus::kCompleted;
  EXPECT_EQ(list(*b, q, 1), (Keys{"t1/debate/1"}));
  q.flipped = false;
  EXPECT_EQ(list(*b, q, 0), Keys{});
  q = {};
  q.seed = 1;
  q.ranges = {{"u", 0.4, std::nullopt}};
  q.sort = DebateSort::kTokens;
  q.descending = true;
  EXPECT_EQ(list(*b, q, 3), (Keys{"t1/debate/1", "t2/debate/1", "t3/single/1"}));
}

TEST_P(RunBrowserTest, TextSearchIsACaseInsensitiveSubstringOfTaskQuestionGoldAndFinalAnswer) {
  write_store();
  auto b = browser();
  DebateQuery q;
  q.text = "T2";  // the task id
  EXPECT_EQ(list(*b, q, 2), (Keys{"t2/debate/1", "t2/single/1"}));
  q.text = "Planet is LARGEST";  // the question, any case
  EXPECT_EQ(list(*b, q, 8).size(), 8u);
  q.text = "a";  // every question has one
  EXPECT_EQ(list(*b, q, 9).size(), 9u);
  q.text = "alert";
  EXPECT_EQ(list(*b, q, 1), (Keys{"t3/single/1"}));
}

TEST_P(RunBrowserTest, TheFinalAnswerAndTheGoldAreSearched) {
  // A store of its own, where the answers are words no question or task id contains.
  {
    auto store = Store::open(dir_ / "results.sqlite");
    ASSERT_TRUE(store);
    Transcript gold = make({"g1", "single", 1, {"Zebra"}, "Yak", 1, 1, {}});
    gold.gold = "Zebra";
    gold.question = "Which animal?";
    Transcript final = make({"g2", "single", 1, {"Yak"}, "Okapi", 1, 1, {}});
    final.gold = "Yak";
    final.question = "Which animal?";
    ASSERT_TRUE((*store)->put(gold));
    ASSERT_TRUE((*store)->put(final));
  }
  auto b = browser();
  DebateQuery q;
  q.text = "zEbRa";
  EXPECT_EQ(list(*b, q, 1), (Keys{"g1/single/1"}));
  q.text = "okapi";
  EXPECT_EQ(list(*b, q, 1), (Keys{"g2/single/1"}));
  q.text = "yak";  // g1's final answer and g2's gold
  EXPECT_EQ(list(*b, q, 2), (Keys{"g1/single/1", "g2/single/1"}));
  q.text = "single";  // the protocol is not searched
  EXPECT_EQ(list(*b, q, 0), Keys{});
}

TEST_P(RunBrowserTest, ADebateWithoutGoldIsNeitherRightNorWrong) {
  {
    auto store = Store::open(dir_ / "results.sqlite");
    ASSERT_TRUE(store);
    Transcript served = make({"served", "single", 1, {"B"}, "B", 1, 1, {}});
    served.gold.clear();  // a served request that gave no gold
    served.correct = false;
    Transcript wrong = make({"t2", "single", 1, {"A"}, "A", 1, 1, {}});  // gold C
    ASSERT_TRUE((*store)->put(served));
    ASSERT_TRUE((*store)->put(wrong));
  }
  auto b = browser();
  DebateQuery q;
  q.correct = false;
  EXPECT_EQ(list(*b, q, 1), (Keys{"t2/single/1"}));
  q.correct = true;
  EXPECT_EQ(list(*b, q, 0), Keys{});
  q = {};
  EXPECT_EQ(list(*b, q, 2).size(), 2u);
}

TEST_P(RunBrowserTest, HostileSearchTextIsLiteral) {
  write_store();
  auto b = browser();
  DebateQuery q;
  for (const char* literal : {"%", "100%", "_", "a_b", "'x'", "\"quoted\"", "<script>", "</script>"}) {
    q.text = literal;
    EXPECT_EQ(list(*b, q, 1), (Keys{"t3/single/1"})) << literal;
  }
  // As LIKE patterns these would match everything; as text, nothing has them.
  for (const char* pattern : {"%%", "_%_x", "%'; DROP TABLE debates; --", "\\", "?1"}) {
    q.text = pattern;
    EXPECT_EQ(list(*b, q, 0), Keys{}) << pattern;
  }
  q.text = "";
  EXPECT_EQ(list(*b, q, 9).size(), 9u);  // the table is still there
}

TEST_P(RunBrowserTest, SortsBreakTiesByTheOrderStoredInTheSortsDirection) {
  write_store();
  auto b = browser();
  DebateQuery q;
  q.sort = DebateSort::kTokens;  // 110 ×3 (ids 1, 3, 7, 9: 110 ×4), 130, 220, 250, 320, 70
  EXPECT_EQ(list(*b, q, 9), (Keys{"t1/debate/2", "t1/single/1", "t2/single/1", "t3/single/1", kBig, "t1/single/2",
                                  "t4/debate/2", "t2/debate/1", "t1/debate/1"}));
  q.descending = true;
  EXPECT_EQ(list(*b, q, 9), (Keys{"t1/debate/1", "t2/debate/1", "t4/debate/2", "t1/single/2", kBig, "t3/single/1",
                                  "t2/single/1", "t1/single/1", "t1/debate/2"}));
  q = {};
  q.sort = DebateSort::kCalls;  // 3 calls for debates, 2 for singles
  EXPECT_EQ(list(*b, q, 9), (Keys{"t1/single/1", "t2/single/1", "t1/single/2", "t3/single/1", kBig, "t1/debate/1",
                                  "t2/debate/1", "t1/debate/2", "t4/debate/2"}));
  q = {};
  q.sort = DebateSort::kRounds;  // 2 each but t4's (its first round is unparsed, still a round)
  EXPECT_EQ(list(*b, q, 9)[0], "t1/single/1");
  q = {};
  q.sort = DebateSort::kLatency;  // 11 ×4, 13, 26, 31, 5, 21
  EXPECT_EQ(list(*b, q, 9), (Keys{"t1/debate/2", "t1/single/1", "t1/single/2", "t3/single/1", kBig, "t2/single/1",
                                  "t4/debate/2", "t2/debate/1", "t1/debate/1"}));
  q = {};
  q.sort = DebateSort::kCorrect;
  EXPECT_EQ(list(*b, q, 9), (Keys{"t1/debate/1", "t2/single/1", "t1/debate/2", "t4/debate/2", "t1/single/1",
                                  "t2/debate/1", "t1/single/2", "t3/single/1", kBig}));
  q = {};
  q.sort = DebateSort::kProtocol;
  q.descending = true;
  EXPECT_EQ(list(*b, q, 9), (Keys{kBig, "t3/single/1", "t1/single/2", "t2/single/1", "t1/single/1", "t4/debate/2",
                                  "t1/debate/2", "t2/debate/1", "t1/debate/1"}));
  q = {};
  q.sort = DebateSort::kSeed;  // unsigned: 2^63 + 5 last
  EXPECT_EQ(list(*b, q, 9), (Keys{"t1/single/1", "t1/debate/1", "t2/single/1", "t2/debate/1", "t3/single/1",
                                  "t1/single/2", "t1/debate/2", "t4/debate/2", kBig}));
  q.descending = true;
  EXPECT_EQ(list(*b, q, 9)[0], kBig);
}

TEST_P(RunBrowserTest, SortingByAMetricPutsDebatesWithoutItLastEitherWay) {
  write_store();
  auto b = browser();
  DebateQuery q;
  q.sort = DebateSort::kMetric;
  q.sort_metric = "u";  // .1 (1, 5), .2 (9), .3 (3), .5 (2, 4), .9 (7); none: 6, 8
  auto page = b->list(q);
  ASSERT_TRUE(page);
  EXPECT_EQ(keys(*page), (Keys{"t1/single/1", "t1/single/2", kBig, "t2/single/1", "t1/debate/1", "t2/debate/1",
                               "t3/single/1", "t1/debate/2", "t4/debate/2"}));
  EXPECT_EQ(page->rows[0].metrics, (std::map<std::string, double>{{"u", 0.1}}));
  EXPECT_TRUE(page->rows[8].metrics.empty());
  q.descending = true;
  EXPECT_EQ(list(*b, q, 9), (Keys{"t3/single/1", "t2/debate/1", "t1/debate/1", "t2/single/1", kBig, "t1/single/2",
                                  "t1/single/1", "t4/debate/2", "t1/debate/2"}));
  // A metric no debate has: the stored order.
  q.sort_metric = "nonesuch";
  q.descending = false;
  EXPECT_EQ(list(*b, q, 9), (Keys{"t1/single/1", "t1/debate/1", "t2/single/1", "t2/debate/1", "t1/single/2",
                                  "t1/debate/2", "t3/single/1", "t4/debate/2", kBig}));
  q.protocol = "debate";
  EXPECT_EQ(list(*b, q, 4), (Keys{"t1/debate/1", "t2/debate/1", "t1/debate/2", "t4/debate/2"}));
}

TEST_P(RunBrowserTest, PagesOfAnySizeAddUpToTheWholeList) {
  write_store();
  auto b = browser();
  std::vector<DebateQuery> queries(6);
  queries[1].sort = DebateSort::kMetric;
  queries[1].sort_metric = "u";
  queries[2].sort = DebateSort::kMetric;
  queries[2].sort_metric = "prr";
  queries[2].descending = true;
  queries[2].correct = false;  // with a filter: the value index walked, each row looked up
  queries[3].sort = DebateSort::kTokens;
  queries[3].protocol = "single";
  queries[4].sort = DebateSort::kMetric;
  queries[4].sort_metric = "u";
  queries[4].text = "t1";
  queries[5].sort = DebateSort::kLatency;
  queries[5].descending = true;
  queries[5].ranges = {{"u", 0.1, std::nullopt}};
  for (std::size_t i = 0; i < queries.size(); ++i) {
    DebateQuery whole = queries[i];
    whole.limit = RunBrowser::kMaxLimit;
    auto all = b->list(whole);
    ASSERT_TRUE(all) << all.error().message;
    const Keys expected = keys(*all);
    for (int size = 1; size <= 4; ++size) {
      Keys paged;
      for (std::int64_t offset = 0; offset < all->total; offset += size) {
        DebateQuery q = queries[i];
        q.offset = offset;
        q.limit = size;
        auto page = b->list(q);
        ASSERT_TRUE(page) << page.error().message;
        EXPECT_EQ(page->total, all->total);
        for (const std::string& k : keys(*page)) paged.push_back(k);
      }
      EXPECT_EQ(paged, expected) << "query " << i << ", pages of " << size;
    }
  }
  // The expected orders themselves: by u with those lacking it last; by prr descending among the
  // wrong ones (t4/debate/2 and t1/debate/1 have it, t2/single/1 and t1/debate/2 do not).
  auto by_prr = b->list(queries[2]);
  ASSERT_TRUE(by_prr);
  EXPECT_EQ(keys(*by_prr), (Keys{"t4/debate/2", "t1/debate/1", "t1/debate/2", "t2/single/1"}));
  auto single_by_tokens = b->list(queries[3]);
  ASSERT_TRUE(single_by_tokens);
  EXPECT_EQ(keys(*single_by_tokens), (Keys{"t1/single/1", "t2/single/1", "t3/single/1", kBig, "t1/single/2"}));
}

TEST_P(RunBrowserTest, PagingAtItsEdges) {
  write_store();
  auto b = browser();
  DebateQuery q;
  q.offset = 2;
  q.limit = 3;
  auto page = b->list(q);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->total, 9);
  EXPECT_EQ(page->offset, 2);
  EXPECT_EQ(page->limit, 3);
  EXPECT_EQ(keys(*page), (Keys{"t1/single/1", "t1/single/2", kBig}));
  q.offset = 7;  // the last two
  EXPECT_EQ(list(*b, q, 9), (Keys{"t3/single/1", "t4/debate/2"}));
  q.offset = 9;  // just past the end
  EXPECT_EQ(list(*b, q, 9), Keys{});
  q.offset = 1000000;
  EXPECT_EQ(list(*b, q, 9), Keys{});
  q.offset = -5;  // taken as 0
  page = b->list(q);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->offset, 0);
  EXPECT_EQ(keys(*page).size(), 3u);
  q.offset = 0;
  q.limit = 0;  // the total alone
  page = b->list(q);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->total, 9);
  EXPECT_TRUE(page->rows.empty());
  q.limit = 5000;  // clamped to the maximum
  page = b->list(q);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->limit, RunBrowser::kMaxLimit);
  EXPECT_EQ(page->rows.size(), 9u);
  q.limit = -1;
  page = b->list(q);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->limit, 0);
  EXPECT_TRUE(page->rows.empty());
}

TEST_P(RunBrowserTest, TheMaximumPageIsTwoHundredRows) {
  {
    auto store = Store::open(dir_ / "results.sqlite");
    ASSERT_TRUE(store);
    for (int i = 0; i < 250; ++i) ASSERT_TRUE((*store)->put(make({fmt::format("t{:03}", i), "single", 1, {"B"}, "B", 1, 1, {}})));
  }
  auto b = browser();
  DebateQuery q;
  q.limit = 201;
  auto page = b->list(q);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->total, 250);
  EXPECT_EQ(page->rows.size(), 200u);
  EXPECT_EQ(page->rows.back().task_id, "t199");
  q.offset = 200;
  page = b->list(q);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->rows.size(), 50u);
  EXPECT_EQ(page->rows.front().task_id, "t200");
}

TEST_P(RunBrowserTest, OneDebatesTranscriptIsTheStoredLine) {
  write_store();
  auto b = browser();
  auto json = b->transcript_json(UnitKey{"t1", "debate", 1});
  ASSERT_TRUE(json) << json.error().message;
  ASSERT_TRUE(json->has_value());
  EXPECT_EQ(**json, transcript_to_json(make(specs()[1])));
  auto big = b->transcript_json(UnitKey{"t1", "single", kBigSeed});
  ASSERT_TRUE(big);
  ASSERT_TRUE(big->has_value());
  EXPECT_NE((*big)->find("\"seed\":9223372036854775813"), std::string::npos);
  for (const UnitKey& absent : {UnitKey{"t1", "debate", 3}, UnitKey{"t9", "debate", 1}, UnitKey{"t1", "mad", 1}}) {
    auto none = b->transcript_json(absent);
    ASSERT_TRUE(none);
    EXPECT_FALSE(none->has_value());
  }
}

TEST_P(RunBrowserTest, TheOthersAreTheSameTaskAndSeedUnderTheOtherProtocolsInTheExperimentsOrder) {
  write_store();
  {
    auto store = Store::open(dir_ / "results.sqlite");
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->set_meta("protocol_order", "single\nmad\ndebate"));
    ASSERT_TRUE((*store)->put(make({"t1", "mad", 1, {"B"}, "B", 1, 1, {}})));
  }
  auto b = browser();
  auto others = b->others(UnitKey{"t1", "debate", 1});
  ASSERT_TRUE(others) << others.error().message;
  ASSERT_EQ(others->size(), 2u);
  EXPECT_EQ(key((*others)[0]), "t1/single/1");
  EXPECT_EQ(key((*others)[1]), "t1/mad/1");
  EXPECT_EQ((*others)[0].gold, "B");
  others = b->others(UnitKey{"t3", "single", 1});
  ASSERT_TRUE(others);
  EXPECT_TRUE(others->empty());
  others = b->others(UnitKey{"t1", "single", kBigSeed});
  ASSERT_TRUE(others);
  EXPECT_TRUE(others->empty());
}

TEST_P(RunBrowserTest, WhatARunWritesAfterTheBrowserOpensShowsOnTheNextQuery) {
  write_store();
  auto b = browser();
  ASSERT_EQ(list(*b, {}, 9).size(), 9u);
  auto store = Store::open(dir_ / "results.sqlite");
  ASSERT_TRUE(store);
  ASSERT_TRUE((*store)->put(make({"t5", "single", 1, {"B"}, "B", 1, 1, {}})));
  EXPECT_EQ(list(*b, {}, 9).size(), 9u);  // not committed yet
  ASSERT_TRUE((*store)->flush());
  EXPECT_EQ(list(*b, {}, 10).back(), "t5/single/1");
}

TEST_P(RunBrowserTest, AVersion2StoreIsIndexedOnceThenBrowsed) {
  std::vector<Transcript> transcripts;
  for (const Spec& s : specs()) {
    Transcript t = make(s);
    t.question.clear();  // an older parley's transcripts carry no question
    t.options.clear();
    transcripts.push_back(t);
  }
  testing::write_version_2_store(dir_ / "results.sqlite", transcripts);
  std::vector<std::pair<std::int64_t, std::int64_t>> progress;
  auto b = open_run_browser(dir_, [&](std::int64_t done, std::int64_t total) { progress.emplace_back(done, total); },
                            tuning());
  ASSERT_TRUE(b) << b.error().message;
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.front(), std::make_pair(std::int64_t{0}, std::int64_t{9}));
  EXPECT_EQ(progress.back(), std::make_pair(std::int64_t{9}, std::int64_t{9}));
  EXPECT_EQ(testing::query(dir_ / "results.sqlite", "SELECT value FROM meta WHERE key = 'schema_version'"),
            (std::vector<std::vector<std::string>>{{"3"}}));
  DebateQuery q;
  q.flipped = true;
  EXPECT_EQ(list(**b, q, 1), (Keys{"t1/debate/1"}));
  q = {};
  q.sort = DebateSort::kMetric;
  q.sort_metric = "u";
  q.descending = true;
  EXPECT_EQ(list(**b, q, 9)[0], "t3/single/1");
  auto page = (*b)->list({});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->rows[0].question, "");
  // Opened again: already indexed.
  progress.clear();
  ASSERT_TRUE(RunBrowser::open(dir_, [&](std::int64_t done, std::int64_t total) { progress.emplace_back(done, total); }));
  EXPECT_TRUE(progress.empty());
}

TEST_P(RunBrowserTest, WhatIsNotARunIsRefusedWithTheReason) {
  auto expect_refused = [](const std::filesystem::path& dir, const std::string& reason) {
    auto b = RunBrowser::open(dir);
    ASSERT_FALSE(b) << dir;
    EXPECT_NE(b.error().message.find(reason), std::string::npos) << b.error().message;
  };
  expect_refused(dir_ / "absent", "no such directory");
  std::ofstream(dir_ / "file") << "x";
  expect_refused(dir_ / "file", "not a directory");
  expect_refused(dir_, "not a run directory: it has no results.sqlite");
  // A directory named results.sqlite is no store either.
  std::filesystem::create_directories(dir_ / "d" / "results.sqlite");
  expect_refused(dir_ / "d", "no results.sqlite");
  std::ofstream(dir_ / "results.sqlite") << "this is not sqlite, just text that is long enough to have a header....";
  expect_refused(dir_, "not a parley store");
  std::filesystem::remove(dir_ / "results.sqlite");
  testing::tamper(dir_ / "results.sqlite", "CREATE TABLE other (x)");
  expect_refused(dir_, "not a parley store");
  testing::tamper(dir_ / "results.sqlite", "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  expect_refused(dir_, "no schema version");
  testing::tamper(dir_ / "results.sqlite", "INSERT INTO meta VALUES ('schema_version', '4')");
  expect_refused(dir_, "store schema version 4 is not one this parley reads (it reads 3)");
  testing::tamper(dir_ / "results.sqlite", "UPDATE meta SET value = '1'");
  expect_refused(dir_, "store schema version 1 was written by an older parley");
  // Refused without a write: still version 1, nothing added.
  EXPECT_EQ(testing::query(dir_ / "results.sqlite", "SELECT COUNT(*) FROM sqlite_master"),
            (std::vector<std::vector<std::string>>{{"3"}}));
}

TEST_P(RunBrowserTest, AFailedDebateIsListedAndShownLikeAnyOther) {
  write_store();
  auto b = browser();
  DebateQuery q;
  q.status = DebateStatus::kFailed;
  auto page = b->list(q);
  ASSERT_TRUE(page);
  ASSERT_EQ(page->rows.size(), 1u);
  const DebateRow& r = page->rows[0];
  EXPECT_EQ(r.status, DebateStatus::kFailed);
  EXPECT_FALSE(r.final_answer);
  EXPECT_FALSE(r.correct);
  EXPECT_EQ(r.initially_correct, true);
  EXPECT_FALSE(r.flipped);  // no final answer: not a flip
  auto json = b->transcript_json(UnitKey{"t1", "debate", 2});
  ASSERT_TRUE(json);
  ASSERT_TRUE(json->has_value());
  EXPECT_NE((*json)->find("\"status\":\"failed\""), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(EachReading, RunBrowserTest,
                         ::testing::Values(Reading{0, false}, Reading{0, true}, Reading{1000000000, false},
                                           Reading{1000000000, true}),
                         reading_name);

}  // namespace
}  // namespace parley
