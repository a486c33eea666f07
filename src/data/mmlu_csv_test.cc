// MMLU-style CSV rows: header detection, quoting, ids and issues for bad rows.

#include <gtest/gtest.h>

#include "data/dataset_test_support.h"

namespace parley::data {
namespace {

Dataset read(std::string_view text) {
  return read_with([](std::string_view t, DatasetBuilder& out) { read_mmlu_csv(t, "algebra", out); }, text);
}

TEST(MmluCsv, SkipsAHeaderInAnyCase) {
  const Dataset dataset = read("\xEF\xBB\xBFquestion,a,b,c,D,ANSWER\r\n\"What is 2+2, in base 10?\",3,4,5,6,B\r\n");
  ASSERT_EQ(dataset.tasks.size(), 1u);
  EXPECT_TRUE(dataset.issues.empty());
  const Task& task = dataset.tasks[0];
  EXPECT_EQ(task.id, "algebra-1");
  EXPECT_EQ(task.question, "What is 2+2, in base 10?");
  EXPECT_EQ(task.options, (std::vector<std::string>{"3", "4", "5", "6"}));
  EXPECT_EQ(task.answer_type, AnswerType::kChoice);
  EXPECT_EQ(task.answer, "B");
}

TEST(MmluCsv, ReadsFilesWithoutAHeader) {
  const Dataset dataset = read(
      "\"Line one\nline two\",\"say \"\"x\"\"\",\"0,1\",c,d,a\n"
      "Plain question,w,x,y,z,D\n");
  ASSERT_EQ(dataset.tasks.size(), 2u);
  EXPECT_EQ(dataset.tasks[0].id, "algebra-1");
  EXPECT_EQ(dataset.tasks[0].question, "Line one\nline two");
  EXPECT_EQ(dataset.tasks[0].options[0], "say \"x\"");
  EXPECT_EQ(dataset.tasks[0].options[1], "0,1");
  EXPECT_EQ(dataset.tasks[0].answer, "A");  // lower-case letter accepted
  EXPECT_EQ(dataset.tasks[1].id, "algebra-2");
  EXPECT_EQ(dataset.tasks[1].answer, "D");
}

TEST(MmluCsv, ReportsBadRowsAtTheirStartLineAndKeepsRowNumbering) {
  const Dataset dataset = read(
      "Question,A,B,C,D,Answer\n"   // line 1, header
      "q1,a,b,c,d,E\n"              // line 2, row 1: bad letter
      "q2,a,b,c,d\n"                // line 3, row 2: 5 columns
      "\"q3\nspans\",a,b,c,d,C\n"   // lines 4-5, row 3: fine
      ",a,b,c,d,A\n"                // line 6, row 4: empty question
      "\"q5\"x,a,b,c,d,A\n"         // line 7, row 5: text after quote
      "q6,a,b,c,d,AB\n"             // line 8, row 6: not one letter
      "q7,a,b,c,d,b\n");            // line 9, row 7: fine
  ASSERT_EQ(dataset.tasks.size(), 2u);
  EXPECT_EQ(dataset.tasks[0].id, "algebra-3");
  EXPECT_EQ(dataset.tasks[1].id, "algebra-7");
  const std::vector<std::pair<int, std::string>> expected = {
      {2, "answer 'E' is not a letter A-D"},
      {3, "expected 6 columns (question, A, B, C, D, answer), found 5"},
      {6, "question is empty"},
      {7, "unexpected text after a closing quote"},
      {8, "answer 'AB' is not a letter A-D"},
  };
  ASSERT_EQ(dataset.issues.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(dataset.issues[i].line, expected[i].first);
    EXPECT_EQ(dataset.issues[i].message, expected[i].second);
  }
}

TEST(MmluCsv, OnlyTheFirstRecordCanBeAHeader) {
  const Dataset dataset = read("q1,a,b,c,d,A\nQuestion,A,B,C,D,Answer\n");
  ASSERT_EQ(dataset.tasks.size(), 1u);
  ASSERT_EQ(dataset.issues.size(), 1u);
  EXPECT_EQ(dataset.issues[0].line, 2);
  EXPECT_EQ(dataset.issues[0].message, "answer 'Answer' is not a letter A-D");
}

}  // namespace
}  // namespace parley::data
