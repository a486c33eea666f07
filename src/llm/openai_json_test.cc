#include "llm/openai_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <variant>

namespace parley::openai {
namespace {

using nlohmann::json;

ChatRequest request_of(std::vector<ChatMessage> prompt, int max_tokens = 1024) {
  ChatRequest request;
  request.messages = std::move(prompt);
  request.sampling.max_tokens = max_tokens;
  return request;
}

ChatResponse parse_ok(const std::string& body, const std::vector<ChatMessage>& prompt = {}, int max_tokens = 1024) {
  auto parsed = parse_chat_response(body, request_of(prompt, max_tokens));
  if (auto* bad = std::get_if<BadResponse>(&parsed)) ADD_FAILURE() << bad->message;
  return std::get<ChatResponse>(parsed);
}

std::string parse_bad(const std::string& body) {
  auto parsed = parse_chat_response(body, ChatRequest{});
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

// The bodies nlohmann::json wrote before the direct writer: the reference it must match byte
// for byte.
std::string nlohmann_chat_body(const std::string& model, const std::vector<ChatMessage>& messages,
                               const Sampling& sampling, int n = 1) {
  json list = json::array();
  for (const auto& m : messages) list.push_back({{"role", m.role}, {"content", m.content}});
  json body = {{"model", model},
               {"messages", std::move(list)},
               {"temperature", sampling.temperature},
               {"top_p", sampling.top_p},
               {"max_tokens", sampling.max_tokens}};
  if (sampling.seed) body["seed"] = *sampling.seed;
  if (sampling.logprobs) body["logprobs"] = true;
  if (n > 1) body["n"] = n;
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Strings a dataset or a model may hold: every control character, quotes, backslashes, DEL,
// valid UTF-8 of every length, and broken UTF-8 (stray and truncated bytes, overlong forms,
// encoded surrogates, beyond U+10FFFF, cut off at the end).
std::vector<std::string> hostile_strings() {
  std::string controls;
  for (int c = 0; c < 0x20; ++c) controls.push_back(static_cast<char>(c));
  return {"",
          controls,
          "quote \" backslash \\ slash / DEL \x7f",
          "\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF",
          "stray \xFF \x80 \xBF bytes",
          "truncated \xE2\x82 then \xF0\x9F\x98 and \xC3",
          "overlong \xC0\xAF \xE0\x80\xAF \xF0\x80\x80\xAF",
          "surrogate \xED\xA0\x80 \xED\xBF\xBF",
          "beyond \xF4\x90\x80\x80 \xF5\x80\x80\x80",
          "cut at the end \xF0\x9F"};
}

TEST(ChatRequestBody, EscapesExactlyAsNlohmannJsonDid) {
  const Sampling sampling;
  for (const std::string& text : hostile_strings()) {
    const std::vector<ChatMessage> messages = {{"system", text}, {text, "user text"}};
    EXPECT_EQ(chat_request_body(text, messages, sampling), nlohmann_chat_body(text, messages, sampling))
        << text;
  }
  // Random bytes, biased towards the ones that need care (fixed seed: the same strings every run).
  std::mt19937 random(14);
  using namespace std::string_literals;
  const std::string special = "\"\\\x00\x01\x1f\x7f\x80\xbf\xc0\xc2\xdf\xe0\xed\xef\xf0\xf4\xf5\xff"s;
  ASSERT_EQ(special.size(), 18u);
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    const int length = static_cast<int>(random() % 24);
    for (int i = 0; i < length; ++i) {
      text.push_back(random() % 2 ? special[random() % special.size()] : static_cast<char>(random() % 256));
    }
    const std::vector<ChatMessage> messages = {{"user", text}};
    ASSERT_EQ(chat_request_body("m", messages, sampling), nlohmann_chat_body("m", messages, sampling))
        << round;
  }
}

TEST(ChatRequestBody, EscapesWorkedOutByHand) {
  const std::string body = chat_request_body("m", {{"user", "a\x01\"\\\n\t\x7f\xff\xC3\xA9"}}, Sampling{});
  EXPECT_NE(body.find(R"("content":"a\u0001\"\\\n\t)"
                      "\x7f\xEF\xBF\xBD\xC3\xA9\""),
            std::string::npos)
      << body;
}

TEST(ChatRequestBody, SamplingValuesAreWrittenAsNlohmannJsonWroteThem) {
  const std::vector<ChatMessage> messages = {{"user", "hi"}};
  for (const double temperature : {0.0, 0.2, 0.7, 1.0, 1.5, 2.0, 1e-5, 0.0001, 123.456}) {
    for (const double top_p : {1.0, 0.95, 0.5}) {
      Sampling sampling;
      sampling.temperature = temperature;
      sampling.top_p = top_p;
      sampling.max_tokens = temperature > 1 ? -1 : 2048;
      sampling.seed =
          temperature > 0.5 ? std::optional<std::uint64_t>(18446744073709551615ULL) : std::nullopt;
      sampling.logprobs = top_p < 1.0;
      EXPECT_EQ(chat_request_body("m", messages, sampling), nlohmann_chat_body("m", messages, sampling))
          << temperature << " " << top_p;
      const int n = static_cast<int>(temperature * 10) % 5 + 1;  // 1 (no "n") to 5
      EXPECT_EQ(chat_request_body("m", messages, sampling, n), nlohmann_chat_body("m", messages, sampling, n))
          << temperature << " " << top_p << " n=" << n;
    }
  }
  // JSON has no NaN or infinity: such a value is sent as null, as nlohmann::json sent it.
  Sampling broken;
  broken.temperature = std::nan("");
  broken.top_p = HUGE_VAL;
  EXPECT_EQ(chat_request_body("m", messages, broken), nlohmann_chat_body("m", messages, broken));
  EXPECT_EQ(json::parse(chat_request_body("m", messages, broken))["temperature"], nullptr);
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

TEST(ParseChatResponse, ReadsWhatNlohmannJsonRead) {
  // A byte-order mark before the JSON is skipped.
  EXPECT_EQ(parse_ok("\xEF\xBB\xBF"
                     R"({"choices": [{"message": {"content": "bom"}}]})")
                .text,
            "bom");
  // Of repeated names the last counts.
  EXPECT_EQ(parse_ok(R"({"choices": [{"message": {"content": "first", "content": "last"}}]})").text, "last");
  EXPECT_EQ(parse_ok(R"({"choices": [], "choices": [{"message": {"content": "x"}}]})").text, "x");
  // Whole numbers beyond 64 bits are doubles: 2^64 is quoted as nlohmann::json wrote it.
  const std::vector<ChatMessage> prompt = {{"user", "abcdefgh"}};
  ChatResponse big = parse_ok(
      R"({"choices": [{"message": {"content": "hello"}}], "usage": {"prompt_tokens": 18446744073709551616, "completion_tokens": 5}})",
      prompt, 64);
  EXPECT_TRUE(big.usage.estimated);
  EXPECT_EQ(big.warnings,
            (std::vector<std::string>{"usage not believed, tokens estimated: usage.prompt_tokens "
                                      "1.8446744073709552e+19 is more than 4112, the most this call "
                                      "can plausibly use"}));
  ChatResponse negative = parse_ok(
      R"({"choices": [{"message": {"content": "hello"}}], "usage": {"prompt_tokens": -9223372036854775809, "completion_tokens": 5}})",
      prompt, 64);
  EXPECT_EQ(negative.warnings,
            (std::vector<std::string>{"usage not believed, tokens estimated: usage.prompt_tokens "
                                      "-9.223372036854776e+18 is negative"}));
  // A value quoted in a warning is written as it was, objects with their keys in order.
  ChatResponse object = parse_ok(
      R"({"choices": [{"message": {"content": "hello"}}], "usage": {"prompt_tokens": {"b": [1, 2.5], "a": "x\n"}, "completion_tokens": 5}})",
      prompt, 64);
  EXPECT_EQ(object.warnings,
            (std::vector<std::string>{"usage not believed, tokens estimated: usage.prompt_tokens "
                                      R"({"a":"x\n","b":[1,2.5]} is not a number)"}));
}

TEST(ParseChatResponse, LongRepliesAndDeepNesting) {
  // Longer than the thread's reused parser takes: parsed by a parser of its own.
  const std::string long_text(200'000, 'x');
  EXPECT_EQ(parse_ok(R"({"choices": [{"message": {"content": ")" + long_text + R"("}}]})").text, long_text);
  EXPECT_EQ(parse_ok(R"({"choices": [{"message": {"content": "short"}}]})").text, "short");
  // 1024 levels are read; deeper is not JSON this client reads (simdjson's limit).
  const auto nested = [](int depth) {
    return R"({"choices": [{"message": {"content": "deep"}}], "extra": )" + std::string(depth - 1, '[') +
           std::string(depth - 1, ']') + "}";
  };
  EXPECT_EQ(parse_ok(nested(1024)).text, "deep");
  EXPECT_NE(parse_bad(nested(1025)).find("invalid JSON"), std::string::npos);
}

std::string reply_with(const std::string& content_json, const std::string& extra = "") {
  return R"({"choices": [{"message": {"content": )" + content_json + R"(}, "finish_reason": "stop")" + extra +
         "}]}";
}

std::string reply_with_usage(const std::string& content_json, const std::string& usage) {
  return R"({"choices": [{"message": {"content": )" + content_json + R"(}}], "usage": )" + usage + "}";
}

TEST(ParseChatResponse, CleanReplyHasNoWarnings) {
  EXPECT_TRUE(parse_ok(reply_with(R"("Answer: B \u00e9\ud83d\ude00")")).warnings.empty());
  EXPECT_EQ(parse_ok(reply_with(R"("\ud83d\ude00 \u00e9")")).text, "\xF0\x9F\x98\x80 \xC3\xA9");
}

TEST(ParseChatResponse, ValidUtf8AtEveryBoundaryIsKept) {
  // U+0080, U+07FF, U+0800, U+20AC, U+D7FF, U+E000, U+FFFF, U+10000, U+40000, U+10FFFF, and the
  // surrogate pairs of U+10000, U+1F7FF and U+10FFFF.
  const std::string text =
      "\xC2\x80 \xDF\xBF \xE0\xA0\x80 \xE2\x82\xAC \xED\x9F\xBF \xEE\x80\x80 \xEF\xBF\xBF \xF0\x90\x80\x80 "
      "\xF1\x80\x80\x80 \xF4\x8F\xBF\xBF";
  ChatResponse response = parse_ok(reply_with("\"" + text + R"( \ud800\udc00 \ud83d\udfff \udbff\udfff")"));
  EXPECT_EQ(response.text, text + " \xF0\x90\x80\x80 \xF0\x9F\x9F\xBF \xF4\x8F\xBF\xBF");
  EXPECT_TRUE(response.warnings.empty());
}

TEST(ParseChatResponse, InvalidUtf8IsReplacedNotFatal) {
  const std::string replacement = "\xEF\xBF\xBD";
  // A stray byte, a truncated sequence (one U+FFFD for "\xE2\x82"), an overlong "/", an encoded
  // surrogate, and unpaired surrogate escapes; a valid pair and valid text stay as they are.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"\"a\xFF" "b\"", "a" + replacement + "b"},
      {"\"\xE2\x82" "c\"", replacement + "c"},
      {"\"\xC0\xAF\"", replacement + replacement},
      {"\"\xED\xA0\x80!\"", replacement + replacement + replacement + "!"},
      {R"("x\ud800y")", "x" + replacement + "y"},
      {R"("\udc00\ud83d\ude00\ud83d")", replacement + "\xF0\x9F\x98\x80" + replacement},
      {"\"\xF4\x90\x80\x80\"", replacement + replacement + replacement + replacement},
      // Repairing the bad byte leaves an escaped backslash before hex letters as it is.
      {"\"a\xFF \\\\dead\"", "a" + replacement + " \\dead"},
  };
  for (const auto& [content, text] : cases) {
    ChatResponse response = parse_ok(reply_with(content));
    EXPECT_EQ(response.text, text) << content;
    EXPECT_EQ(response.warnings, (std::vector<std::string>{"invalid UTF-8 in the reply replaced by U+FFFD"}))
        << content;
  }
  // In reasoning as well; an escaped quote before the bad byte does not end the string.
  ChatResponse response = parse_ok(R"({"choices": [{"message": {"content": "ok", "reasoning_content": "say \"hi)"
                                   "\xFF"
                                   R"(\""}}]})");
  EXPECT_EQ(response.reasoning, "say \"hi" + replacement + "\"");
}

TEST(ParseChatResponse, ImplausibleUsageIsEstimatedAndMarked) {
  // prompt: 8 bytes, limit 4096 + 2 * 8 = 4112; completion: "hello" 5 bytes and max_tokens 64,
  // limit 4096 + 2 * 5 + 64 = 4170. Estimates: 4 + ceil(8 / 4) = 6 and ceil(5 / 4) = 2.
  const std::vector<ChatMessage> prompt = {{"user", "abcdefgh"}};
  const std::string kNotBelieved = "usage not believed, tokens estimated: ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"prompt_tokens": 1e30, "completion_tokens": 5})",
       "usage.prompt_tokens 1e+30 is more than 4112, the most this call can plausibly use"},
      {R"({"prompt_tokens": 4113, "completion_tokens": 5})",
       "usage.prompt_tokens 4113 is more than 4112, the most this call can plausibly use"},
      {R"({"prompt_tokens": 10, "completion_tokens": 4171})",
       "usage.completion_tokens 4171 is more than 4170, the most this call can plausibly use"},
      {R"({"prompt_tokens": 18446744073709551615, "completion_tokens": 5})",
       "usage.prompt_tokens 18446744073709551615 is more than 4112, the most this call can plausibly use"},
      {R"({"prompt_tokens": -5, "completion_tokens": 5})", "usage.prompt_tokens -5 is negative"},
      {R"({"prompt_tokens": 10, "completion_tokens": -1})", "usage.completion_tokens -1 is negative"},
      {R"({"prompt_tokens": 12.7, "completion_tokens": 5})", "usage.prompt_tokens 12.7 is not a whole number"},
      {R"({"prompt_tokens": "12", "completion_tokens": 5})", "usage.prompt_tokens \"12\" is not a number"},
      {R"({"prompt_tokens": null, "completion_tokens": 5})", "usage.prompt_tokens null is not a number"},
      {R"({"prompt_tokens": 1e999, "completion_tokens": 5})", "usage.prompt_tokens null is not a number"},
      {R"({"prompt_tokens": NaN, "completion_tokens": 5})", "usage.prompt_tokens null is not a number"},
      {R"({"prompt_tokens": 10})", "usage.completion_tokens is missing"},
      {R"({"completion_tokens": 5})", "usage.prompt_tokens is missing"},
      {R"({"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 11}})",
       "usage.prompt_tokens_details.cached_tokens 11 is more than 10, the most this call can plausibly use"},
      {R"({"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": -1}})",
       "usage.prompt_tokens_details.cached_tokens -1 is negative"},
  };
  for (const auto& [usage, problem] : cases) {
    ChatResponse response = parse_ok(reply_with_usage(R"("hello")", usage), prompt, 64);
    EXPECT_TRUE(response.usage.estimated) << usage;
    EXPECT_EQ(response.usage.prompt_tokens, 6) << usage;
    EXPECT_EQ(response.usage.completion_tokens, 2) << usage;
    EXPECT_EQ(response.usage.cached_tokens, 0) << usage;
    EXPECT_EQ(response.warnings, (std::vector<std::string>{kNotBelieved + problem})) << usage;
  }
}

