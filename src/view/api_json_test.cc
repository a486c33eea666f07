// The API's JSON bodies: field names, seeds as strings, model text as JSON strings only.
#include "view/api_json.h"

#include <gtest/gtest.h>

namespace parley::view {
namespace {

using nlohmann::json;

DebateRow row() {
  DebateRow r;
  r.task_id = "t1";
  r.protocol = "debate";
  r.seed = 18446744073709551615ULL;
  r.status = DebateStatus::kBudget;
  r.correct = false;
  r.initially_correct = true;
  r.flipped = true;
  r.tokens = 1234;
  r.calls = 7;
  r.rounds = 3;
  r.latency_ms = 12.5;
  r.final_answer = "<img src=x onerror=alert(1)>";
  r.gold = "B";
  r.question = "</script><script>alert(1)</script>";
  r.metrics = {{"u_sys", 0.25}};
  return r;
}

TEST(ApiJson, ARowHasTheContractsFields) {
  const json j = row_json(row());
  EXPECT_EQ(j, json::parse(R"({"task_id": "t1", "protocol": "debate", "seed": "18446744073709551615",
    "status": "budget", "correct": false, "initially_correct": true, "flipped": true, "tokens": 1234, "calls": 7,
    "rounds": 3, "latency_ms": 12.5, "final_answer": "<img src=x onerror=alert(1)>", "gold": "B",
    "question": "</script><script>alert(1)</script>", "metrics": {"u_sys": 0.25}})"));
  DebateRow unknown = row();
  unknown.initially_correct.reset();
  unknown.final_answer.reset();
  unknown.metrics.clear();
  const json k = row_json(unknown);
  EXPECT_TRUE(k["initially_correct"].is_null());
  EXPECT_TRUE(k["final_answer"].is_null());
  EXPECT_EQ(k["metrics"], json::object());
}

TEST(ApiJson, ThePageAndTheRun) {
  DebatePage page;
  page.total = 9;
  page.offset = 4;
  page.limit = 2;
  page.rows = {row()};
  const json p = page_json(page);
  EXPECT_EQ(p["total"], 9);
  EXPECT_EQ(p["offset"], 4);
  EXPECT_EQ(p["limit"], 2);
  ASSERT_EQ(p["rows"].size(), 1u);
  EXPECT_EQ(p["rows"][0]["seed"], "18446744073709551615");
  EXPECT_EQ(page_json(DebatePage{})["rows"], json::array());

  RunFacts facts;
  facts.debates = 9;
  facts.protocols = {"single", "debate"};
  facts.seeds = {1, 18446744073709551615ULL};
  facts.metrics = {"prr"};
  facts.statuses = {"completed"};
  facts.simulated = true;
  EXPECT_EQ(run_json(facts, "my-run", false),
            json::parse(R"({"name": "my-run", "simulated": true, "debates": 9, "protocols": ["single", "debate"],
              "seeds": ["1", "18446744073709551615"], "metrics": ["prr"], "statuses": ["completed"], "report": false})"));
}

TEST(ApiJson, TheDebateSplicesTheStoredTranscriptIn) {
  const std::string body = debate_json(R"({"task_id":"t1","messages":[]})", {row()});
  const json j = json::parse(body);
  EXPECT_EQ(j["transcript"]["task_id"], "t1");
  ASSERT_EQ(j["others"].size(), 1u);
  EXPECT_EQ(j["others"][0]["protocol"], "debate");
  EXPECT_EQ(json::parse(debate_json("{}", {}))["others"], json::array());
}

TEST(ApiJson, AnErrorNamesItsParameter) {
  EXPECT_EQ(json::parse(error_json("limit: too big", "limit")), json::parse(R"({"error": "limit: too big", "parameter": "limit"})"));
  EXPECT_EQ(json::parse(error_json("gone")), json::parse(R"({"error": "gone"})"));
  // Invalid UTF-8 in a message (a task id from a model) is replaced, not fatal.
  EXPECT_NE(error_json("bad \xff byte").find("bad"), std::string::npos);
}

}  // namespace
}  // namespace parley::view
