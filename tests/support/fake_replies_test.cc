// The reply builders and the fault plan of the fake server, tested without a socket.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/fake_openai_server.h"

namespace parley::testing {
namespace {

using nlohmann::json;

// ---- reply builders -----------------------------------------------------------------------

FakeRequest chat_request(const json& messages, std::uint64_t index = 0) {
  FakeRequest request;
  request.method = "POST";
  request.path = "/v1/chat/completions";
  request.body = json{{"model", "fake"}, {"messages", messages}}.dump();
  request.index = index;
  return request;
}

std::string reply_content(const FakeResponse& response) {
  return json::parse(response.body)["choices"][0]["message"]["content"].get<std::string>();
}

// The X of "Let me think step by step. <one line>\nAnswer: X\nConfidence: 80%", or "" when the
// content has another shape. (Hand-parsed: std::regex trips GCC 12 warnings under ASan.)
std::string answer_in(const std::string& content) {
  constexpr std::string_view kStart = "Let me think step by step. ";
  constexpr std::string_view kEnd = "\nConfidence: 80%";
  std::size_t answer_at = content.find("\nAnswer: ");
  if (content.rfind(kStart, 0) != 0 || answer_at == std::string::npos || content.size() < kEnd.size() ||
      content.compare(content.size() - kEnd.size(), kEnd.size(), kEnd) != 0 ||
      content.find('\n') != answer_at) {
    return "";
  }
  std::size_t begin = answer_at + 9;
  return content.substr(begin, content.size() - kEnd.size() - begin);
}

TEST(AnswerReply, UsageMatchesTheFormulaOnAHandCountedExample) {
  // "You are terse." is 14 bytes and the question 41: ceil(55 / 4) = 14 prompt tokens.
  json messages = json::array({{{"role", "system"}, {"content", "You are terse."}},
                               {{"role", "user"}, {"content", "Which is largest? (A) 1 (B) 2 (C) 3 (D) 4"}}});
  FakeResponse response = answer_reply(chat_request(messages));
  ASSERT_EQ(response.status, 200);
  json body = json::parse(response.body);
  std::string content = body["choices"][0]["message"]["content"];
  EXPECT_THAT(answer_in(content), ::testing::AnyOf("A", "B", "C", "D"));
  // 80 bytes of reasoning + "\nAnswer: X" (10) + "\nConfidence: 80%" (16) = 106: ceil(106 / 4) = 27.
  EXPECT_EQ(content.size(), 106u);
  EXPECT_EQ(body["usage"]["prompt_tokens"], 14);
  EXPECT_EQ(body["usage"]["completion_tokens"], 27);
  EXPECT_EQ(body["usage"]["total_tokens"], 41);
}

TEST(AnswerReply, IsDeterministicAndUsesTheLastUserMessage) {
  json first = json::array({{{"role", "user"}, {"content", "Pick one. (A) x (B) y (C) z (D) w"}}});
  FakeResponse a = answer_reply(chat_request(first, 0));
  FakeResponse b = answer_reply(chat_request(first, 99));
  EXPECT_EQ(a.body, b.body);

  // Earlier turns count towards the prompt but do not change the answer.
  json longer = json::array({{{"role", "user"}, {"content", "something else entirely"}},
                             {{"role", "assistant"}, {"content", "ok"}},
                             {{"role", "user"}, {"content", "Pick one. (A) x (B) y (C) z (D) w"}}});
  FakeResponse c = answer_reply(chat_request(longer));
  EXPECT_EQ(reply_content(a), reply_content(c));
  EXPECT_GT(json::parse(c.body)["usage"]["prompt_tokens"], json::parse(a.body)["usage"]["prompt_tokens"]);
}

TEST(AnswerReply, LettersSpreadOverTheOfferedOptions) {
  std::set<std::string> letters;
  std::set<std::string> two_option_letters;
  for (int i = 0; i < 40; ++i) {
    std::string stem = "Question " + std::to_string(i) + "?";
    std::string four = reply_content(answer_reply(
        chat_request(json::array({{{"role", "user"}, {"content", stem + " (A) a (B) b (C) c (D) d"}}}))));
    letters.insert(answer_in(four));
    std::string two = reply_content(
        answer_reply(chat_request(json::array({{{"role", "user"}, {"content", stem + " (A) yes (B) no"}}}))));
    two_option_letters.insert(answer_in(two));
  }
  EXPECT_GE(letters.size(), 3u);
  for (const std::string& letter : letters) EXPECT_THAT(letter, ::testing::AnyOf("A", "B", "C", "D"));
  EXPECT_EQ(two_option_letters, (std::set<std::string>{"A", "B"}));
}

TEST(AnswerReply, NumericQuestionsGetANumber) {
  // Content given as parts, as some clients send it.
  json messages = json::array(
      {{{"role", "user"}, {"content", json::array({{{"type", "text"}, {"text", "What is 17 + 25?"}}})}}});
  FakeResponse response = answer_reply(chat_request(messages));
  std::string content = reply_content(response);
  std::string answer = answer_in(content);
  EXPECT_TRUE(!answer.empty() && answer.size() <= 3 &&
              answer.find_first_not_of("0123456789") == std::string::npos)
      << content;
  EXPECT_EQ(json::parse(response.body)["usage"]["prompt_tokens"], 4);  // 16 bytes
  EXPECT_EQ(json::parse(response.body)["usage"]["completion_tokens"],
            static_cast<int>((content.size() + 3) / 4));
}

FakeRequest chat_request_with_n(const json& messages, int n) {
  FakeRequest request = chat_request(messages);
  json body = json::parse(request.body);
  body["n"] = n;
  request.body = body.dump();
  return request;
}

TEST(AnswerReply, NChoicesBillThePromptOnceAndEveryChoice) {
  json messages = json::array({{{"role", "system"}, {"content", "You are terse."}},
                               {{"role", "user"}, {"content", "Which is largest? (A) 1 (B) 2 (C) 3 (D) 4"}}});
  const json single = json::parse(answer_reply(chat_request(messages)).body);
  const json body = json::parse(answer_reply(chat_request_with_n(messages, 3)).body);
  ASSERT_EQ(body["choices"].size(), 3u);
  EXPECT_EQ(body["choices"][0], single["choices"][0]);  // choice 0 is the reply without n
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(body["choices"][i]["index"], i);
    EXPECT_THAT(answer_in(body["choices"][i]["message"]["content"]), ::testing::AnyOf("A", "B", "C", "D"));
    // Every choice is 106 bytes (see above): 27 tokens each.
    EXPECT_EQ(body["choices"][i]["message"]["content"].get<std::string>().size(), 106u);
  }
  EXPECT_EQ(body["usage"]["prompt_tokens"], 14);
  EXPECT_EQ(body["usage"]["completion_tokens"], 3 * 27);
}

TEST(AnswerReply, LaterChoicesAnswerFromTheirOwnHash) {
  // Over a few questions, some later choice names another letter than choice 0.
  int differing = 0;
  for (int q = 0; q < 8; ++q) {
    json messages =
        json::array({{{"role", "user"}, {"content", "Q" + std::to_string(q) + " (A) 1 (B) 2 (C) 3 (D) 4"}}});
    const json body = json::parse(answer_reply(chat_request_with_n(messages, 4)).body);
    const std::string first = answer_in(body["choices"][0]["message"]["content"]);
    for (std::size_t i = 1; i < 4; ++i)
      differing += answer_in(body["choices"][i]["message"]["content"]) != first;
  }
  EXPECT_GT(differing, 0);
}

TEST(AnswerReply, NonChatBodyGets400) {
  FakeRequest request;
  request.body = "not json";
  EXPECT_EQ(answer_reply(request).status, 400);
}

TEST(ReplyBuilders, ShapesOfTheCannedReplies) {
  FakeResponse invalid = invalid_json_reply();
  EXPECT_EQ(invalid.status, 200);
  EXPECT_TRUE(json::parse(invalid.body, nullptr, false).is_discarded());

  FakeResponse empty = empty_choices_reply();
  EXPECT_EQ(empty.status, 200);
  EXPECT_TRUE(json::parse(empty.body)["choices"].empty());

  FakeResponse plain = status_reply(503);
  EXPECT_EQ(plain.status, 503);
  EXPECT_TRUE(plain.headers.empty());

  CompletionSpec spec;
  spec.content = "no usage";
  spec.include_usage = false;
  spec.finish_reason = "length";
  json body = json::parse(completion_body(spec));
  EXPECT_FALSE(body.contains("usage"));
  EXPECT_EQ(body["choices"][0]["finish_reason"], "length");
  EXPECT_TRUE(body["choices"][0]["logprobs"].is_null());

  json embeddings = json::parse(embedding_reply({{0.5, -1.0}, {2.0, 0.25}}, 6).body);
  EXPECT_EQ(embeddings["data"][1], (json{{"object", "embedding"}, {"index", 1}, {"embedding", {2.0, 0.25}}}));
  EXPECT_EQ(embeddings["usage"]["prompt_tokens"], 6);
  EXPECT_FALSE(json::parse(embedding_reply({{1.0}}).body).contains("usage"));
}

std::string fault_name(const FakeResponse& response, const FaultPlan& plan) {
  if (response.status == 500) return "500";
  if (response.status == 429) {
    EXPECT_EQ(response.headers.size(), 1u);
    EXPECT_EQ(response.headers.at(0).second, std::to_string(plan.retry_after_s));
    return "429";
  }
  if (response.delay_ms == plan.base_delay_ms + plan.slow_ms) return "slow";
  EXPECT_EQ(response.delay_ms, plan.base_delay_ms);
  if (response.reset_mid_body) return "reset";
  json body = json::parse(response.body, nullptr, false);
  if (body.is_discarded()) return "invalid";
  if (body["choices"].empty()) return "empty";
  if (!body.contains("usage")) return "no_usage";
  return "ok";
}

TEST(FaultyHandler, PicksFaultsByIndexInTheDocumentedOrder) {
  FaultPlan plan;
  plan.every_500 = 4;
  plan.every_429 = 3;
  plan.retry_after_s = 2;
  plan.every_slow = 5;
  plan.slow_ms = 700;
  plan.every_reset = 7;
  plan.every_invalid_json = 11;
  plan.every_empty_choices = 13;
  plan.every_no_usage = 2;
  plan.base_delay_ms = 4;
  Handler handler = faulty_handler(plan, [](const FakeRequest&) { return ok_reply({.content = "fine"}); });
  // Worked by hand from i % N == N - 1, earlier fields winning.
  const std::vector<std::string> expected = {
      "ok",   "no_usage", "429", "500",     "slow",  "429", "reset", "500",  "429",
      "slow", "invalid",  "500", "empty",   "reset", "429", "500",   "ok",   "429",
      "ok",   "500",      "429", "invalid", "ok",    "500", "slow",  "empty"};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    FakeRequest request;
    request.index = i;
    EXPECT_EQ(fault_name(handler(request), plan), expected[i]) << "request " << i;
  }
}