TEST(ParseChatResponse, PlausibleUsageIsBelievedUpToTheLimit) {
  const std::vector<ChatMessage> prompt = {{"user", "abcdefgh"}};
  const std::string usage =
      R"({"prompt_tokens": 4112, "completion_tokens": 4170.0, "prompt_tokens_details": {"cached_tokens": 4112}})";
  ChatResponse response = parse_ok(reply_with_usage(R"("hello")", usage), prompt, 64);
  EXPECT_FALSE(response.usage.estimated);
  EXPECT_EQ(response.usage.prompt_tokens, 4112);
  EXPECT_EQ(response.usage.completion_tokens, 4170);
  EXPECT_EQ(response.usage.cached_tokens, 4112);
  EXPECT_TRUE(response.warnings.empty());
  // Hidden reasoning counts against max_tokens: 0 visible bytes, 9000 tokens, max_tokens 5000.
  ChatResponse hidden = parse_ok(
      reply_with_usage(R"("")", R"({"prompt_tokens": 0, "completion_tokens": 9000, "prompt_tokens_details": null})"),
      prompt, 5000);
  EXPECT_FALSE(hidden.usage.estimated);
  EXPECT_EQ(hidden.usage.completion_tokens, 9000);
  // Returned reasoning counts with the text: 300 + 200 bytes, max_tokens 0, allow
  // 4096 + 2 · 500 = 5096 completion tokens and no more.
  const std::string content = '"' + std::string(300, 't') + R"(", "reasoning_content": ")" + std::string(200, 'r') + '"';
  for (const int tokens : {5096, 5097}) {
    ChatResponse shown = parse_ok(
        reply_with_usage(content, R"({"prompt_tokens": 0, "completion_tokens": )" + std::to_string(tokens) + "}"),
        prompt, 0);
    EXPECT_EQ(shown.usage.estimated, tokens > 5096) << tokens;
  }
}

