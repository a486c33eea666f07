#include "gateway/chat_api.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace parley::gateway {
namespace {

using nlohmann::json;

CompletionRequest parsed(const json& body) {
  auto result = parse_completion_request(body.dump());
  if (auto* error = std::get_if<ApiError>(&result)) ADD_FAILURE() << error->message << " (" << error->param << ")";
  return std::holds_alternative<CompletionRequest>(result) ? std::get<CompletionRequest>(result) : CompletionRequest{};
}

ApiError refused(std::string_view body) {
  auto result = parse_completion_request(body);
  if (!std::holds_alternative<ApiError>(result)) {
    ADD_FAILURE() << "accepted: " << body;
    return {};
  }
  return std::get<ApiError>(result);
}

json user(const std::string& text) { return {{"role", "user"}, {"content", text}}; }

TEST(ParseCompletionRequest, TheLastUserMessageIsAFreeTextQuestionByDefault) {
  const auto request = parsed({{"model", "debate-3x2"},
                               {"messages", {{{"role", "system"}, {"content", "Be brief."}}, user("  Why is the sky blue?\n")}},
                               {"temperature", 0.2},
                               {"max_tokens", 50}});
  EXPECT_EQ(request.model, "debate-3x2");
  EXPECT_EQ(request.question, "Why is the sky blue?");
  EXPECT_EQ(request.answer_type, AnswerType::kText);
  EXPECT_TRUE(request.options.empty());
  EXPECT_FALSE(request.gold.has_value());
  EXPECT_FALSE(request.stream);
  EXPECT_FALSE(request.seed.has_value());
}

TEST(ParseCompletionRequest, ReadsTextPartsStreamOptionsAndSeed) {
  const auto request = parsed({{"model", "m"},
                               {"messages", {{{"role", "user"},
                                              {"content", {{{"type", "text"}, {"text", "What is"}},
                                                           {{"type", "text"}, {"text", "6 * 7?"}}}}}}},
                               {"stream", true},
                               {"stream_options", {{"include_usage", true}}},
                               {"seed", 42}});
  EXPECT_EQ(request.question, "What is\n6 * 7?");
  EXPECT_TRUE(request.stream);
  EXPECT_TRUE(request.include_usage);
  EXPECT_EQ(request.seed, 42u);
}

TEST(ParseCompletionRequest, TheExtensionGivesTypeOptionsGoldAndLimits) {
  const auto request = parsed({{"model", "m"},
                               {"messages", {user("Which planet is largest?")}},
                               {"parley",
                                {{"answer_type", "choice"},
                                 {"options", {"Mars", "Jupiter", "Venus"}},
                                 {"gold", "Jupiter"},
                                 {"task_id", " q17 "},
                                 {"budget_tokens", 20000},
                                 {"deadline_s", 2.5}}}});
  EXPECT_EQ(request.answer_type, AnswerType::kChoice);
  EXPECT_EQ(request.options, (std::vector<std::string>{"Mars", "Jupiter", "Venus"}));
  EXPECT_EQ(request.gold, "B");  // canonical: the option's letter, as a dataset row's gold
  EXPECT_FALSE(request.options_inferred);
  EXPECT_EQ(request.task_id, "q17");
  EXPECT_EQ(request.budget_tokens, 20000);
  EXPECT_EQ(request.deadline_s, 2.5);
}

TEST(ParseCompletionRequest, ANumericGoldMakesANumberTaskInCanonicalForm) {
  const auto request = parsed({{"model", "m"}, {"messages", {user("6*7?")}}, {"parley", {{"gold", "42.0"}, {"tolerance", 0.5}}}});
  EXPECT_EQ(request.answer_type, AnswerType::kNumber);
  EXPECT_EQ(request.gold, "42");
  EXPECT_EQ(request.tolerance, 0.5);
}

TEST(ParseCompletionRequest, InfersOptionsWrittenAfterTheQuestion) {
  const auto request = parsed({{"model", "m"},
                               {"messages", {user("Which gas do plants take in?\n\nA) Oxygen\nB) Carbon dioxide\nC) Helium\n")}}});
  EXPECT_EQ(request.answer_type, AnswerType::kChoice);
  EXPECT_TRUE(request.options_inferred);
  EXPECT_EQ(request.question, "Which gas do plants take in?");
  EXPECT_EQ(request.options, (std::vector<std::string>{"Oxygen", "Carbon dioxide", "Helium"}));
}

TEST(InferOptions, AcceptsTheUsualLabelStyles) {
  for (const char* question : {"Q?\n(A) one\n(B) two", "Q?\nA. one\nB. two", "Q?\nA: one\nB: two", "Q?\n  A) one\n  B) two  "}) {
    const auto inferred = infer_options(question);
    ASSERT_TRUE(inferred.has_value()) << question;
    EXPECT_EQ(inferred->question, "Q?");
    EXPECT_EQ(inferred->options, (std::vector<std::string>{"one", "two"})) << question;
  }
}

TEST(InferOptions, LeavesTextThatIsNotAnOptionBlockAlone) {
  EXPECT_FALSE(infer_options("What is 2+2?"));
  EXPECT_FALSE(infer_options("Q?\nA) only one"));                   // one option
  EXPECT_FALSE(infer_options("Q?\nB) two\nC) three"));              // does not start at A
  EXPECT_FALSE(infer_options("Q?\nA) one\nC) three"));              // skips B
  EXPECT_FALSE(infer_options("A) one\nB) two"));                     // no question before it
  EXPECT_FALSE(infer_options("Q?\nA) one\nB) two\nAnd then some prose."));  // not at the end
  EXPECT_FALSE(infer_options("Q?\nA)one\nB)two"));                  // no space after the mark
  EXPECT_FALSE(infer_options("I'm 90% sure.\nA. B. C. are initials"));
}

TEST(InferOptions, QuestionLinesThatLookLikeALaterLetterStayInTheQuestion) {
  const auto inferred = infer_options("Consider:\nX) a premise\nA) yes\nB) no");
  ASSERT_TRUE(inferred.has_value());
  EXPECT_EQ(inferred->question, "Consider:\nX) a premise");
  EXPECT_EQ(inferred->options, (std::vector<std::string>{"yes", "no"}));
}

TEST(ParseCompletionRequest, AnExplicitTextTypeDoesNotInferOptions) {
  const auto request = parsed({{"model", "m"}, {"messages", {user("Pick:\nA) x\nB) y")}}, {"parley", {{"answer_type", "text"}}}});
  EXPECT_EQ(request.answer_type, AnswerType::kText);
  EXPECT_EQ(request.question, "Pick:\nA) x\nB) y");
}

TEST(ParseCompletionRequest, RefusesWhatADebateCannotHonourNamingTheParameter) {
  struct Case {
    const char* body;
    const char* param;
  };
  const Case cases[] = {
      {R"({"messages":[{"role":"user","content":"q"}]})", "model"},
      {R"({"model":"m"})", "messages"},
      {R"({"model":"m","messages":[]})", "messages"},
      {R"({"model":"m","messages":[{"role":"assistant","content":"q"}]})", "messages[0].role"},
      {R"({"model":"m","messages":[{"role":"user","content":"   "}]})", "messages[0].content"},
      {R"({"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]})",
       "messages[0].content[0]"},
      {R"({"model":"m","messages":[{"role":"user","content":"q"}],"n":2})", "n"},
      {R"({"model":"m","messages":[{"role":"user","content":"q"}],"tools":[{"type":"function"}]})", "tools"},
      {R"({"model":"m","messages":[{"role":"user","content":"q"}],"logprobs":true})", "logprobs"},
      {R"({"model":"m","messages":[{"role":"user","content":"q"}],"response_format":{"type":"json_object"}})",
       "response_format"},
      {R"({"model":"m","messages":[{"role":"user","content":"q"}],"stream":"yes"})", "stream"},
      {R"({"model":"m","messages":[{"role":"user","content":"q"}],"seed":-1})", "seed"},
      {R"({"model":"m","messages":[{"role":"user","content":"q"}],"parley":{"budget":5}})", "parley.budget"},
      {R"({"model":"m","messages":[{"role":"user","content":"q"}],"parley":{"budget_tokens":0}})", "parley.budget_tokens"},
      {R"({"model":"m","messages":[{"role":"user","content":"q"}],"parley":{"deadline_s":-1}})", "parley.deadline_s"},
      {R"({"model":"m","messages":[{"role":"user","content":"q"}],"parley":{"answer_type":"label"}})", "parley.answer_type"},
      {R"({"model":"m","messages":[{"role":"user","content":"q"}],"parley":{"answer_type":"choice"}})", "parley"},
      {R"({"model":"m","messages":[{"role":"user","content":"q"}],"parley":{"options":["a","b"],"gold":"E"}})", "parley"},
      {R"({"model":"m","messages":[{"role":"user","content":"q"}],"parley":{"answer_type":"number","gold":"many"}})", "parley"},
  };
  for (const Case& c : cases) {
    const ApiError error = refused(c.body);
    EXPECT_EQ(error.status, 400) << c.body;
    EXPECT_EQ(error.type, "invalid_request_error") << c.body;
    EXPECT_EQ(error.param, c.param) << c.body << ": " << error.message;
    EXPECT_FALSE(error.message.empty());
  }
  for (const char* body : {"", "not json", "[1,2]", "{\"model\":", "null"}) {
    const ApiError error = refused(body);
    EXPECT_EQ(error.status, 400);
    EXPECT_EQ(error.code, "invalid_json") << body;
  }
}

