// Chat completions asked with "n": the request's "n", all choices parsed, the usage of one
// request shared out so that the choices' counts add up to exactly what was billed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "llm/openai_json.h"

namespace parley::openai {
namespace {

using nlohmann::json;

ChatRequest prompt_of(std::string text) {
  ChatRequest request;
  request.messages = {{"user", std::move(text)}};
  return request;
}

std::vector<ChatResponse> choices_ok(const std::string& body, int n,
                                     const ChatRequest& request = prompt_of("hi")) {
  auto parsed = parse_chat_choices(body, request, n);
  if (auto* bad = std::get_if<BadResponse>(&parsed)) {
    ADD_FAILURE() << bad->message;
    return {};
  }
  return std::get<std::vector<ChatResponse>>(parsed);
}

TEST(ChatRequestBody, AsksForNChoicesOnlyWhenMoreThanOne) {
  EXPECT_EQ(json::parse(chat_request_body("m", {{"user", "hi"}}, Sampling{}, 3))["n"], 3);
  EXPECT_FALSE(json::parse(chat_request_body("m", {{"user", "hi"}}, Sampling{}, 1)).contains("n"));
  EXPECT_FALSE(json::parse(chat_request_body("m", {{"user", "hi"}}, Sampling{})).contains("n"));
}

TEST(ParseChatChoices, PromptBilledOnceToTheFirstAndCompletionsSplitByLength) {
  const std::string body = R"({"choices": [
      {"index": 0, "finish_reason": "stop", "message": {"content": "Answer: A"},
       "logprobs": {"content": [{"token": "A", "logprob": -0.5}]}},
      {"index": 1, "finish_reason": "length", "message": {"content": "Answer: B because"}},
      {"index": 2, "finish_reason": "stop", "message": {"content": null, "reasoning_content": "abcd"}}],
    "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70,
              "prompt_tokens_details": {"cached_tokens": 30}}})";
  const std::vector<ChatResponse> choices = choices_ok(body, 3);
  ASSERT_EQ(choices.size(), 3u);
  EXPECT_EQ(choices[0].text, "Answer: A");
  EXPECT_EQ(choices[1].text, "Answer: B because");
  EXPECT_EQ(choices[2].text, "");
  EXPECT_EQ(choices[2].reasoning, "abcd");
  EXPECT_EQ(choices[0].finish_reason, "stop");
  EXPECT_EQ(choices[1].finish_reason, "length");
  ASSERT_TRUE(choices[0].logprobs);
  EXPECT_DOUBLE_EQ(choices[0].logprobs->min_token_logprob, -0.5);
  EXPECT_FALSE(choices[1].logprobs);
  // Estimated completions 3 (9 bytes), 5 (17 bytes), 1 (4 bytes of reasoning): 20 → 7, 11, 2.
  EXPECT_EQ(choices[0].usage.prompt_tokens, 50);
  EXPECT_EQ(choices[0].usage.cached_tokens, 30);
  EXPECT_EQ(choices[0].usage.completion_tokens, 7);
  EXPECT_EQ(choices[1].usage.prompt_tokens, 0);
  EXPECT_EQ(choices[1].usage.cached_tokens, 0);
  EXPECT_EQ(choices[1].usage.completion_tokens, 11);
  EXPECT_EQ(choices[2].usage.prompt_tokens, 0);
  EXPECT_EQ(choices[2].usage.completion_tokens, 2);
  for (const auto& choice : choices) {
    EXPECT_FALSE(choice.usage.estimated);
    EXPECT_TRUE(choice.warnings.empty());
  }
}

TEST(ParseChatChoices, FewerChoicesThanAskedAreWhatCameAndMoreAreCut) {
  const std::string one = R"({"choices": [{"message": {"content": "Answer: C"}}],
                             "usage": {"prompt_tokens": 12, "completion_tokens": 4}})";
  const std::vector<ChatResponse> got = choices_ok(one, 3);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].usage.prompt_tokens, 12);
  EXPECT_EQ(got[0].usage.completion_tokens, 4);

  // Three sent, two asked: the reply's usage is all given to the two kept (4 + 4 estimated).
  const std::string three = R"({"choices": [{"message": {"content": "abcdefghijklmnop"}},
                                           {"message": {"content": "qrstuvwxyz012345"}},
                                           {"message": {"content": "never read"}}],
                               "usage": {"prompt_tokens": 12, "completion_tokens": 9}})";
  const std::vector<ChatResponse> cut = choices_ok(three, 2);
  ASSERT_EQ(cut.size(), 2u);
  EXPECT_EQ(cut[0].usage.completion_tokens, 5);
  EXPECT_EQ(cut[1].usage.completion_tokens, 4);
}

TEST(ParseChatChoices, WithoutUsageEachChoiceIsEstimatedAndThePromptCountedOnce) {
  const std::string body = R"({"choices": [{"message": {"content": "Answer: A"}},
                                          {"message": {"content": "Answer: B because"}}]})";
  // "12345678": ceil(8 / 4) + 4 tokens of framing.
  const std::vector<ChatResponse> choices = choices_ok(body, 2, prompt_of("12345678"));
  ASSERT_EQ(choices.size(), 2u);
  EXPECT_EQ(choices[0].usage.prompt_tokens, 6);
  EXPECT_EQ(choices[0].usage.completion_tokens, 3);
  EXPECT_EQ(choices[1].usage.prompt_tokens, 0);
  EXPECT_EQ(choices[1].usage.completion_tokens, 5);
  EXPECT_TRUE(choices[0].usage.estimated);
  EXPECT_TRUE(choices[1].usage.estimated);
}