TEST(ParseChatResponse, UnreadableLogprobsAreDroppedNotTheReply) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"NaN", "token 1 has no finite logprob (null)"},
      {"-Infinity", "token 1 has no finite logprob (null)"},
      {"Infinity", "token 1 has no finite logprob (null)"},
      {"-1e999", "token 1 has no finite logprob (null)"},
      {R"("-0.5")", "token 1 has no finite logprob (\"-0.5\")"},
      {"null", "token 1 has no finite logprob (null)"},
  };
  for (const auto& [logprob, problem] : cases) {
    const std::string logprobs = R"(, "logprobs": {"content": [{"token": "A", "logprob": -0.1},
        {"token": "n", "logprob": )" + logprob + "}]}";
    ChatResponse response = parse_ok(reply_with(R"("Answer: B")", logprobs));
    EXPECT_EQ(response.text, "Answer: B") << logprob;
    EXPECT_FALSE(response.logprobs.has_value()) << logprob;
    EXPECT_EQ(response.warnings, (std::vector<std::string>{"logprobs dropped: " + problem})) << logprob;
  }
  ChatResponse missing =
      parse_ok(reply_with(R"("x")", R"(, "logprobs": {"content": [{"token": "A"}]})"));
  EXPECT_EQ(missing.warnings, (std::vector<std::string>{"logprobs dropped: token 0 has no finite logprob (none)"}));
  ChatResponse not_array = parse_ok(reply_with(R"("x")", R"(, "logprobs": {"content": 5})"));
  EXPECT_EQ(not_array.warnings, (std::vector<std::string>{"logprobs dropped: logprobs.content is not an array"}));
  // vLLM's stand-in for -inf is finite and kept.
  ChatResponse floor = parse_ok(reply_with(R"("x")", R"(, "logprobs": {"content": [{"logprob": -9999.0}]})"));
  ASSERT_TRUE(floor.logprobs.has_value());
  EXPECT_DOUBLE_EQ(floor.logprobs->min_token_logprob, -9999.0);
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

