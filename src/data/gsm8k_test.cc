// GSM8K rows: the gold after "####", ids from the line number, issues for bad rows.

#include <gtest/gtest.h>

#include "data/dataset_test_support.h"

namespace parley::data {
namespace {

TEST(Gsm8k, TakesTheNumberAfterTheLastMarker) {
  const Dataset dataset = read_with(read_gsm8k,
                                    "{\"question\": \"How many?\", \"answer\": \"3 + 4 = <<3+4=7>>7\\n#### 7\"}\n"
                                    "\n"
                                    "{\"question\": \"Cost?\", \"answer\": \"#### 5 is wrong\\n#### 1,000\"}\n"
                                    "{\"question\": \"Loss?\", \"answer\": \"#### -12\", \"extra\": 1}\n");
  ASSERT_EQ(dataset.tasks.size(), 3u);
  EXPECT_TRUE(dataset.issues.empty());
  EXPECT_EQ(dataset.tasks[0].id, "gsm8k-1");
  EXPECT_EQ(dataset.tasks[0].question, "How many?");
  EXPECT_EQ(dataset.tasks[0].answer, "7");
  EXPECT_EQ(dataset.tasks[0].answer_type, AnswerType::kNumber);
  EXPECT_TRUE(dataset.tasks[0].options.empty());
  EXPECT_EQ(dataset.tasks[1].id, "gsm8k-3");  // line 2 is blank
  EXPECT_EQ(dataset.tasks[1].answer, "1000");
  EXPECT_EQ(dataset.tasks[2].answer, "-12");
}

TEST(Gsm8k, ReportsRowsWithoutAUsableAnswer) {
  const Dataset dataset = read_with(read_gsm8k,
                                    "{\"question\": \"a\", \"answer\": \"no marker\"}\n"
                                    "{\"question\": \"b\", \"answer\": \"#### twelve\"}\n"
                                    "{\"answer\": \"#### 1\"}\n"
                                    "{\"question\": \"c\"\n"
                                    "{\"question\": \"d\", \"answer\": \"#### 4\"}\n");
  ASSERT_EQ(dataset.tasks.size(), 1u);
  EXPECT_EQ(dataset.tasks[0].id, "gsm8k-5");
  ASSERT_EQ(dataset.issues.size(), 4u);
  EXPECT_EQ(dataset.issues[0].line, 1);
  EXPECT_EQ(dataset.issues[0].message, "answer has no '#### <number>' line");
  EXPECT_EQ(dataset.issues[1].message, "the text after '####' is not a number");
  EXPECT_EQ(dataset.issues[2].message, "missing question");
  EXPECT_EQ(dataset.issues[3].line, 4);
  EXPECT_EQ(dataset.issues[3].message, "not valid JSON");
}

}  // namespace
}  // namespace parley::data
