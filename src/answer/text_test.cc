// normalize_text and free-text answers (through parse_answer on a text task).
#include <gtest/gtest.h>

#include "parley/answer.h"

namespace parley {
namespace {

Task text_task(std::string gold = "Paris") {
  Task task;
  task.answer_type = AnswerType::kText;
  task.answer = std::move(gold);
  return task;
}

std::optional<std::string> text_answer(std::string_view reply) { return parse_answer(reply, text_task()).value; }

TEST(NormalizeText, LowerCasePunctuationArticlesWhitespace) {
  EXPECT_EQ(normalize_text("The  Eiffel Tower!"), "eiffel tower");
  EXPECT_EQ(normalize_text("  A cat, an owl and THE dog. "), "cat owl and dog");
  EXPECT_EQ(normalize_text("U.S.A."), "usa");
  EXPECT_EQ(normalize_text("1,000"), "1000");
  EXPECT_EQ(normalize_text("Theory of an apple"), "theory of apple");  // only whole-word articles
  EXPECT_EQ(normalize_text("don\xE2\x80\x99t \xE2\x80\x9Cstop\xE2\x80\x9D"), "dont stop");
  EXPECT_EQ(normalize_text("caf\xC3\xA9\xC2\xA0" "au lait"), "caf\xC3\xA9 au lait");
  EXPECT_EQ(normalize_text(""), "");
  EXPECT_EQ(normalize_text("the a an ..."), "");
}

TEST(TextAnswer, AfterTheLastAnswerStatement) {
  EXPECT_EQ(text_answer("It is in France.\nAnswer: Paris\nConfidence: 90%"), "Paris");
  EXPECT_EQ(text_answer("Answer: Lyon\nHmm, no.\nFinal answer: **Paris.**"), "Paris");
  EXPECT_EQ(text_answer("Answer: Paris (confidence: 90%)"), "Paris");
  EXPECT_EQ(text_answer("Answer:\n\"Marie Curie\"\nConfidence: 70%"), "Marie Curie");
  EXPECT_EQ(text_answer("The answer is the Nile."), "the Nile");
}

TEST(TextAnswer, LastLineWhenNoStatement) {
  EXPECT_EQ(text_answer("Thinking about capitals.\n\nParis\n\nConfidence: 80%\n"), "Paris");
  EXPECT_EQ(text_answer("Paris"), "Paris");
}

TEST(TextAnswer, NothingStated) {
  EXPECT_EQ(text_answer(""), std::nullopt);
  EXPECT_EQ(text_answer("\n  \n**\n"), std::nullopt);
  EXPECT_EQ(text_answer("Confidence: 80%"), std::nullopt);
}

}  // namespace
}  // namespace parley
