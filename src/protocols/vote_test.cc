#include "protocols/vote.h"

#include <gtest/gtest.h>

namespace parley {
namespace {

Answer answer(std::optional<std::string> value, std::optional<double> confidence = std::nullopt) {
  Answer a;
  a.value = std::move(value);
  a.confidence = confidence;
  return a;
}

TEST(MajorityVote, PluralityWins) {
  const auto vote = majority_vote({answer("B"), answer("A"), answer("B")});
  EXPECT_EQ(vote.winner, "B");
  EXPECT_EQ(vote.votes, 2);
  EXPECT_EQ(vote.voters, 3);
}

TEST(MajorityVote, ForecastsTakeTheMedian) {
  const auto odd = majority_vote({answer("0.3"), answer("-0.1"), answer(std::nullopt), answer("0.2")},
                                 AnswerType::kForecast);
  EXPECT_EQ(odd.winner, "0.2");
  EXPECT_EQ(odd.voters, 3);
  EXPECT_EQ(describe(odd), "median of 3 forecasts: 0.2");
  EXPECT_EQ(majority_vote({answer("0.3"), answer("0.1")}, AnswerType::kForecast).winner, "0.2");
  EXPECT_FALSE(majority_vote({answer(std::nullopt)}, AnswerType::kForecast).winner);
}

TEST(MajorityVote, UnparsedAnswersDoNotVote) {
  const auto vote = majority_vote({answer(std::nullopt), answer("C"), answer(std::nullopt)});
  EXPECT_EQ(vote.winner, "C");
  EXPECT_EQ(vote.voters, 1);
  EXPECT_FALSE(majority_vote({answer(std::nullopt)}).winner.has_value());
  EXPECT_FALSE(majority_vote({}).winner.has_value());
}

TEST(MajorityVote, TieGoesToHigherSummedConfidence) {
  const auto vote = majority_vote({answer("A", 0.6), answer("B", 0.9), answer("A", 0.2), answer("B", 0.1)});
  // A: 0.8 total, B: 1.0 total.
  EXPECT_EQ(vote.winner, "B");
}

TEST(MajorityVote, FullTieGoesToFirstAppearance) {
  EXPECT_EQ(majority_vote({answer("D"), answer("A")}).winner, "D");
  EXPECT_EQ(majority_vote({answer("A"), answer("D")}).winner, "A");
}

}  // namespace
}  // namespace parley

namespace parley {
namespace {

TEST(MajorityVote, FreeTextGroupsByNormalisedForm) {
  auto text = [](std::string v) { return Answer{std::move(v), std::nullopt, {}}; };
  const auto vote = majority_vote({text("Paris."), text("Lyon"), text("the paris")}, AnswerType::kText);
  EXPECT_EQ(vote.winner, "Paris.");  // spelled as its first voter wrote it
  EXPECT_EQ(vote.votes, 2);
  EXPECT_EQ(describe(vote), "2 of 3 for Paris.");
  // Numbers are never merged by text normalisation: "-3" and "3" differ.
  const auto numbers = majority_vote({text("-3"), text("3"), text("3")}, AnswerType::kNumber);
  EXPECT_EQ(numbers.winner, "3");
  EXPECT_EQ(numbers.votes, 2);
}

}  // namespace
}  // namespace parley
