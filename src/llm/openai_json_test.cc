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
  // The mean token log-probability DOWN's logprob confidence needs is kept exactly.
  EXPECT_NEAR(response.logprobs->mean_token_logprob(), -2.6 / 3.0, 1e-12);
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

// 5, 10 and 18 bytes.
const std::vector<std::string> kThreeTexts = {"alpha", "beta gamma", "delta epsilon zeta"};

EmbeddingResponse parse_embedding_ok(const std::string& body,
                                     const std::vector<std::string>& inputs = kThreeTexts) {
  auto parsed = parse_embedding_response(body, inputs);
  if (auto* bad = std::get_if<BadResponse>(&parsed)) ADD_FAILURE() << bad->message;
  return std::holds_alternative<EmbeddingResponse>(parsed) ? std::get<EmbeddingResponse>(parsed)
                                                           : EmbeddingResponse{};
}

std::string parse_embedding_bad(const std::string& body) {
  auto parsed = parse_embedding_response(body, kThreeTexts);
  EXPECT_TRUE(std::holds_alternative<BadResponse>(parsed)) << body;
  return std::holds_alternative<BadResponse>(parsed) ? std::get<BadResponse>(parsed).message : "";
}

TEST(EmbeddingRequestBody, HasTheOpenAiShape) {
  json body = json::parse(embedding_request_body("bge-m3", {"first text", "second \"quoted\"\n"}));
  EXPECT_EQ(body["model"], "bge-m3");
  EXPECT_EQ(body["input"], (json{"first text", "second \"quoted\"\n"}));
  EXPECT_EQ(body["encoding_format"], "float");
  EXPECT_EQ(body.size(), 3u);
  // One text is still sent as an array, so the reply always has one entry per input.
  EXPECT_EQ(json::parse(embedding_request_body("m", {"solo"}))["input"], (json{"solo"}));
}

TEST(ParseEmbeddingResponse, PlacesVectorsByIndex) {
  const std::string body = R"({"object": "list", "model": "bge-m3",
    "data": [{"object": "embedding", "index": 2, "embedding": [0.5, -1.25]},
             {"object": "embedding", "index": 0, "embedding": [1, 0]},
             {"object": "embedding", "index": 1, "embedding": [0.1, 3e-5]}],
    "usage": {"prompt_tokens": 9, "total_tokens": 9}})";
  EmbeddingResponse response = parse_embedding_ok(body);
  ASSERT_EQ(response.vectors.size(), 3u);
  EXPECT_EQ(response.vectors[0], (std::vector<double>{1.0, 0.0}));
  EXPECT_EQ(response.vectors[1], (std::vector<double>{0.1, 3e-5}));
  EXPECT_EQ(response.vectors[2], (std::vector<double>{0.5, -1.25}));
  EXPECT_EQ(response.usage.prompt_tokens, 9);
  EXPECT_EQ(response.usage.completion_tokens, 0);
  EXPECT_FALSE(response.usage.estimated);
}

TEST(ParseEmbeddingResponse, MissingIndexIsThePosition) {
  EmbeddingResponse response = parse_embedding_ok(
      R"({"data": [{"embedding": [1, 2]}, {"embedding": [3, 4]}, {"index": 2, "embedding": [5, 6]}],
          "usage": {"prompt_tokens": 7}})");
  ASSERT_EQ(response.vectors.size(), 3u);
  EXPECT_EQ(response.vectors[0], (std::vector<double>{1, 2}));
  EXPECT_EQ(response.vectors[1], (std::vector<double>{3, 4}));
  EXPECT_EQ(response.vectors[2], (std::vector<double>{5, 6}));
}

TEST(ParseEmbeddingResponse, MissingUsageIsEstimated) {
  // ceil(5 / 4) + ceil(10 / 4) + ceil(18 / 4) = 2 + 3 + 5; no framing for embeddings.
  for (const char* usage : {"", R"(, "usage": null)", R"(, "usage": {"total_tokens": 4})"}) {
    EmbeddingResponse response = parse_embedding_ok(
        std::string(R"({"data": [{"embedding": [1]}, {"embedding": [2]}, {"embedding": [3]}])") + usage +
        "}");
    EXPECT_TRUE(response.usage.estimated) << usage;
    EXPECT_EQ(response.usage.prompt_tokens, 10) << usage;
    EXPECT_EQ(response.usage.completion_tokens, 0);
  }
}

