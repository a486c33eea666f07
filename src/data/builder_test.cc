// DatasetBuilder (duplicate ids, limit) and the shared text helpers.

#include <gtest/gtest.h>

#include "data/readers.h"

namespace parley::data {
namespace {

Task task_with_id(std::string id) {
  Task task;
  task.id = std::move(id);
  task.question = "q";
  task.answer = "a";
  return task;
}

TEST(DatasetBuilder, SkipsADuplicateIdWithAnIssue) {
  DatasetBuilder builder(std::nullopt);
  builder.add(task_with_id("x"), 3);
  builder.add(task_with_id("y"), 4);
  builder.add(task_with_id("x"), 9);
  const Dataset dataset = builder.take();
  ASSERT_EQ(dataset.tasks.size(), 2u);
  EXPECT_EQ(dataset.tasks[1].id, "y");
  ASSERT_EQ(dataset.issues.size(), 1u);
  EXPECT_EQ(dataset.issues[0].line, 9);
  EXPECT_EQ(dataset.issues[0].message, "duplicate id 'x' (first used on line 3)");
}

TEST(DatasetBuilder, IsFullAtTheLimit) {
  DatasetBuilder builder(2);
  EXPECT_FALSE(builder.full());
  builder.add(task_with_id("a"), 1);
  builder.add(task_with_id("a"), 2);  // a duplicate does not count
  EXPECT_FALSE(builder.full());
  builder.add(task_with_id("b"), 3);
  EXPECT_TRUE(builder.full());
}

TEST(PlainNumber, AcceptsPlainDecimalNumbers) {
  EXPECT_EQ(parse_plain_number("72"), 72.0);
  EXPECT_EQ(parse_plain_number("  -3 "), -3.0);
  EXPECT_EQ(parse_plain_number("+4.5"), 4.5);
  EXPECT_EQ(parse_plain_number("1,234.5"), 1234.5);
  EXPECT_EQ(parse_plain_number("2,880,000"), 2880000.0);
  EXPECT_EQ(parse_plain_number(".25"), 0.25);
  EXPECT_EQ(parse_plain_number("1e3"), 1000.0);
  EXPECT_EQ(parse_plain_number("-2.5E-1"), -0.25);
}

TEST(PlainNumber, RejectsAnythingElse) {
  for (const char* text : {"", " ", "-", ".", "abc", "5 apples", "$5", "1/2", ",5", "5,", "1,,2", "1e", "1e+",
                           "1.2.3", "0x10", "inf", "nan", "1e999"}) {
    EXPECT_FALSE(parse_plain_number(text).has_value()) << text;
  }
}

TEST(NonBlankLines, NumbersLinesAndStripsCrAndBom) {
  const auto lines = non_blank_lines("\xEF\xBB\xBF{\"a\":1}\r\n\n  \r\n{\"b\":2}");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].line, 1);
  EXPECT_EQ(lines[0].text, "{\"a\":1}");
  EXPECT_EQ(lines[1].line, 4);
  EXPECT_EQ(lines[1].text, "{\"b\":2}");
}

TEST(Trim, StripsAsciiWhitespace) {
  EXPECT_EQ(trim("  a b\t\r\n"), "a b");
  EXPECT_EQ(trim(" \n"), "");
}

}  // namespace
}  // namespace parley::data