TEST(ParseCompletionRequest, SaysWhatIsWrongWithABodyThatIsNoJsonObject) {
  EXPECT_EQ(refused("not json").message, "the request body is not JSON");
  EXPECT_EQ(refused("[1,2]").message, "the request body is JSON but not an object");
  // Invalid UTF-8 (inside a string nlohmann would also refuse it): named, with its place.
  const std::string stray = std::string(R"({"model":"m","messages":[{"role":"user","content":"caf)") + "\xe9" + "\"}]}";
  const ApiError invalid = refused(stray);
  EXPECT_EQ(invalid.message, "the request body is not valid UTF-8 (at byte 54)");
  EXPECT_EQ(invalid.code, "invalid_json");
  // Well-formed multi-byte characters are accepted; overlong forms, surrogates, values above
  // U+10FFFF and cut sequences are not.
  EXPECT_EQ(parsed({{"model", "m"}, {"messages", {user("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82")}}}).question,
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82");
  for (const char* bad : {"\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80",
                          "\xe2\x82", "\x80", "\xf0\x8f\xbf\xbf"}) {
    EXPECT_EQ(refused(std::string("\"") + bad + "\"").message, "the request body is not valid UTF-8 (at byte 1)") << bad;
  }
}

TEST(ParseCompletionRequest, NIsOneInAnyNumberForm) {
  for (const char* n : {"1", "1.0", "1e0", "10e-1"}) {
    const std::string body = std::string(R"({"model":"m","messages":[{"role":"user","content":"q"}],"n":)") + n + "}";
    EXPECT_TRUE(std::holds_alternative<CompletionRequest>(parse_completion_request(body))) << n;
  }
  for (const char* n : {"2", "1.5", "0", "-1", "0.999"}) {
    const std::string body = std::string(R"({"model":"m","messages":[{"role":"user","content":"q"}],"n":)") + n + "}";
    const ApiError error = refused(body);
    EXPECT_EQ(error.param, "n") << n;
    EXPECT_EQ(error.code, "unsupported_value") << n;
    EXPECT_EQ(error.message, "n must be 1: a served debate gives one answer") << n;
  }
  EXPECT_EQ(refused(R"({"model":"m","messages":[{"role":"user","content":"q"}],"n":"1"})").message,
            "n must be a number, and 1: a served debate gives one answer");
}

TEST(ParseCompletionRequest, EdgesOfTheLimitsAndContentParts) {
  EXPECT_EQ(parsed({{"model", "m"}, {"messages", {user("q")}}, {"parley", {{"budget_tokens", 1}}}}).budget_tokens, 1);
  const ApiError untyped = refused(R"({"model":"m","messages":[{"role":"user","content":[{"text":"q"}]}]})");
  EXPECT_EQ(untyped.param, "messages[0].content[0]");
  EXPECT_EQ(untyped.message, "each content part needs a type");
  EXPECT_EQ(refused(R"({"model":"m","messages":[{"role":"user","content":[{"type":7,"text":"q"}]}]})").message,
            "each content part needs a type");
}

TEST(ParseCompletionRequest, RefusesDeeplyNestedExtensionValuesAndControlCharactersInTaskIds) {
  const int depth = 200000;  // a 400 KB body: copying this value would overflow the stack
  for (const char* key : {"options", "gold", "tolerance", "answer_type"}) {
    const std::string body = std::string(R"({"model":"m","messages":[{"role":"user","content":"q"}],"parley":{")") +
                             key + "\":" + std::string(depth, '[') + std::string(depth, ']') + "}}";
    EXPECT_EQ(refused(body).param, std::string("parley.") + key);
  }
  EXPECT_EQ(refused(R"({"model":"m","messages":[{"role":"user","content":"q"}],"parley":{"options":["a",1]}})").param,
            "parley.options");
  EXPECT_EQ(refused(R"({"model":"m","messages":[{"role":"user","content":"q"}],"parley":{"task_id":"a\nFAKE 200"}})").param,
            "parley.task_id");
}

TEST(ErrorJson, IsOpenAiShapedWithNullsForAbsentFields) {
  const json error = json::parse(error_json({429, "slow down", "rate_limit_error", "", "rate_limit_exceeded"}));
  EXPECT_EQ(error, json::parse(R"({"error":{"message":"slow down","type":"rate_limit_error","param":null,
                                   "code":"rate_limit_exceeded"}})"));
}