TEST(EmbeddingRequestBody, EscapesExactlyAsNlohmannJsonDid) {
  const std::vector<std::string> texts = hostile_strings();
  const json reference = {{"model", "m\xff"}, {"input", texts}, {"encoding_format", "float"}};
  EXPECT_EQ(embedding_request_body("m\xff", texts),
            reference.dump(-1, ' ', false, json::error_handler_t::replace));
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

TEST(ParseEmbeddingResponse, ImplausibleUsageIsEstimatedAndMarked) {
  // 33 bytes of input: the limit is 4096 + 66 = 4162; the estimate 10.
  const std::string data = R"({"data": [{"embedding": [1]}, {"embedding": [2]}, {"embedding": [3]}], "usage": )";
  EXPECT_EQ(parse_embedding_ok(data + R"({"prompt_tokens": 4162}})").usage.prompt_tokens, 4162);
  for (const auto& [usage, problem] : std::vector<std::pair<std::string, std::string>>{
           {R"({"prompt_tokens": 4163})", "usage.prompt_tokens 4163 is more than 4162, the most this call can plausibly use"},
           {R"({"prompt_tokens": -3})", "usage.prompt_tokens -3 is negative"}}) {
    EmbeddingResponse response = parse_embedding_ok(data + usage + "}");
    EXPECT_TRUE(response.usage.estimated) << usage;
    EXPECT_EQ(response.usage.prompt_tokens, 10) << usage;
    EXPECT_EQ(response.warnings, (std::vector<std::string>{"usage not believed, tokens estimated: " + problem}));
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
  // JSON has no infinities; an overflowing literal or a NaN reads as null, which is no value.
  EXPECT_EQ(parse_embedding_bad(R"({"data": [{"embedding": [1]}, {"embedding": [1e999]}, {"embedding": [5]}]})"),
            "embedding 1 is not an array of finite numbers");
  EXPECT_EQ(parse_embedding_bad(R"({"data": [{"embedding": [1]}, {"embedding": [3]}, {"embedding": [NaN]}]})"),
            "embedding 2 is not an array of finite numbers");
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

TEST(ErrorSummary, InvalidUtf8IsReplaced) {
  EXPECT_EQ(error_summary("bad\xFF gateway"), "bad\xEF\xBF\xBD gateway");
  // A sequence cut off by the end of the body is one U+FFFD.
  EXPECT_EQ(error_summary("cut \xE2\x82"), "cut \xEF\xBF\xBD");
  EXPECT_EQ(error_summary("cut \xF0\x9F\x98"), "cut \xEF\xBF\xBD");
  EXPECT_EQ(error_summary("{\"error\": {\"message\": \"no\xC0 model\"}}"), "no\xEF\xBF\xBD model");
}

TEST(ErrorSummary, TruncatesOnCharacterBoundaries) {
  EXPECT_EQ(error_summary(std::string(500, 'x'), 10), "xxxxxxxxxx...");
  // "é" is two bytes; 5 bytes would split the third one, so the cut backs off to 4.
  EXPECT_EQ(error_summary("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 5), "\xC3\xA9\xC3\xA9...");
}

// A JSON error's message, as servers send them.
std::string error_message(std::string_view message) {
  return nlohmann::json{{"error", {{"message", message}}}}.dump();
}

TEST(RefusesN, TheParamOrARuleAboutNNotAnyWordN) {
  EXPECT_TRUE(refuses_n(R"({"error": {"message": "Unsupported value.", "param": "n"}})"));
  EXPECT_TRUE(refuses_n(R"({"error": {"message": "Invalid 'n': integer above maximum value."}})"));
  EXPECT_TRUE(refuses_n(R"({"error": {"message": "\"n\" is not allowed"}})"));
  EXPECT_TRUE(refuses_n(R"({"message": "`n` must be 1"})"));
  EXPECT_TRUE(refuses_n(R"({"message": "N must be at least 1, got 0."})"));
  EXPECT_TRUE(refuses_n(R"({"detail": "n > 1 is not supported"})"));
  EXPECT_TRUE(refuses_n(R"({"error": "only n=1"})"));
  for (const char* message : {"this endpoint supports only n=1", "n != 1 is not supported", "(n>1) unsupported",
                              "Illegal param: only one completion choice is allowed",
                              "sampling_params.n must be 1; parallel sampling is not supported.",
                              "Unrecognized request argument supplied: n", "Unexpected parameter: n.",
                              "Sampling: n: 4 exceeds max_num_seqs"}) {
    EXPECT_TRUE(refuses_n(error_message(message))) << message;
  }
  // FastAPI's validation errors name the field by location; pydantic's repr in a message too.
  EXPECT_TRUE(refuses_n(R"({"detail": [{"type": "less_than_equal", "loc": ["body", "n"], "msg": "Input should be less than or equal to 1", "input": 3}]})"));
  EXPECT_TRUE(refuses_n(error_message("[{'type': 'less_than_equal', 'loc': ('body', 'n'), 'msg': 'Input should be <= 1'}]")));

  // Not about n: another parameter named, n inside words or alone without a rule.
  EXPECT_FALSE(refuses_n(R"({"error": {"message": "Unsupported value.", "param": "temperature"}})"));
  for (const char* message : {"Invalid value for 'tool_choice': n/a", "upstream not ready, down", "got n tokens", "nmust be",
                              "choices must not be empty", "top-n must be a positive integer",
                              "the request exceeds the available context size (n_ctx = 4096)", ""}) {
    EXPECT_FALSE(refuses_n(error_message(message))) << message;
  }
  // Only a JSON error object is read: not an HTML page or a traceback, whatever their words...
  EXPECT_FALSE(refuses_n("<html><script>var n=document.getElementById('x')</script>503</html>"));
  EXPECT_FALSE(refuses_n("Traceback (most recent call last):\n  n = len(prompts)\nValueError"));
  EXPECT_FALSE(refuses_n("n must be 1"));
  EXPECT_FALSE(refuses_n(""));
  // ...nor the request a server echoes back beside an error about something else.
  EXPECT_FALSE(refuses_n(R"({"detail": [{"type": "missing", "loc": ["body", "model"], "msg": "Field required", "input": {"messages": [], "n": 3}}]})"));
  EXPECT_FALSE(refuses_n(error_message("[{'type': 'missing', 'loc': ('body', 'model'), 'msg': 'Field required', 'input': {'messages': [], 'n': 3}}]")));
}

TEST(RefusesLogprobs, TheFieldOrAMessageNamingLogprobs) {
  EXPECT_TRUE(refuses_logprobs(R"({"error": {"message": "Unsupported parameter.", "param": "logprobs"}})"));
  EXPECT_TRUE(
      refuses_logprobs(R"({"error": {"message": "Unsupported parameter.", "param": "top_logprobs"}})"));
  EXPECT_TRUE(refuses_logprobs(R"({"detail": "logprobs are not supported"})"));
  EXPECT_TRUE(refuses_logprobs(R"({"error": "LogProbs not available for this model"})"));
  for (const char* message :
       {"`logprobs` is not supported with this model", "This model does not return log probabilities",
        "Unrecognized request argument supplied: logprobs", "log_probs: unsupported"}) {
    EXPECT_TRUE(refuses_logprobs(error_message(message))) << message;
  }
  EXPECT_TRUE(refuses_logprobs(
      R"({"detail": [{"type": "extra_forbidden", "loc": ["body", "logprobs"], "msg": "Extra inputs are not permitted", "input": true}]})"));
  EXPECT_TRUE(
      refuses_logprobs(error_message("[{'type': 'extra_forbidden', 'loc': ('body', 'logprobs'), 'msg': "
                                     "'Extra inputs are not permitted'}]")));

  // Not about log-probabilities: another field, an error about n, no JSON error object...
  EXPECT_FALSE(refuses_logprobs(R"({"error": {"message": "Unsupported value.", "param": "n"}})"));
  EXPECT_FALSE(refuses_logprobs(error_message("This model's maximum context length is 4096 tokens.")));
  EXPECT_FALSE(refuses_logprobs(error_message("")));
  EXPECT_FALSE(refuses_logprobs("logprobs are not supported"));
  EXPECT_FALSE(refuses_logprobs("<html><body>logprobs 502</body></html>"));
  // ...nor the request echoed back beside an error about something else.
  EXPECT_FALSE(refuses_logprobs(
      R"({"detail": [{"type": "missing", "loc": ["body", "model"], "msg": "Field required", "input": {"messages": [], "logprobs": true}}]})"));
  EXPECT_FALSE(
      refuses_logprobs(error_message("[{'type': 'missing', 'loc': ('body', 'model'), 'msg': 'Field "
                                     "required', 'input': {'messages': [], 'logprobs': True}}]")));
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
