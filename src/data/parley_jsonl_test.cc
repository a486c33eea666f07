// parley JSONL rows: field defaults, answer canonicalisation and one issue per bad row.

#include <gtest/gtest.h>

#include "data/dataset_test_support.h"

namespace parley::data {
namespace {

Dataset read(std::string_view text, std::optional<std::size_t> limit = std::nullopt) {
  return read_with([](std::string_view t, DatasetBuilder& out) { read_parley_jsonl(t, nullptr, out); }, text, limit);
}

// The single issue of a one-row file, or "" if the row was accepted.
std::string issue_of(std::string_view row) {
  const Dataset dataset = read(row);
  if (dataset.issues.empty()) return "";
  EXPECT_EQ(dataset.issues.size(), 1u);
  EXPECT_EQ(dataset.issues[0].line, 1);
  return dataset.issues[0].message;
}

// The gold answer of a one-row file (which must be accepted).
std::string gold_of(std::string_view row) {
  const Dataset dataset = read(row);
  EXPECT_TRUE(dataset.issues.empty()) << dataset.issues[0].message;
  return dataset.tasks.size() == 1 ? dataset.tasks[0].answer : "<rejected>";
}

TEST(ParleyJsonl, ReadsAFullChoiceRow) {
  const Dataset dataset = read(
      R"({"id": "geo-1", "question": " Capital of France? ", "options": ["Lyon", "Paris", "Nice", "Metz"],)"
      R"( "answer": "B", "difficulty": 0.25, "source": "ignored"})");
  ASSERT_EQ(dataset.tasks.size(), 1u);
  const Task& task = dataset.tasks[0];
  EXPECT_EQ(task.id, "geo-1");
  EXPECT_EQ(task.question, "Capital of France?");
  EXPECT_EQ(task.options, (std::vector<std::string>{"Lyon", "Paris", "Nice", "Metz"}));
  EXPECT_EQ(task.answer_type, AnswerType::kChoice);
  EXPECT_EQ(task.answer, "B");
  EXPECT_EQ(task.difficulty, 0.25);
}

TEST(ParleyJsonl, ChoiceAnswersBecomeLetters) {
  const std::string options = R"("options": ["red", "green", "blue"], )";
  EXPECT_EQ(gold_of(R"({"question": "q", )" + options + R"("answer": "c"})"), "C");
  EXPECT_EQ(gold_of(R"({"question": "q", )" + options + R"("answer": 1})"), "B");  // 0-based index
  EXPECT_EQ(gold_of(R"({"question": "q", )" + options + R"("answer": "blue"})"), "C");
  EXPECT_EQ(gold_of(R"({"question": "q", )" + options + R"("answer": " A "})"), "A");
  // A letter wins over an option whose text is that letter.
  EXPECT_EQ(gold_of(R"({"question": "q", "options": ["B", "A"], "answer": "A"})"), "A");
}

TEST(ParleyJsonl, BadChoiceAnswersAreIssues) {
  const std::string options = R"("options": ["red", "green", "blue", "pink"], )";
  EXPECT_EQ(issue_of(R"({"question": "q", )" + options + R"("answer": "E"})"),
            "answer letter E out of range (4 options)");
  EXPECT_EQ(issue_of(R"({"question": "q", )" + options + R"("answer": 4})"),
            "answer index 4 out of range (0-based, 4 options)");
  EXPECT_EQ(issue_of(R"({"question": "q", )" + options + R"("answer": 1.5})"),
            "answer index 1.5 out of range (0-based, 4 options)");
  EXPECT_EQ(issue_of(R"({"question": "q", )" + options + R"("answer": "purple"})"),
            "answer 'purple' is not an option letter, index or option text");
  EXPECT_EQ(issue_of(R"({"question": "q", "answer_type": "choice", "answer": "A"})"),
            "answer_type choice needs options");
  EXPECT_EQ(issue_of(R"({"question": "q", "options": ["only"], "answer": "A"})"),
            "options must list at least 2 choices");
  EXPECT_EQ(issue_of(R"({"question": "q", "options": "A or B", "answer": "A"})"),
            "options must be an array of strings");
}

TEST(ParleyJsonl, NumberAnswersAreCanonical) {
  EXPECT_EQ(gold_of(R"({"question": "q", "answer": 72})"), "72");
  EXPECT_EQ(gold_of(R"({"question": "q", "answer": 3.0})"), "3");
  EXPECT_EQ(gold_of(R"({"question": "q", "answer": "1,234"})"), "1234");
  EXPECT_EQ(gold_of(R"({"question": "q", "answer": "-0.50"})"), "-0.5");
  EXPECT_EQ(gold_of(R"({"question": "q", "answer_type": "number", "answer": 0.125})"), "0.125");
  EXPECT_EQ(issue_of(R"({"question": "q", "answer_type": "number", "answer": "about 5"})"),
            "answer 'about 5' is not a number");
}

TEST(ParleyJsonl, AnswerTypeDefaultsFollowTheAnswer) {
  const Dataset dataset = read(
      "{\"question\": \"q1\", \"answer\": \"42\"}\n"
      "{\"question\": \"q2\", \"answer\": \" Paris \"}\n"
      "{\"question\": \"q3\", \"answer_type\": \"text\", \"answer\": 7}\n");
  ASSERT_EQ(dataset.tasks.size(), 3u);
  EXPECT_EQ(dataset.tasks[0].answer_type, AnswerType::kNumber);
  EXPECT_EQ(dataset.tasks[1].answer_type, AnswerType::kText);
  EXPECT_EQ(dataset.tasks[1].answer, "Paris");
  EXPECT_EQ(dataset.tasks[2].answer_type, AnswerType::kText);
  EXPECT_EQ(dataset.tasks[2].answer, "7");
  EXPECT_FALSE(dataset.tasks[0].difficulty.has_value());
}

TEST(ParleyJsonl, ForecastRowsWithTolerance) {
  const Dataset dataset = read(R"({"question": "Impact of the event on sticky core CPI?", "answer": 0.3,)"
                               R"( "answer_type": "forecast", "tolerance": 0.1})");
  ASSERT_EQ(dataset.tasks.size(), 1u);
  EXPECT_EQ(dataset.tasks[0].answer_type, AnswerType::kForecast);
  EXPECT_EQ(dataset.tasks[0].answer, "0.3");
  EXPECT_EQ(dataset.tasks[0].tolerance, 0.1);
  EXPECT_EQ(issue_of(R"({"question": "q", "answer": 1, "tolerance": -1})"), "tolerance must be a number >= 0");
  EXPECT_EQ(issue_of(R"({"question": "q", "answer": "Paris", "tolerance": 1})"),
            "tolerance applies to number and forecast answers only");
}

TEST(ParleyJsonl, IdsDefaultToTheLineAndMayBeNumbers) {
  const Dataset dataset = read("\n{\"question\": \"q\", \"answer\": 1}\r\n{\"id\": 17, \"question\": \"q\", \"answer\": 2}\n");
  ASSERT_EQ(dataset.tasks.size(), 2u);
  EXPECT_EQ(dataset.tasks[0].id, "line-2");  // the blank first line still counts
  EXPECT_EQ(dataset.tasks[1].id, "17");
}

TEST(ParleyJsonl, NumericIdsBeyondIntegerRangeAreKeptAsWritten) {
  // Beyond uint64 a JSON number is a double: both ids would become 1.2345678901234568e+29 and
  // the second row a duplicate. They are ids, so their text is kept.
  const Dataset dataset = read(
      "{\"id\": 123456789012345678901234567890, \"question\": \"q\", \"answer\": 1}\n"
      "{\"id\": 123456789012345678901234567891, \"question\": \"q\", \"answer\": 2}\n"
      "{\"meta\": {\"id\": 2.5}, \"id\": 18446744073709551615, \"question\": \"q\", \"answer\": 3}\n");
  ASSERT_TRUE(dataset.issues.empty()) << dataset.issues[0].message;
  ASSERT_EQ(dataset.tasks.size(), 3u);
  EXPECT_EQ(dataset.tasks[0].id, "123456789012345678901234567890");
  EXPECT_EQ(dataset.tasks[1].id, "123456789012345678901234567891");
  EXPECT_EQ(dataset.tasks[2].id, "18446744073709551615");  // uint64's largest is exact already
}

TEST(ParleyJsonl, MalformedRowsAreIssuesWithTheirLine) {
  const Dataset dataset = read(
      "{\"id\": \"a\", \"question\": \"ok\", \"answer\": 1}\n"   // 1 kept
      "{\"question\": \"no answer\"}\n"                         // 2
      "{\"answer\": 3}\n"                                       // 3
      "{not json\n"                                             // 4
      "[1, 2]\n"                                                // 5
      "{\"question\": \"q\", \"answer\": 1, \"answer_type\": \"date\"}\n"  // 6
      "{\"id\": \"a\", \"question\": \"again\", \"answer\": 2}\n"          // 7
      "{\"question\": \"q\", \"answer\": 1, \"difficulty\": 1.5}\n"       // 8
      "{\"question\": \"\", \"answer\": 1}\n"                              // 9
      "{\"question\": 5, \"answer\": 1}\n"                                 // 10
      "{\"id\": true, \"question\": \"q\", \"answer\": 1}\n"              // 11
      "{\"question\": \"q\", \"answer\": [1]}\n"                           // 12
      "{\"id\": \"b\", \"question\": \"fine\", \"answer\": null, \"options\": null}\n");  // 13
  ASSERT_EQ(dataset.tasks.size(), 1u);
  EXPECT_EQ(dataset.tasks[0].question, "ok");
  const std::vector<std::pair<int, std::string>> expected = {
      {2, "missing answer"},
      {3, "missing question"},
      {4, "not valid JSON"},
      {5, "row is not a JSON object"},
      {6, "unknown answer_type 'date' (choice|number|text|forecast|label)"},
      {7, "duplicate id 'a' (first used on line 1)"},
      {8, "difficulty must be a number in [0, 1]"},
      {9, "question is empty"},
      {10, "question must be a string"},
      {11, "id must be a string or a number"},
      {12, "answer must be a string"},
      {13, "missing answer"},
  };
  ASSERT_EQ(dataset.issues.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(dataset.issues[i].line, expected[i].first);
    EXPECT_EQ(dataset.issues[i].message, expected[i].second);
  }
}

TEST(ParleyJsonl, LimitKeepsTheFirstValidTasks) {
  const Dataset dataset = read(
      "{\"question\": \"q1\", \"answer\": 1}\n"
      "{\"question\": \"bad\"}\n"
      "{\"question\": \"q3\", \"answer\": 3}\n"
      "{\"question\": \"q4\", \"answer\": 4}\n",
      2);
  ASSERT_EQ(dataset.tasks.size(), 2u);
  EXPECT_EQ(dataset.tasks[1].question, "q3");
  EXPECT_EQ(dataset.issues.size(), 1u);
}

}  // namespace
}  // namespace parley::data