MessageRecord call(int id, int round, std::string agent, std::string role, std::optional<std::string> answer,
                   std::string text, std::int64_t prompt, std::int64_t completion, std::int64_t cached = 0) {
  MessageRecord record;
  record.id = id;
  record.round = round;
  record.agent = std::move(agent);
  record.role = std::move(role);
  record.answer = std::move(answer);
  record.text = std::move(text);
  record.prompt_tokens = prompt;
  record.completion_tokens = completion;
  record.cached_tokens = cached;
  return record;
}

// Three agents answer, one re-asked, two revise, a judge decides: every call counts.
Transcript judged_debate() {
  Transcript t;
  t.task_id = "req-1";
  t.protocol = "mad-served";
  t.final_answer = "B";
  t.messages = {call(0, 0, "a1", "answer", "B", "a1: it is B.\nAnswer: B", 100, 20, 60),
                call(1, 0, "a2", "answer", std::nullopt, "hmm", 100, 5),
                call(2, 0, "a2", "reask", "C", "Answer: C", 130, 4, 100),
                call(3, 1, "a1", "revise", "B", "Still B.\nAnswer: B", 300, 30, 200),
                call(4, 1, "a2", "revise", "B", "I now agree: B.\nAnswer: B", 310, 31, 200),
                call(5, 1, "judge", "judge", "B", "{\"winner\": \"a1\"}", 400, 10)};
  t.events = {{1, "stop", "{\"reason\":\"consensus\"}"}};
  return t;
}