TEST(FaultyHandler, ServersWithoutNRejectOrIgnoreIt) {
  json messages = json::array({{{"role", "user"}, {"content", "(A) 1 (B) 2"}}});
  FaultPlan rejecting;
  rejecting.reject_n = true;
  const FakeResponse rejected = faulty_handler(rejecting)(chat_request_with_n(messages, 2));
  EXPECT_EQ(rejected.status, 400);
  EXPECT_EQ(json::parse(rejected.body)["error"]["message"],
            "fake server: n > 1 is not supported, ask for one choice");
  EXPECT_EQ(faulty_handler(rejecting)(chat_request(messages)).body,
            answer_reply(chat_request(messages)).body);

  FaultPlan ignoring;
  ignoring.ignore_n = true;
  EXPECT_EQ(faulty_handler(ignoring)(chat_request_with_n(messages, 2)).body,
            answer_reply(chat_request(messages)).body);
  EXPECT_EQ(json::parse(faulty_handler(FaultPlan{})(chat_request_with_n(messages, 2)).body)["choices"].size(),
            2u);
}

TEST(FaultyHandler, NoFaultsMeansTheFallback) {
  Handler handler = faulty_handler(FaultPlan{});
  json messages = json::array({{{"role", "user"}, {"content", "(A) 1 (B) 2"}}});
  for (std::uint64_t i = 0; i < 10; ++i) {
    EXPECT_EQ(handler(chat_request(messages, i)).body, answer_reply(chat_request(messages, i)).body);
  }
}

}  // namespace
}  // namespace parley::testing
