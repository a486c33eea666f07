// parse_csv: RFC 4180 quoting, line endings, BOM, line numbers and malformed records.

#include <gtest/gtest.h>

#include "data/csv.h"

namespace parley::data {
namespace {

using Fields = std::vector<std::string>;

TEST(Csv, SplitsPlainRecords) {
  const auto records = parse_csv("a,b,c\n1,2,3\n");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].fields, (Fields{"a", "b", "c"}));
  EXPECT_EQ(records[1].fields, (Fields{"1", "2", "3"}));
  EXPECT_EQ(records[0].line, 1);
  EXPECT_EQ(records[1].line, 2);
  EXPECT_TRUE(records[1].error.empty());
}

TEST(Csv, QuotedFieldsKeepCommasQuotesAndLineBreaks) {
  const auto records = parse_csv("\"x, y\",\"say \"\"hi\"\"\",\"two\r\nlines\"\nnext,\"\",\n");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].fields, (Fields{"x, y", "say \"hi\"", "two\nlines"}));
  // The first record spans lines 1-2, so the next one starts on line 3.
  EXPECT_EQ(records[1].line, 3);
  EXPECT_EQ(records[1].fields, (Fields{"next", "", ""}));  // "" is empty, trailing comma adds one
}

TEST(Csv, HandlesCrlfBomBlankLinesAndNoFinalNewline) {
  const auto records = parse_csv("\xEF\xBB\xBFq,a\r\n\r\n\r\nr,b\rs,c");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].fields, (Fields{"q", "a"}));  // BOM gone
  EXPECT_EQ(records[1].line, 4);                     // two blank lines skipped
  EXPECT_EQ(records[1].fields, (Fields{"r", "b"}));
  EXPECT_EQ(records[2].line, 5);  // a lone CR ends a line too
  EXPECT_EQ(records[2].fields, (Fields{"s", "c"}));
}

TEST(Csv, QuoteInsideAnUnquotedFieldIsText) {
  const auto records = parse_csv("5\" screen,ok\n");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].fields, (Fields{"5\" screen", "ok"}));
  EXPECT_TRUE(records[0].error.empty());
}

TEST(Csv, ReportsTextAfterAClosingQuote) {
  const auto records = parse_csv("\"ab\"cd,e\nf,g\n");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].error, "unexpected text after a closing quote");
  EXPECT_EQ(records[1].fields, (Fields{"f", "g"}));  // the next record is unaffected
  EXPECT_TRUE(records[1].error.empty());
}

TEST(Csv, ReportsAnUnterminatedQuoteAtItsStartLine) {
  const auto records = parse_csv("a,b\nc,\"never closed\nmore\n");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_TRUE(records[0].error.empty());
  EXPECT_EQ(records[1].line, 2);
  EXPECT_EQ(records[1].error, "unterminated quoted field");
}

TEST(Csv, EmptyInputHasNoRecords) {
  EXPECT_TRUE(parse_csv("").empty());
  EXPECT_TRUE(parse_csv("\xEF\xBB\xBF\r\n\n").empty());
}

}  // namespace
}  // namespace parley::data
