#include "llm/openai_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

namespace parley::openai {
namespace {

using nlohmann::json;

ChatResponse parse_ok(const std::string& body, const std::vector<ChatMessage>& prompt = {}) {
  auto parsed = parse_chat_response(body, prompt);
  if (auto* bad = std::get_if<BadResponse>(&parsed)) ADD_FAILURE() << bad->message;
  return std::get<ChatResponse>(parsed);
}

std::string parse_bad(const std::string& body) {
  auto parsed = parse_chat_response(body, {});
  EXPECT_TRUE(std::holds_alternative<BadResponse>(parsed)) << body;
  return std::holds_alternative<BadResponse>(parsed) ? std::get<BadResponse>(parsed).message : "";
}

TEST(ChatRequestBody, HasTheOpenAiShape) {
  Sampling sampling;
  sampling.temperature = 0.3;
  sampling.top_p = 0.9;
  sampling.max_tokens = 256;
  std::vector<ChatMessage> messages = {{"system", "Be brief."}, {"user", "2+2? \"quoted\"\n"}};
  json body = json::parse(chat_request_body("qwen3-8b", messages, sampling));
  EXPECT_EQ(body["model"], "qwen3-8b");
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0], (json{{"role", "system"}, {"content", "Be brief."}}));
  EXPECT_EQ(body["messages"][1], (json{{"role", "user"}, {"content", "2+2? \"quoted\"\n"}}));
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(body["top_p"].get<double>(), 0.9);
  EXPECT_EQ(body["max_tokens"], 256);
  EXPECT_FALSE(body.contains("seed"));
  EXPECT_FALSE(body.contains("logprobs"));
  EXPECT_EQ(body.size(), 5u);
}

TEST(ChatRequestBody, SeedAndLogprobsWhenAsked) {
  Sampling sampling;
  sampling.seed = 18446744073709551615ULL;
  sampling.logprobs = true;
  json body = json::parse(chat_request_body("m", {{"user", "hi"}}, sampling));
  EXPECT_EQ(body["seed"].get<std::uint64_t>(), 18446744073709551615ULL);
  EXPECT_EQ(body["logprobs"], true);
}

TEST(ChatRequestBody, InvalidUtf8IsReplacedNotThrown) {
  json body = json::parse(chat_request_body("m", {{"user", std::string("a\xff" "b")}}, Sampling{}));
  EXPECT_EQ(body["messages"][0]["content"], "a\xEF\xBF\xBD" "b");
}

TEST(ParseChatResponse, ReadsEveryField) {
  const std::string body = R"({
    "id": "x", "object": "chat.completion",
    "choices": [{"index": 0, "finish_reason": "length",
                 "message": {"role": "assistant", "content": "Answer: B", "reasoning_content": "thinking..."},
                 "logprobs": {"content": [{"token": "A", "logprob": -0.1}, {"token": "n", "logprob": -0.5},
                                          {"token": "s", "logprob": -2.0}]}}],
    "usage": {"prompt_tokens": 120, "completion_tokens": 7, "total_tokens": 127,
              "prompt_tokens_details": {"cached_tokens": 64}}})";
  ChatResponse response = parse_ok(body);
  EXPECT_EQ(response.text, "Answer: B");
  EXPECT_EQ(response.reasoning, "thinking...");
  EXPECT_EQ(response.finish_reason, "length");
  EXPECT_EQ(response.usage.prompt_tokens, 120);
  EXPECT_EQ(response.usage.completion_tokens, 7);
  EXPECT_EQ(response.usage.cached_tokens, 64);
  EXPECT_FALSE(response.usage.estimated);
  ASSERT_TRUE(response.logprobs.has_value());
  EXPECT_EQ(response.logprobs->tokens, 3);
  EXPECT_DOUBLE_EQ(response.logprobs->min_token_logprob, -2.0);
  // mean = -2.6 / 3 = -0.8667; exp(0.8667) = 2.37897 (by hand)
  EXPECT_NEAR(response.logprobs->perplexity, 2.378968, 1e-6);
}