namespace parley::data {
namespace {

std::shared_ptr<const LabelSet> diagnoses() {
  auto set = LabelSet::make({"Dengue fever", "Hepatitis C", "Malaria"}, {{"HCV", "Hepatitis C"}}, false);
  return std::make_shared<const LabelSet>(std::move(*set));
}

Dataset read_labelled(std::string_view text, std::shared_ptr<const LabelSet> labels) {
  return read_with([&](std::string_view t, DatasetBuilder& out) { read_parley_jsonl(t, labels, out); }, text);
}

TEST(ParleyJsonlLabels, GoldIsStoredAsTheCanonicalLabelItsSynonymNames) {
  const auto labels = diagnoses();
  const Dataset dataset = read_labelled(
      "{\"id\": 1, \"question\": \"Jaundice, fatigue, IV drug use.\", \"answer\": \"hcv\", \"answer_type\": \"label\"}\n"
      "{\"id\": 2, \"question\": \"Fever after travel.\", \"answer\": \" malaria \", \"answer_type\": \"label\"}\n"
      "{\"id\": 3, \"question\": \"Rash.\", \"answer\": \"Measles\", \"answer_type\": \"label\"}\n"
      "{\"id\": 4, \"question\": \"2+2?\", \"answer\": 4}\n",
      labels);
  ASSERT_EQ(dataset.tasks.size(), 3u);
  EXPECT_EQ(dataset.tasks[0].answer, "Hepatitis C");
  EXPECT_EQ(dataset.tasks[0].answer_type, AnswerType::kLabel);
  EXPECT_EQ(dataset.tasks[0].labels, labels);
  EXPECT_EQ(dataset.tasks[1].answer, "Malaria");
  EXPECT_EQ(dataset.tasks[2].labels, nullptr);  // a number task takes no label set
  ASSERT_EQ(dataset.issues.size(), 1u);
  EXPECT_EQ(dataset.issues[0].line, 3);
  EXPECT_EQ(dataset.issues[0].message,
            "answer 'Measles' is not one of the 3 labels of dataset.labels (nor a synonym of one)");
}

TEST(ParleyJsonlLabels, WithoutALabelSetTheGoldIsKeptAsWritten) {
  const Dataset dataset =
      read_labelled("{\"question\": \"q\", \"answer\": \" Lyme disease \", \"answer_type\": \"label\"}\n", nullptr);
  ASSERT_EQ(dataset.tasks.size(), 1u);
  EXPECT_EQ(dataset.tasks[0].answer, "Lyme disease");
  EXPECT_EQ(dataset.tasks[0].labels, nullptr);
}

}  // namespace
}  // namespace parley::data

