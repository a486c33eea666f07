#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "parley/store.h"

namespace parley {
namespace {

Transcript full_transcript() {
  Transcript t;
  t.task_id = "q7";
  t.protocol = "debate-3x2";
  t.seed = 18446744073709551615ULL;  // largest seed survives the round trip
  t.gold = "B";
  t.final_answer = "B";
  t.correct = true;
  t.status = DebateStatus::kBudget;
  t.status_reason = "token budget reached in round 2";
  t.wall_ms = 12.5;
  t.metrics["flip_rate"] = 0.25;
  t.events.push_back({1, "vote", "B:2 C:1"});
  MessageRecord m;
  m.round = 1;
  m.agent = "a2";
  m.role = "revise";
  m.prompt_tokens = 120;
  m.completion_tokens = 40;
  m.cached_tokens = 64;
  m.tokens_estimated = true;
  m.text = "I now think (B).\nAnswer: B\nConfidence: 80%";
  m.reasoning = "hidden chain";
  m.answer = "B";
  m.confidence = 0.8;
  m.latency_ms = 30.0;
  m.attempts = 2;
  m.min_token_logprob = -2.0;
  m.perplexity = 1.5;
  m.shown = {"a1", "a3"};
  m.warnings = {"usage not believed, tokens estimated: usage.prompt_tokens -5 is negative"};
  t.messages.push_back(m);
  MessageRecord failed;
  failed.id = 1;
  failed.repeats = 0;
  failed.agent = "a3";
  failed.role = "reask";
  failed.error = "http 500";
  t.messages.push_back(failed);
  return t;
}

TEST(TranscriptJson, RoundTripKeepsEveryField) {
  const Transcript t = full_transcript();
  const auto json = transcript_to_json(t);
  auto back = transcript_from_json(json);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->seed, t.seed);
  EXPECT_EQ(back->status, DebateStatus::kBudget);
  EXPECT_EQ(back->status_reason, t.status_reason);
  EXPECT_EQ(back->metrics.at("flip_rate"), 0.25);
  ASSERT_EQ(back->events.size(), 1u);
  EXPECT_EQ(back->events[0].detail, "B:2 C:1");
  ASSERT_EQ(back->messages.size(), 2u);
  const auto& m = back->messages[0];
  EXPECT_EQ(m.cached_tokens, 64);
  EXPECT_TRUE(m.tokens_estimated);
  EXPECT_EQ(m.reasoning, "hidden chain");
  EXPECT_EQ(m.confidence, 0.8);
  EXPECT_EQ(m.attempts, 2);
  EXPECT_EQ(m.min_token_logprob, -2.0);
  EXPECT_EQ(m.shown, (std::vector<std::string>{"a1", "a3"}));
  EXPECT_EQ(m.id, 0);
  EXPECT_FALSE(m.repeats);
  EXPECT_EQ(back->messages[1].id, 1);
  EXPECT_EQ(back->messages[1].repeats, 0);
  EXPECT_EQ(m.warnings, t.messages[0].warnings);
  EXPECT_TRUE(back->messages[1].shown.empty());
  EXPECT_TRUE(back->messages[1].warnings.empty());
  EXPECT_EQ(back->messages[1].error, "http 500");
  EXPECT_FALSE(back->messages[1].answer.has_value());
  // Re-serialising gives the same bytes: exports are stable.
  EXPECT_EQ(transcript_to_json(*back), json);
}

TEST(TranscriptJson, HasTheDocumentedFields) {
  const auto j = nlohmann::json::parse(transcript_to_json(full_transcript()));
  for (const char* key : {"task_id", "protocol", "seed", "gold", "final_answer", "correct", "status", "messages"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"id", "round", "agent", "role", "prompt_tokens", "completion_tokens", "cached_tokens",
                          "tokens_estimated", "text", "answer", "confidence", "latency_ms"})
    EXPECT_TRUE(j["messages"][0].contains(key)) << key;
  // Critical-path latency: one round, one message of 30 ms and one of 0 ms.
  EXPECT_EQ(j["latency_ms"].get<double>(), 30.0);
  EXPECT_EQ(j["prompt_tokens"].get<int>(), 120);
}

TEST(TranscriptJson, UnparsedFinalAnswerIsNull) {
  Transcript t = full_transcript();
  t.final_answer.reset();
  const auto j = nlohmann::json::parse(transcript_to_json(t));
  EXPECT_TRUE(j["final_answer"].is_null());
  auto back = transcript_from_json(j.dump());
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->final_answer.has_value());
}