TEST(UsageOf, SumsEveryCallJudgesAndReAsksIncluded) {
  const DebateUsage usage = usage_of(judged_debate());
  EXPECT_EQ(usage.prompt_tokens, 100 + 100 + 130 + 300 + 310 + 400);
  EXPECT_EQ(usage.completion_tokens, 20 + 5 + 4 + 30 + 31 + 10);
  EXPECT_EQ(usage.cached_tokens, 60 + 100 + 200 + 200);
  EXPECT_FALSE(usage.estimated);
}

TEST(UsageOf, IsEstimatedWhenAnyCallsTokensWereCountedByParley) {
  Transcript t = judged_debate();
  EXPECT_FALSE(json::parse(completion_json({"x", "m", "mad", false}, t, 1))["usage"].contains("parley_estimated"));
  t.messages[1].tokens_estimated = true;  // one call of six, not the last
  EXPECT_TRUE(usage_of(t).estimated);
  EXPECT_EQ(json::parse(completion_json({"x", "m", "mad", false}, t, 1))["usage"]["parley_estimated"], true);
  EXPECT_EQ(json::parse(usage_chunk_json({"x", "m", "mad", false}, 1, t))["usage"]["parley_estimated"], true);
}

TEST(ParseCompletionRequest, StreamOptionsIncludeUsageMustBeABoolean) {
  const ApiError error =
      refused(R"({"model":"m","messages":[{"role":"user","content":"q"}],"stream":true,"stream_options":{"include_usage":1}})");
  EXPECT_EQ(error.param, "stream_options");
  EXPECT_EQ(error.message, "include_usage must be a boolean");
  EXPECT_FALSE(parsed({{"model", "m"}, {"messages", {user("q")}}, {"stream_options", json::object()}}).include_usage);
  EXPECT_FALSE(parsed({{"model", "m"}, {"messages", {user("q")}}, {"stream_options", nullptr}}).include_usage);
  EXPECT_EQ(refused(R"({"model":"m","messages":[{"role":"user","content":"q"}],"stream_options":"x"})").message,
            "stream_options must be an object");
}