namespace parley::data {
namespace {

TEST(ParleyJsonlDocuments, ATaskCarriesItsOwnEvidence) {
  const Dataset dataset = read_with(
      [](std::string_view t, DatasetBuilder& out) { read_parley_jsonl(t, nullptr, out); },
      "{\"question\": \"Rate the bias.\", \"answer\": \"x\", \"documents\": [{\"id\": \"p1\", \"text\": \" Para one. \"}, "
      "{\"id\": 2, \"text\": \"Para two.\"}]}\n"
      "{\"question\": \"q\", \"answer\": \"x\", \"documents\": {\"id\": \"p1\"}}\n"
      "{\"question\": \"q\", \"answer\": \"x\", \"documents\": [{\"text\": \"t\"}]}\n"
      "{\"question\": \"q\", \"answer\": \"x\", \"documents\": [{\"id\": \"a\", \"text\": \" \"}]}\n"
      "{\"question\": \"q\", \"answer\": \"x\", \"documents\": [{\"id\": \"a\", \"text\": \"t\"}, {\"id\": \"a\", \"text\": \"u\"}]}\n"
      "{\"question\": \"q\", \"answer\": \"x\", \"documents\": [\"text\"]}\n");
  ASSERT_EQ(dataset.tasks.size(), 1u);
  ASSERT_EQ(dataset.tasks[0].documents.size(), 2u);
  EXPECT_EQ(dataset.tasks[0].documents[0].id, "p1");
  EXPECT_EQ(dataset.tasks[0].documents[0].text, "Para one.");
  EXPECT_EQ(dataset.tasks[0].documents[1].id, "2");
  const std::vector<std::string> expected = {
      "documents must be an array of {\"id\", \"text\"} objects",
      "documents[0] needs an id (a non-empty string or an integer)",
      "documents[0] needs a non-empty text",
      "documents[1]: duplicate document id 'a'",
      "documents[0] must be an object with id and text",
  };
  ASSERT_EQ(dataset.issues.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(dataset.issues[i].line, static_cast<int>(i) + 2);
    EXPECT_EQ(dataset.issues[i].message, expected[i]);
  }
}

TEST(TaskFromJson, ReadsOneRowWhoseAnswerMayBeAbsent) {
  auto text = task_from_json(R"({"id":"r1","question":"  Why?  "})");
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(text->id, "r1");
  EXPECT_EQ(text->question, "Why?");
  EXPECT_EQ(text->answer_type, AnswerType::kText);
  EXPECT_EQ(text->answer, "");
  auto choice = task_from_json(R"({"question":"Q","options":["x","y"]})");
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice->answer_type, AnswerType::kChoice);
  EXPECT_EQ(choice->id, "line-1");
  auto number = task_from_json(R"({"question":"Q","answer_type":"number"})");
  ASSERT_TRUE(number.ok());
  EXPECT_EQ(number->answer_type, AnswerType::kNumber);
  // A given answer is checked and made canonical as in a dataset.
  auto gold = task_from_json(R"({"question":"Q","options":["x","y"],"answer":1})");
  ASSERT_TRUE(gold.ok());
  EXPECT_EQ(gold->answer, "B");
  EXPECT_EQ(task_from_json(R"({"question":"Q","answer_type":"choice"})").error().message, "answer_type choice needs options");
  EXPECT_EQ(task_from_json(R"({"question":"Q","options":["x","y"],"answer":"C"})").error().message,
            "answer letter C out of range (2 options)");
  EXPECT_EQ(task_from_json("{").error().message, "not valid JSON");
  EXPECT_EQ(task_from_json(R"({"question":""})").error().message, "question is empty");
}

}  // namespace
}  // namespace parley::data