TEST(ParseChatResponse, NullContentIsEmptyAndReasoningFieldAlternative) {
  ChatResponse response = parse_ok(
      R"({"choices": [{"message": {"role": "assistant", "content": null, "reasoning": "r"}, "finish_reason": null}],
          "usage": {"prompt_tokens": 1, "completion_tokens": 0}})");
  EXPECT_EQ(response.text, "");
  EXPECT_EQ(response.reasoning, "r");
  EXPECT_EQ(response.finish_reason, "");
  EXPECT_EQ(response.usage.cached_tokens, 0);
  EXPECT_FALSE(response.logprobs.has_value());
}

TEST(ParseChatResponse, MissingUsageIsEstimated) {
  // prompt: 4 framing + ceil(8 / 4) = 6; reply: ceil(5 / 4) = 2
  std::vector<ChatMessage> prompt = {{"user", "abcdefgh"}};
  for (const char* usage : {"", R"(, "usage": null)", R"(, "usage": {})"}) {
    ChatResponse response = parse_ok(
        std::string(R"({"choices": [{"message": {"content": "hello"}, "finish_reason": "stop"}])") + usage + "}",
        prompt);
    EXPECT_TRUE(response.usage.estimated) << usage;
    EXPECT_EQ(response.usage.prompt_tokens, 6);
    EXPECT_EQ(response.usage.completion_tokens, 2);
  }
}

TEST(ParseChatResponse, LogprobsNullOrEmptyMeansNone) {
  EXPECT_FALSE(parse_ok(R"({"choices": [{"message": {"content": "x"}, "logprobs": null}]})").logprobs);
  EXPECT_FALSE(parse_ok(R"({"choices": [{"message": {"content": "x"}, "logprobs": {"content": []}}]})").logprobs);
}

TEST(ParseChatResponse, RejectsUnusableBodies) {
  EXPECT_NE(parse_bad(R"({"choices": [ this is not JSON)").find("invalid JSON"), std::string::npos);
  EXPECT_EQ(parse_bad(R"({"choices": []})"), "response has no choices");
  EXPECT_EQ(parse_bad(R"({"id": "x"})"), "response has no choices");
  EXPECT_EQ(parse_bad(R"([1, 2])"), "response is not a JSON object");
  EXPECT_EQ(parse_bad(R"({"choices": [{"text": "legacy"}]})"), "response choice has no message");
  EXPECT_EQ(parse_bad(R"({"choices": [{"message": {"content": 5}}]})"), "response message content is not a string");
  EXPECT_NE(parse_bad("").find("invalid JSON"), std::string::npos);
}

TEST(ErrorSummary, PicksTheServersMessage) {
  EXPECT_EQ(error_summary(R"({"error": {"message": "model overloaded", "type": "server_error"}})"), "model overloaded");
  EXPECT_EQ(error_summary(R"({"error": "bad key"})"), "bad key");
  EXPECT_EQ(error_summary(R"({"object": "error", "message": "vllm says no"})"), "vllm says no");
  EXPECT_EQ(error_summary(R"({"detail": "Not Found"})"), "Not Found");
  EXPECT_EQ(error_summary("<html>\r\n<b>502</b>\n</html>"), "<html>  <b>502</b> </html>");
  EXPECT_EQ(error_summary(""), "");
}

TEST(ErrorSummary, TruncatesOnCharacterBoundaries) {
  EXPECT_EQ(error_summary(std::string(500, 'x'), 10), "xxxxxxxxxx...");
  // "é" is two bytes; 5 bytes would split the third one, so the cut backs off to 4.
  EXPECT_EQ(error_summary("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 5), "\xC3\xA9\xC3\xA9...");
}

TEST(ReduceLogprobs, PinnedByHand) {
  LogprobStats stats = reduce_logprobs({-0.1, -0.5, -2.0});
  EXPECT_EQ(stats.tokens, 3);
  EXPECT_DOUBLE_EQ(stats.min_token_logprob, -2.0);
  EXPECT_NEAR(stats.perplexity, std::exp(0.8666666666666667), 1e-12);
  LogprobStats certain = reduce_logprobs({0.0, 0.0});
  EXPECT_DOUBLE_EQ(certain.perplexity, 1.0);
  EXPECT_DOUBLE_EQ(certain.min_token_logprob, 0.0);
  EXPECT_EQ(reduce_logprobs({}).tokens, 0);
}

}  // namespace
}  // namespace parley::openai
