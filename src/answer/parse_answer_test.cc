// parse_answer dispatch (value, confidence, beliefs per task type) and answers_match.
#include <gtest/gtest.h>

#include "parley/answer.h"

namespace parley {
namespace {

Task make_task(AnswerType type, std::string gold, std::vector<std::string> options = {}) {
  Task task;
  task.id = "t";
  task.answer_type = type;
  task.answer = std::move(gold);
  task.options = std::move(options);
  return task;
}

const Task kDiagnosis =
    make_task(AnswerType::kChoice, "A", {"Dengue fever", "Chikungunya", "Zika virus", "Malaria"});

TEST(ParseAnswer, ChoiceFillsValueConfidenceAndBeliefs) {
  const Answer answer = parse_answer(
      "Fever and rash after travel.\nDengue fever 60%, Chikungunya 25%, C 15%\nAnswer: A\nConfidence: 80%", kDiagnosis);
  EXPECT_TRUE(answer.parsed());
  EXPECT_EQ(answer.value, "A");
  ASSERT_TRUE(answer.confidence);
  EXPECT_DOUBLE_EQ(*answer.confidence, 0.8);
  ASSERT_EQ(answer.beliefs.size(), 3u);
  EXPECT_EQ(answer.beliefs[0].label, "A");  // option text -> letter
  EXPECT_DOUBLE_EQ(answer.beliefs[0].probability, 0.6);
  EXPECT_EQ(answer.beliefs[1].label, "B");
  EXPECT_EQ(answer.beliefs[2].label, "C");  // already a letter
}

TEST(ParseAnswer, ChoiceBeliefLabelsThatNameNoOptionStayAsWritten) {
  const Answer answer = parse_answer("Option A: 0.5, (B): 0.2, E: 0.1, Measles: 0.2\nAnswer: A", kDiagnosis);
  ASSERT_EQ(answer.beliefs.size(), 4u);
  EXPECT_EQ(answer.beliefs[0].label, "A");
  EXPECT_EQ(answer.beliefs[1].label, "B");
  EXPECT_EQ(answer.beliefs[2].label, "E");  // beyond the options: left alone
  EXPECT_EQ(answer.beliefs[3].label, "Measles");
}

TEST(ParseAnswer, NumberIsCanonical) {
  const Task task = make_task(AnswerType::kNumber, "1234.5");
  const Answer answer = parse_answer("Sum the items.\nAnswer: $1,234.50\nConfidence: 75%", task);
  EXPECT_EQ(answer.value, "1234.5");
  EXPECT_DOUBLE_EQ(*answer.confidence, 0.75);
  EXPECT_TRUE(answer.beliefs.empty());
  EXPECT_EQ(parse_answer("\\boxed{\\frac{3}{4}}", task).value, "0.75");
  EXPECT_EQ(parse_answer("#### -5", task).value, "-5");
  EXPECT_EQ(parse_answer("Confidence: 75%", task).value, std::nullopt);
}

TEST(ParseAnswer, TextKeepsTheAnswerAsWritten) {
  const Task task = make_task(AnswerType::kText, "Paris");
  const Answer answer = parse_answer("Answer: Paris\nConfidence: 0.9", task);
  EXPECT_EQ(answer.value, "Paris");
  EXPECT_DOUBLE_EQ(*answer.confidence, 0.9);
}

TEST(ParseAnswer, UnparsableHasNoValue) {
  const Answer answer = parse_answer("I am not sure at all.", kDiagnosis);
  EXPECT_FALSE(answer.parsed());
  EXPECT_FALSE(answer.confidence);
  EXPECT_TRUE(answer.beliefs.empty());
  EXPECT_FALSE(parse_answer("Answer: F\nConfidence: 90%", kDiagnosis).parsed());
  EXPECT_DOUBLE_EQ(*parse_answer("Answer: F\nConfidence: 90%", kDiagnosis).confidence, 0.9);
}

TEST(AnswersMatch, ChoiceByLetterIgnoringCase) {
  const Task task = make_task(AnswerType::kChoice, "B", {"x", "y", "z"});
  EXPECT_TRUE(answers_match(task, "B"));
  EXPECT_TRUE(answers_match(task, "b"));
  EXPECT_TRUE(answers_match(task, " B "));
  EXPECT_FALSE(answers_match(task, "C"));
  EXPECT_FALSE(answers_match(task, ""));
  EXPECT_FALSE(answers_match(task, "BB"));
}

TEST(AnswersMatch, NumbersWithTolerance) {
  const Task big = make_task(AnswerType::kNumber, "1000000");
  EXPECT_TRUE(answers_match(big, "1000000"));
  EXPECT_TRUE(answers_match(big, "1000000.9"));   // relative error 9e-7
  EXPECT_FALSE(answers_match(big, "1000001.1"));  // relative error 1.1e-6
  EXPECT_TRUE(answers_match(big, "1,000,000"));
  const Task zero = make_task(AnswerType::kNumber, "0");
  EXPECT_TRUE(answers_match(zero, "0.0000000005"));  // absolute 5e-10 near zero
  EXPECT_FALSE(answers_match(zero, "0.000000002"));
  EXPECT_TRUE(answers_match(zero, "-0"));
  const Task fraction = make_task(AnswerType::kNumber, "0.75");
  EXPECT_TRUE(answers_match(fraction, "3/4"));
  EXPECT_FALSE(answers_match(fraction, "0.76"));
  EXPECT_FALSE(answers_match(fraction, "n/a"));
  EXPECT_FALSE(answers_match(make_task(AnswerType::kNumber, "unknown"), "0"));
}

TEST(ParseAnswer, ForecastReadsTheImpactLineElseTheFirstSignedPercentage) {
  const Task forecast = make_task(AnswerType::kForecast, "0.3");
  EXPECT_EQ(parse_answer("Prices rise +0.5% first.\nImpact: +0.25%\nConfidence: 70%", forecast).value, "0.25");
  EXPECT_EQ(parse_answer("I expect -0.1% on core CPI.", forecast).value, "-0.1");
  EXPECT_FALSE(parse_answer("Answer: 0.3", forecast).value);  // not a forecast by the paper's rule
  EXPECT_EQ(parse_answer("Impact: +0.3%\nConfidence: 70%", forecast).confidence, 0.7);
}

TEST(AnswersMatch, ForecastAndNumberWithinTheTasksTolerance) {
  Task forecast = make_task(AnswerType::kForecast, "0.3");
  EXPECT_FALSE(answers_match(forecast, "0.25"));
  forecast.tolerance = 0.05;
  EXPECT_TRUE(answers_match(forecast, "0.25"));
  EXPECT_TRUE(answers_match(forecast, "0.35"));
  EXPECT_FALSE(answers_match(forecast, "0.36"));
  Task number = make_task(AnswerType::kNumber, "100");
  number.tolerance = 1.0;
  EXPECT_TRUE(answers_match(number, "99"));
  EXPECT_FALSE(answers_match(number, "98.9"));
}

TEST(AnswersMatch, TextAfterNormalisation) {
  const Task task = make_task(AnswerType::kText, "The Eiffel Tower");
  EXPECT_TRUE(answers_match(task, "eiffel tower"));
  EXPECT_TRUE(answers_match(task, "  Eiffel   Tower. "));
  EXPECT_FALSE(answers_match(task, "Eiffel"));
  EXPECT_FALSE(answers_match(task, "the"));  // nothing left to compare
}

}  // namespace
}  // namespace parley