TEST(TranscriptJson, InvalidUtf8IsReplacedNotFatal) {
  Transcript t = full_transcript();
  t.messages[0].text = std::string("bad \xff byte");
  auto back = transcript_from_json(transcript_to_json(t));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->messages[0].text, "bad \xEF\xBF\xBD byte");
}

// The summary's reading: everything but the calls' texts, which must still be there.
TEST(TranscriptJson, SkippingCallTextsKeepsEverythingElse) {
  const Transcript t = full_transcript();
  auto read = transcript_from_json(transcript_to_json(t), CallTexts::kSkip);
  ASSERT_TRUE(read) << read.error().message;
  Transcript expected = t;
  for (auto& m : expected.messages) m.text.clear(), m.reasoning.clear();
  EXPECT_EQ(transcript_to_json(*read), transcript_to_json(expected));
  EXPECT_EQ(read->messages[0].answer, "B");
  EXPECT_TRUE(read->messages[0].tokens_estimated);

  auto j = nlohmann::json::parse(transcript_to_json(t));
  j["messages"][0].erase("text");
  auto missing = transcript_from_json(j.dump(), CallTexts::kSkip);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("\"text\""), std::string::npos) << missing.error().message;
  j = nlohmann::json::parse(transcript_to_json(t));
  j["messages"][0]["text"] = 7;  // skipped, so its type is not checked; the rest still is
  j["messages"][0]["round"] = "one";
  EXPECT_FALSE(transcript_from_json(j.dump(), CallTexts::kSkip));
}

TEST(TranscriptJson, CallsWithoutIdsFromAnOlderParleyAreRefused) {
  auto j = nlohmann::json::parse(transcript_to_json(full_transcript()));
  for (auto& m : j["messages"]) {
    m.erase("id");
    m.erase("repeats");
  }
  auto old = transcript_from_json(j.dump());
  ASSERT_FALSE(old);
  EXPECT_NE(old.error().message.find("older parley"), std::string::npos) << old.error().message;
}

TEST(TranscriptJson, IdsMustBePositionsAndLinksMustPointBack) {
  auto j = nlohmann::json::parse(transcript_to_json(full_transcript()));
  j["messages"][1]["id"] = 7;
  auto bad_id = transcript_from_json(j.dump());
  ASSERT_FALSE(bad_id);
  EXPECT_NE(bad_id.error().message.find("call 1 has id 7"), std::string::npos) << bad_id.error().message;

  j = nlohmann::json::parse(transcript_to_json(full_transcript()));
  j["messages"][1]["repeats"] = 1;  // itself
  EXPECT_FALSE(transcript_from_json(j.dump()));
  j["messages"][1]["repeats"] = -1;
  EXPECT_FALSE(transcript_from_json(j.dump()));
  j["messages"][0]["repeats"] = 1;  // a later call
  j["messages"][1]["repeats"] = 0;
  auto forward = transcript_from_json(j.dump());
  ASSERT_FALSE(forward);
  EXPECT_NE(forward.error().message.find("not an earlier call"), std::string::npos);
}

TEST(TranscriptJson, MalformedInputIsAnError) {
  EXPECT_FALSE(transcript_from_json("{not json"));
  EXPECT_FALSE(transcript_from_json(R"({"task_id": "x"})"));
  auto j = nlohmann::json::parse(transcript_to_json(full_transcript()));
  j["status"] = "exploded";
  auto bad = transcript_from_json(j.dump());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("exploded"), std::string::npos);
}

}  // namespace
}  // namespace parley
