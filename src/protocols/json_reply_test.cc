// read_json_reply: finding the verdict in a model's reply and checking it field by field.
#include "protocols/json_reply.h"

#include <gtest/gtest.h>

namespace parley {
namespace {

const ReplySchema kScore = {{"score", JsonField::Kind::kInteger, 1, 5, {}, true},
                            {"reason", JsonField::Kind::kString, 0, 0, {}, false}};

TEST(JsonReply, FindsTheObjectInsideProseAndFences) {
  auto r = read_json_reply("Here is my verdict:\n```json\n{\"score\": 4, \"reason\": \"solid {mostly}\"}\n```", kScore);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)["score"], 4);
  EXPECT_EQ((*r)["reason"], "solid {mostly}");
}

TEST(JsonReply, KeysAreMatchedCaseInsensitivelyAndNumbersMayBeStrings) {
  auto r = read_json_reply(R"({"Score": "5"})", kScore);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)["score"], 5);
  EXPECT_FALSE(r->contains("reason"));  // optional and absent
}

TEST(JsonReply, ProblemsAreDescribedForTheReask) {
  EXPECT_EQ(read_json_reply("I would give it a four.", kScore).error().message, "the reply contains no JSON object");
  EXPECT_EQ(read_json_reply(R"({"reason": "ok"})", kScore).error().message, "field \"score\" is missing");
  EXPECT_EQ(read_json_reply(R"({"score": 7})", kScore).error().message,
            "field \"score\" must be an integer from 1 to 5, got 7");
  EXPECT_EQ(read_json_reply(R"({"score": 3.5})", kScore).error().message,
            "field \"score\" must be an integer from 1 to 5, got 3.5");
  EXPECT_FALSE(read_json_reply(R"({"score": 3,)", kScore));  // truncated
}

TEST(JsonReply, ALaterValidObjectWinsOverAnEarlierInvalidOne) {
  auto r = read_json_reply(R"(Draft: {"score": 9}. Final: {"score": 2})", kScore);
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)["score"], 2);
}

TEST(JsonReply, ChoicesAndPermutations) {
  const ReplySchema schema = {{"winner", JsonField::Kind::kChoice, 0, 0, {"Response 1", "Response 2", "tie"}, true},
                              {"ranking", JsonField::Kind::kPermutation, 0, 0, {"A", "B", "C"}, true}};
  auto r = read_json_reply(R"({"winner": "response 2", "ranking": ["c", "A", "B"]})", schema);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)["winner"], "Response 2");
  EXPECT_EQ((*r)["ranking"], nlohmann::json({"C", "A", "B"}));
  EXPECT_FALSE(read_json_reply(R"({"winner": "Response 3", "ranking": ["A","B","C"]})", schema));
  EXPECT_FALSE(read_json_reply(R"({"winner": "tie", "ranking": ["A","A","C"]})", schema));
  EXPECT_FALSE(read_json_reply(R"({"winner": "tie", "ranking": ["A","B"]})", schema));
  EXPECT_FALSE(read_json_reply(R"({"winner": "tie", "ranking": ["A","B","C","D"]})", schema));
}

TEST(JsonReply, AcceptedFieldsAreNormalisedByTheirCallback) {
  JsonField answer{"answer", JsonField::Kind::kAccepted, 0, 0, {}, true};
  answer.accept = [](const std::string& v) -> std::optional<std::string> {
    if (v == "A" || v == "a" || v == "Mars") return "A";
    if (v == "2") return "B";
    return std::nullopt;
  };
  answer.expected = "one of \"A\", \"B\"";
  const ReplySchema schema = {answer};
  EXPECT_EQ(read_json_reply(R"({"answer": "Mars"})", schema).value()["answer"], "A");
  EXPECT_EQ(read_json_reply(R"({"answer": 2})", schema).value()["answer"], "B");  // numbers reach the callback as text
  EXPECT_EQ(read_json_reply(R"({"answer": "C"})", schema).error().message,
            "field \"answer\" must be one of \"A\", \"B\", got \"C\"");
  EXPECT_FALSE(read_json_reply(R"({"answer": ["A"]})", schema));
  EXPECT_EQ(describe_schema(schema), R"({"answer": <one of "A", "B">})");
}

TEST(JsonReply, BareObjectsMayOnlyBeFencedOrPadded) {
  EXPECT_TRUE(is_bare_json_object(R"({"a": 1})"));
  EXPECT_TRUE(is_bare_json_object("  \n{\"a\": {\"b\": \"}\"}}\n"));
  EXPECT_TRUE(is_bare_json_object("```json\n{\"a\": 1}\n```"));
  EXPECT_TRUE(is_bare_json_object("```{\"a\": 1}```"));
  EXPECT_FALSE(is_bare_json_object("Verdict: {\"a\": 1}"));
  EXPECT_FALSE(is_bare_json_object("{\"a\": 1} I hope this helps."));
  EXPECT_FALSE(is_bare_json_object("{\"a\": 1} {\"a\": 2}"));
  EXPECT_FALSE(is_bare_json_object("{\"a\": 1,}"));
  EXPECT_FALSE(is_bare_json_object("no object"));
}

TEST(JsonReply, DescribesTheSchemaForPrompts) {
  EXPECT_EQ(describe_schema(kScore), R"({"score": <an integer from 1 to 5>, "reason": "<text>"})");
}

}  // namespace
}  // namespace parley
