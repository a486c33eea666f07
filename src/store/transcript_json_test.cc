#include <gtest/gtest.h>

#include <limits>

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

// A debate's first two calls of one agent: the second extends the first (docs/formats.md).
Transcript transcript_with_prompts() {
  Transcript t = full_transcript();
  t.answer_type = AnswerType::kNumber;
  t.tolerance = 0.5;
  t.messages[0].prompt = std::vector<ChatMessage>{{"system", "Be brief."}, {"user", "What is 6 x 7?"}};
  t.messages[1].agent = "a2";
  t.messages[1].prompt_extends = 0;
  t.messages[1].prompt = std::vector<ChatMessage>{{"assistant", "42"}, {"user", "Say \"Answer: 42\"."}};
  MessageRecord embedding;
  embedding.id = 2;
  embedding.agent = "embedder";
  embedding.role = "embedding";
  t.messages.push_back(embedding);
  return t;
}

TEST(TranscriptJson, PromptsAndTheAnswerTypeRoundTrip) {
  const Transcript t = transcript_with_prompts();
  const std::string json = transcript_to_json(t);
  auto back = transcript_from_json(json);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->answer_type, AnswerType::kNumber);
  EXPECT_EQ(back->tolerance, 0.5);
  ASSERT_TRUE(back->messages[0].prompt);
  EXPECT_FALSE(back->messages[0].prompt_extends);
  ASSERT_EQ(back->messages[0].prompt->size(), 2u);
  EXPECT_EQ((*back->messages[0].prompt)[0].role, "system");
  EXPECT_EQ((*back->messages[0].prompt)[0].content.str(), "Be brief.");
  EXPECT_EQ(back->messages[1].prompt_extends, 0);
  EXPECT_EQ((*back->messages[1].prompt)[1].content.str(), "Say \"Answer: 42\".");
  EXPECT_FALSE(back->messages[2].prompt);
  EXPECT_EQ(transcript_to_json(*back), json);
  auto whole = rebuild_prompt(*back, 1);
  ASSERT_TRUE(whole) << whole.error().message;
  ASSERT_EQ(whole->size(), 4u);
  EXPECT_EQ((*whole)[2].content.str(), "42");
  EXPECT_TRUE(has_prompts(*back));

  const auto j = nlohmann::json::parse(json);
  EXPECT_EQ(j["answer_type"], "number");
  EXPECT_EQ(j["messages"][1]["prompt_extends"], 0);
  EXPECT_EQ(j["messages"][1]["prompt"][0], (nlohmann::json{{"role", "assistant"}, {"content", "42"}}));
  EXPECT_FALSE(j["messages"][0].contains("prompt_extends"));
  EXPECT_FALSE(j["messages"][2].contains("prompt"));
  EXPECT_FALSE(nlohmann::json::parse(transcript_to_json(full_transcript())).contains("answer_type"));
}

TEST(TranscriptJson, ATranscriptWithoutPromptsStillLoads) {
  // As written before prompts were stored: no answer_type, tolerance, prompt or prompt_extends.
  auto j = nlohmann::json::parse(transcript_to_json(transcript_with_prompts()));
  j.erase("answer_type");
  j.erase("tolerance");
  for (auto& m : j["messages"]) m.erase("prompt"), m.erase("prompt_extends");
  auto old = transcript_from_json(j.dump());
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_FALSE(old->answer_type);
  EXPECT_FALSE(old->tolerance);
  EXPECT_FALSE(old->messages[0].prompt);
  EXPECT_FALSE(has_prompts(*old));
  auto rebuilt = rebuild_prompt(*old, 0);
  ASSERT_FALSE(rebuilt);
  EXPECT_NE(rebuilt.error().message.find("call 0 has no stored prompt"), std::string::npos) << rebuilt.error().message;
}