TEST(ParseChatChoices, WarningsAboutTheReplyGoToEveryChoiceAboutAChoiceToItsOwn) {
  const std::string body =
      "{\"choices\": [{\"message\": {\"content\": \"ok\"}},"
      "{\"message\": {\"content\": \"bad \xff\"},"
      " \"logprobs\": {\"content\": [{\"logprob\": \"x\"}]}}],"
      "\"usage\": {\"prompt_tokens\": -1, \"completion_tokens\": 2}}";
  const std::vector<ChatResponse> choices = choices_ok(body, 2);
  ASSERT_EQ(choices.size(), 2u);
  ASSERT_EQ(choices[0].warnings.size(), 2u);
  EXPECT_EQ(choices[0].warnings[0], "invalid UTF-8 in the reply replaced by U+FFFD");
  EXPECT_EQ(choices[0].warnings[1].rfind("usage not believed", 0), 0u) << choices[0].warnings[1];
  ASSERT_EQ(choices[1].warnings.size(), 3u);
  EXPECT_EQ(choices[1].warnings[0], choices[0].warnings[0]);
  EXPECT_EQ(choices[1].warnings[1], choices[0].warnings[1]);
  EXPECT_EQ(choices[1].warnings[2].rfind("logprobs dropped", 0), 0u) << choices[1].warnings[2];
}

TEST(ParseChatChoices, ChoicesAreOrderedByTheirIndex) {
  // The same choices as in PromptBilledOnceToTheFirstAndCompletionsSplitByLength, shuffled: the
  // same choices and counts come out, the prompt billed to choice 0 wherever it stood.
  const std::string body = R"({"choices": [
      {"index": 2, "finish_reason": "stop", "message": {"content": null, "reasoning_content": "abcd"}},
      {"index": 0, "finish_reason": "stop", "message": {"content": "Answer: A"}},
      {"index": 1, "finish_reason": "length", "message": {"content": "Answer: B because"}}],
    "usage": {"prompt_tokens": 50, "completion_tokens": 20}})";
  const std::vector<ChatResponse> choices = choices_ok(body, 3);
  ASSERT_EQ(choices.size(), 3u);
  EXPECT_EQ(choices[0].text, "Answer: A");
  EXPECT_EQ(choices[1].text, "Answer: B because");
  EXPECT_EQ(choices[2].reasoning, "abcd");
  EXPECT_EQ(choices[1].finish_reason, "length");
  EXPECT_EQ(choices[0].usage.prompt_tokens, 50);
  EXPECT_EQ(choices[2].usage.prompt_tokens, 0);
  EXPECT_EQ(choices[0].usage.completion_tokens, 7);
  EXPECT_EQ(choices[1].usage.completion_tokens, 11);
  EXPECT_EQ(choices[2].usage.completion_tokens, 2);
  // More sent than asked: the lowest indexes are kept, wherever they stand.
  const std::string reversed = R"({"choices": [{"index": 2, "message": {"content": "two"}},
                                              {"index": 1, "message": {"content": "one"}},
                                              {"index": 0, "message": {"content": "zero"}}]})";
  const std::vector<ChatResponse> kept = choices_ok(reversed, 2);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].text, "zero");
  EXPECT_EQ(kept[1].text, "one");
  // A choice without an index, or with null, stands at its position.
  const std::vector<ChatResponse> mixed =
      choices_ok(R"({"choices": [{"message": {"content": "zero"}}, {"index": null, "message": {"content": "one"}}]})", 2);
  EXPECT_EQ(mixed.at(0).text, "zero");
  EXPECT_EQ(mixed.at(1).text, "one");
}

TEST(ParseChatChoices, ARepeatedOrImpossibleIndexMakesTheReplyBad) {
  const auto bad = [](const std::string& body, int n) {
    auto parsed = parse_chat_choices(body, prompt_of("hi"), n);
    if (!std::holds_alternative<BadResponse>(parsed)) return std::string("parsed");
    return std::get<BadResponse>(parsed).message;
  };
  EXPECT_EQ(bad(R"({"choices": [{"index": 0, "message": {"content": "a"}}, {"index": 0, "message": {"content": "b"}}]})", 2),
            "choice index 0 appears twice");
  EXPECT_EQ(bad(R"({"choices": [{"message": {"content": "a"}}, {"index": 0, "message": {"content": "b"}}]})", 2),
            "choice index 0 appears twice");
  EXPECT_EQ(bad(R"({"choices": [{"index": 0, "message": {"content": "a"}}, {"index": 2, "message": {"content": "b"}}]})", 2),
            "choice index 2 is out of range for 2 choices");
  EXPECT_EQ(bad(R"({"choices": [{"index": 1, "message": {"content": "a"}}]})", 1),
            "choice index 1 is out of range for 1 choice");
  EXPECT_EQ(bad(R"({"choices": [{"index": -1, "message": {"content": "a"}}]})", 1),
            "choice index -1 is not a non-negative integer");
  EXPECT_EQ(bad(R"({"choices": [{"index": "0", "message": {"content": "a"}}]})", 1),
            "choice index \"0\" is not a non-negative integer");
}

TEST(ParseChatChoices, AnyUnusableChoiceMakesTheReplyBad) {
  const std::string body = R"({"choices": [{"message": {"content": "fine"}}, {"finish_reason": "stop"}]})";
  auto parsed = parse_chat_choices(body, prompt_of("hi"), 2);
  ASSERT_TRUE(std::holds_alternative<BadResponse>(parsed));
  EXPECT_EQ(std::get<BadResponse>(parsed).message, "response choice has no message");
  auto empty = parse_chat_choices(R"({"choices": []})", prompt_of("hi"), 2);
  ASSERT_TRUE(std::holds_alternative<BadResponse>(empty));
  EXPECT_EQ(std::get<BadResponse>(empty).message, "response has no choices");
}

}  // namespace
}  // namespace parley::openai