TEST(ParseEmbeddingResponse, RejectsAnythingButOneVectorPerInput) {
  EXPECT_NE(parse_embedding_bad(R"({"data": [ not JSON)").find("invalid JSON"), std::string::npos);
  EXPECT_EQ(parse_embedding_bad(R"([])"), "response is not a JSON object");
  EXPECT_EQ(parse_embedding_bad(R"({"object": "list"})"), "response has no data array");
  EXPECT_EQ(parse_embedding_bad(R"({"data": {"embedding": [1]}})"), "response has no data array");
  EXPECT_EQ(parse_embedding_bad(R"({"data": [{"embedding": [1]}, {"embedding": [2]}]})"),
            "response has 2 embeddings for 3 inputs");
  EXPECT_EQ(
      parse_embedding_bad(
          R"({"data": [{"embedding": [1]}, {"embedding": [2]}, {"embedding": [3]}, {"embedding": [4]}]})"),
      "response has 4 embeddings for 3 inputs");
  EXPECT_EQ(parse_embedding_bad(
                R"({"data": [{"index": 0, "embedding": [1]}, {"index": 2, "embedding": [2]},
                             {"index": 0, "embedding": [3]}]})"),
            "embedding index 0 appears twice");
  // A missing index takes the array position, which an explicit index may already hold.
  EXPECT_EQ(parse_embedding_bad(
                R"({"data": [{"index": 1, "embedding": [1]}, {"embedding": [2]}, {"embedding": [3]}]})"),
            "embedding index 1 appears twice");
  EXPECT_EQ(parse_embedding_bad(
                R"({"data": [{"index": 0, "embedding": [1]}, {"index": 1, "embedding": [2]},
                             {"index": 3, "embedding": [3]}]})"),
            "embedding index 3 is out of range for 3 inputs");
  for (const char* index : {"-1", "1.5", "\"1\""}) {
    EXPECT_EQ(parse_embedding_bad(std::string(R"({"data": [{"embedding": [1]}, {"index": )") + index +
                                  R"(, "embedding": [2]}, {"embedding": [3]}]})"),
              "embedding index is not a non-negative integer")
        << index;
  }
  EXPECT_EQ(
      parse_embedding_bad(R"({"data": [{"embedding": [1, 2]}, {"embedding": [3, 4]}, {"embedding": [5]}]})"),
      "embedding 2 has 1 values, embedding 0 has 2");
  EXPECT_EQ(parse_embedding_bad(
                R"({"data": [{"embedding": [1, "2"]}, {"embedding": [3, 4]}, {"embedding": [5, 6]}]})"),
            "embedding 0 is not an array of finite numbers");
  EXPECT_EQ(parse_embedding_bad(
                R"({"data": [{"embedding": [1, 2]}, {"embedding": [3, null]}, {"embedding": [5, 6]}]})"),
            "embedding 1 is not an array of finite numbers");
  // base64 is what a server sends when encoding_format was ignored.
  EXPECT_EQ(
      parse_embedding_bad(R"({"data": [{"embedding": "AAAA"}, {"embedding": [3]}, {"embedding": [5]}]})"),
      "embedding 0 is not an array of finite numbers");
  EXPECT_EQ(
      parse_embedding_bad(R"({"data": [{"object": "embedding"}, {"embedding": [3]}, {"embedding": [5]}]})"),
      "embedding 0 is not an array of finite numbers");
  // JSON has no infinities; an overflowing literal is refused by the parser already.
  EXPECT_NE(
      parse_embedding_bad(R"({"data": [{"embedding": [1]}, {"embedding": [1e999]}, {"embedding": [5]}]})")
          .find("invalid JSON"),
      std::string::npos);
  EXPECT_EQ(parse_embedding_bad(R"({"data": [{"embedding": []}, {"embedding": []}, {"embedding": []}]})"),
            "embedding 0 is empty");
}

TEST(ErrorSummary, PicksTheServersMessage) {
  EXPECT_EQ(error_summary(R"({"error": {"message": "model overloaded", "type": "server_error"}})"),
            "model overloaded");
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