TEST(TranscriptJson, APromptMustExtendAnEarlierCallAndBeWellFormed) {
  auto j = nlohmann::json::parse(transcript_to_json(transcript_with_prompts()));
  j["messages"][1]["prompt_extends"] = 1;  // itself
  auto self = transcript_from_json(j.dump());
  ASSERT_FALSE(self);
  EXPECT_NE(self.error().message.find("prompt extends call 1, which is not an earlier call"), std::string::npos)
      << self.error().message;
  j["messages"][1]["prompt_extends"] = -2;
  EXPECT_FALSE(transcript_from_json(j.dump()));
  // A link past int's range is refused, not truncated onto another call (2^32 + 0 would be call 0).
  j["messages"][1]["prompt_extends"] = 4294967296LL;
  auto huge = transcript_from_json(j.dump());
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("4294967296 is out of range"), std::string::npos) << huge.error().message;
  j["messages"][1]["id"] = 4294967297LL;
  EXPECT_FALSE(transcript_from_json(j.dump()));
  j["messages"][1]["id"] = 1;
  // A prompt extends its own agent's earlier call only.
  j["messages"][1]["prompt_extends"] = 0;
  j["messages"][1]["agent"] = "a3";
  auto crossed = transcript_from_json(j.dump());
  ASSERT_FALSE(crossed);
  EXPECT_NE(crossed.error().message.find("call 1 of a3 extends call 0 of a2"), std::string::npos)
      << crossed.error().message;
  j["messages"][1]["agent"] = "a2";
  j["messages"][1]["prompt_extends"] = 0;
  j["messages"][1]["prompt"][0].erase("content");
  auto malformed = transcript_from_json(j.dump());
  ASSERT_FALSE(malformed);
  EXPECT_NE(malformed.error().message.find("prompt message"), std::string::npos) << malformed.error().message;
  j = nlohmann::json::parse(transcript_to_json(transcript_with_prompts()));
  j["answer_type"] = "essay";
  EXPECT_FALSE(transcript_from_json(j.dump()));
  // Skipping the calls' texts skips the prompts' too: present, but empty.
  auto counted = transcript_from_json(transcript_to_json(transcript_with_prompts()), CallTexts::kSkip);
  ASSERT_TRUE(counted);
  ASSERT_TRUE(counted->messages[0].prompt);
  EXPECT_TRUE(counted->messages[0].prompt->empty());
}

TEST(TranscriptJson, TheQuestionAndOptionsRoundTripAndMayBeAbsent) {
  Transcript t = full_transcript();
  t.question = "Which planet is largest? \"Really\" <b>largest</b>";
  t.options = {"Mars", "Jupiter", "Venus"};
  const std::string json = transcript_to_json(t);
  const auto j = nlohmann::json::parse(json);
  EXPECT_EQ(j["question"], t.question);
  EXPECT_EQ(j["options"], (nlohmann::json{"Mars", "Jupiter", "Venus"}));
  // After the unit, before the gold (docs/formats.md's order).
  EXPECT_LT(json.find("\"seed\""), json.find("\"question\""));
  EXPECT_LT(json.find("\"options\""), json.find("\"gold\""));
  auto back = transcript_from_json(json);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->question, t.question);
  EXPECT_EQ(back->options, t.options);
  EXPECT_EQ(transcript_to_json(*back), json);
  // A transcript of an older parley has neither: it loads, with both empty, and writes neither.
  auto older = nlohmann::json::parse(json);
  older.erase("question");
  older.erase("options");
  auto old = transcript_from_json(older.dump());
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_TRUE(old->question.empty());
  EXPECT_TRUE(old->options.empty());
  const auto rewritten = nlohmann::json::parse(transcript_to_json(*old));
  EXPECT_FALSE(rewritten.contains("question"));
  EXPECT_FALSE(rewritten.contains("options"));
  // A question of the wrong type is a malformed transcript.
  older["question"] = 7;
  EXPECT_FALSE(transcript_from_json(older.dump()));
}

TEST(TranscriptJson, AMetricThatWasNotAFiniteNumberReadsBackAsUndefined) {
  Transcript t = full_transcript();
  t.metrics["broken"] = std::numeric_limits<double>::quiet_NaN();
  const std::string json = transcript_to_json(t);
  EXPECT_TRUE(nlohmann::json::parse(json)["metrics"]["broken"].is_null());
  auto back = transcript_from_json(json);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_FALSE(back->metrics.contains("broken"));
  EXPECT_EQ(back->metrics.at("flip_rate"), 0.25);
  auto j = nlohmann::json::parse(json);
  j["metrics"]["broken"] = "high";  // any other type is still malformed
  EXPECT_FALSE(transcript_from_json(j.dump()));
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