TEST(ErrorJson, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  // A model name cut at 200 bytes inside "é" (0xC3 0xA9): the answer is still JSON.
  const std::string cut = "The model 'a\xC3' does not exist";
  const json error = json::parse(error_json({404, cut, "invalid_request_error", "model", "model_not_found"}));
  EXPECT_EQ(error["error"]["message"], "The model 'a\xEF\xBF\xBD' does not exist");
}

TEST(AnswerText, IsTheLatestAgentReplyStatingTheFinalAnswer) {
  Transcript t = judged_debate();
  EXPECT_EQ(answer_text(t), "Still B.\nAnswer: B");  // round 1, first seat; the judge's verdict is not a reply
  t.final_answer = "C";
  EXPECT_EQ(answer_text(t), "Answer: C");  // the re-ask that stated it
  t.final_answer = "D";
  EXPECT_EQ(answer_text(t), "Final answer: D");  // nobody wrote it (a vote's or judge's pick)
  t.final_answer.reset();
  t.status = DebateStatus::kFailed;
  t.status_reason = "a1's call failed after 5 attempts: HTTP 500";
  EXPECT_EQ(answer_text(t), "No answer: a1's call failed after 5 attempts: HTTP 500");
}

TEST(CompletionJson, CarriesTheAnswerUsageAndTheDebateSummary) {
  Transcript t = judged_debate();
  t.gold = "B";
  t.correct = true;
  const json out = json::parse(completion_json({"chatcmpl-7", "mad-served", "mad", true}, t, 1700000000));
  EXPECT_EQ(out["id"], "chatcmpl-7");
  EXPECT_EQ(out["object"], "chat.completion");
  EXPECT_EQ(out["created"], 1700000000);
  EXPECT_EQ(out["model"], "mad-served");
  EXPECT_EQ(out["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(out["choices"][0]["message"]["content"], "Still B.\nAnswer: B");
  EXPECT_EQ(out["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(out["usage"]["prompt_tokens"], 1340);
  EXPECT_EQ(out["usage"]["completion_tokens"], 100);
  EXPECT_EQ(out["usage"]["total_tokens"], 1440);
  EXPECT_EQ(out["usage"]["prompt_tokens_details"]["cached_tokens"], 560);
  const json& parley = out["parley"];
  EXPECT_EQ(parley["protocol"], "mad");
  EXPECT_EQ(parley["rounds"], 1);
  EXPECT_EQ(parley["calls"], 6);
  EXPECT_EQ(parley["debate_triggered"], true);
  EXPECT_EQ(parley["decision"], json::parse(R"({"answer":"B","status":"completed"})"));
  EXPECT_EQ(parley["transcript_id"], json::parse(R"({"task_id":"req-1","model":"mad-served","seed":0})"));
  EXPECT_EQ(parley["simulated"], true);
  EXPECT_EQ(parley["correct"], true);
}

TEST(CompletionJson, ABudgetEndIsFinishReasonLengthAndASkippedDebateIsNotTriggered) {
  Transcript t;
  t.final_answer = "A";
  t.status = DebateStatus::kBudget;
  t.status_reason = "deadline of 2.0 s reached";
  t.messages = {call(0, 0, "a1", "answer", "A", "Answer: A", 10, 2)};
  t.events = {{0, "trigger", R"({"method":"imad","decision":"skip"})"}};
  const json out = json::parse(completion_json({"x", "imad", "imad", false}, t, 1));
  EXPECT_EQ(out["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(out["parley"]["debate_triggered"], false);
  EXPECT_EQ(out["parley"]["decision"]["reason"], "deadline of 2.0 s reached");
  EXPECT_FALSE(out["parley"].contains("correct"));  // no gold, no correctness
  t.events = {{0, "trigger", R"({"method":"imad","decision":"debate"})"}};
  EXPECT_EQ(json::parse(completion_json({"x", "imad", "imad", false}, t, 1))["parley"]["debate_triggered"], true);
  t.events = {{0, "trigger", R"({"method":"imad"})"}};  // a trigger event without a decision says nothing
  EXPECT_EQ(json::parse(completion_json({"x", "imad", "imad", false}, t, 1))["parley"]["debate_triggered"], false);
  t.messages.push_back(call(1, 1, "a1", "revise", "A", "Answer: A", 10, 2));
  EXPECT_EQ(json::parse(completion_json({"x", "imad", "imad", false}, t, 1))["parley"]["debate_triggered"], true);
  t.messages.back().error = "cancelled: the deadline passed";  // a later turn cut off answers nothing
  EXPECT_EQ(json::parse(completion_json({"x", "imad", "imad", false}, t, 1))["parley"]["debate_triggered"], false);
  t.messages.pop_back();
  t.events.clear();  // no trigger event, no later round: no debate
  EXPECT_EQ(json::parse(completion_json({"x", "imad", "imad", false}, t, 1))["parley"]["debate_triggered"], false);
}

TEST(StreamChunks, AreChatCompletionChunksWithProgressInTheExtension) {
  const DebateSummary summary{"chatcmpl-9", "debate-3x2", "debate", true};
  const Transcript t = judged_debate();
  const json role = json::parse(role_chunk_json(summary, 5));
  EXPECT_EQ(role["object"], "chat.completion.chunk");
  EXPECT_EQ(role["choices"][0]["delta"], json::parse(R"({"role":"assistant","content":""})"));
  EXPECT_TRUE(role["choices"][0]["finish_reason"].is_null());

  const json progress = json::parse(call_chunk_json(summary, 5, t.messages[2]));
  EXPECT_EQ(progress["choices"][0]["delta"], json::object());
  EXPECT_EQ(progress["parley"]["progress"],
            json::parse(R"({"kind":"call","id":2,"round":0,"agent":"a2","role":"reask","answer":"C",
                           "prompt_tokens":130,"completion_tokens":4})"));
  const json event = json::parse(event_chunk_json(summary, 5, t.events[0]));
  EXPECT_EQ(event["parley"]["progress"],
            json::parse(R"({"kind":"event","round":1,"event":"stop","detail":"{\"reason\":\"consensus\"}"})"));

  EXPECT_EQ(json::parse(content_chunk_json(summary, 5, "Answer: B"))["choices"][0]["delta"]["content"], "Answer: B");
  const json finish = json::parse(finish_chunk_json(summary, 5, t));
  EXPECT_EQ(finish["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(finish["parley"]["decision"]["answer"], "B");
  const json usage = json::parse(usage_chunk_json(summary, 5, t));
  EXPECT_EQ(usage["choices"], json::array());
  EXPECT_EQ(usage["usage"]["total_tokens"], 1440);
}

TEST(TaskDifference, NamesTheFirstFieldInWhichAReusedTaskIdDiffers) {
  Task known;
  known.id = "t1";
  known.question = "Which gas?";
  known.options = {"Oxygen", "Carbon dioxide"};
  known.answer_type = AnswerType::kChoice;
  known.answer = "B";
  Task asked = known;
  EXPECT_EQ(task_difference(known, asked), std::nullopt);
  asked.id = "another id, not compared";
  EXPECT_EQ(task_difference(known, asked), std::nullopt);
  asked.question = "Which gas? ";
  EXPECT_EQ(task_difference(known, asked), "question");
  asked = known;
  asked.options = {"Oxygen", "Carbon dioxide", "Helium"};
  EXPECT_EQ(task_difference(known, asked), "options");
  asked = known;
  asked.answer_type = AnswerType::kText;
  EXPECT_EQ(task_difference(known, asked), "answer_type");
  asked = known;
  asked.answer = "";  // sent without gold: another task than one with it
  EXPECT_EQ(task_difference(known, asked), "gold");
  asked = known;
  asked.tolerance = 0.5;
  EXPECT_EQ(task_difference(known, asked), "tolerance");
  asked.question = "other";  // the first difference is named
  EXPECT_EQ(task_difference(known, asked), "question");
}

TEST(ClientCallError, SaysTheKindAndTheStatusNeverTheBackendsText) {
  EXPECT_EQ(client_call_error("http_status: HTTP 503: <html>upstream http://10.0.0.7:8000 sk-abc…</html>"),
            "backend call failed: HTTP 503");
  EXPECT_EQ(client_call_error("http_status: HTTP 429"), "backend call failed: HTTP 429");
  EXPECT_EQ(client_call_error("http_status: HTTP 5x"), "backend call failed: an HTTP error");
  EXPECT_EQ(client_call_error("http_status: something else"), "backend call failed: an HTTP error");
  EXPECT_EQ(client_call_error("timeout: http://10.0.0.7:8000/v1 took 600 s"), "backend call timed out");
  EXPECT_EQ(client_call_error("connection: could not connect to http://10.0.0.7:8000"), "backend connection failed");
  EXPECT_EQ(client_call_error("bad_response: <html>"), "backend reply could not be read");
  EXPECT_EQ(client_call_error("too_large: 9 MB"), "backend reply too large");
  EXPECT_EQ(client_call_error("unsupported: n"), "backend does not support the request");
  EXPECT_EQ(client_call_error("cancelled: client gone"), "call cancelled");
  EXPECT_EQ(client_call_error("whatever: http://10.0.0.7"), "backend call failed");
  EXPECT_EQ(client_call_error(""), "backend call failed");
}

TEST(DebateFailureMessage, NamesTheFailedCallSafelyAndTheStoredTask) {
  Transcript t = judged_debate();
  t.status = DebateStatus::kFailed;
  t.status_reason = "a2's call failed after 3 attempt(s): http_status: HTTP 500: secret http://10.0.0.7";
  EXPECT_EQ(debate_failure_message(t), "the debate failed (stored as task 'req-1')");  // no call failed
  t.messages[1].error = "timeout: http://10.0.0.7 took too long";
  t.messages[4].error = "http_status: HTTP 500: secret http://10.0.0.7";
  EXPECT_EQ(debate_failure_message(t), "the debate failed: backend call failed: HTTP 500 (stored as task 'req-1')");
  // A streamed call chunk says the same, not the text.
  const json progress = json::parse(call_chunk_json({"chatcmpl-9", "m", "debate", false}, 5, t.messages[4]));
  EXPECT_EQ(progress["parley"]["progress"]["error"], "backend call failed: HTTP 500");
}

TEST(ModelsJson, ListsTheServedModels) {
  const json out = json::parse(models_json({"debate-3x2", "imad"}, 7));
  EXPECT_EQ(out["object"], "list");
  ASSERT_EQ(out["data"].size(), 2u);
  EXPECT_EQ(out["data"][1], json::parse(R"({"id":"imad","object":"model","created":7,"owned_by":"parley"})"));
}

}  // namespace
}  // namespace parley::gateway
