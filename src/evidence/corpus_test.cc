// The JSONL evidence corpus: accepted rows, hostile input, and one error naming the line.

#include <gtest/gtest.h>

#include <fstream>

#include "evidence/corpus_jsonl.h"
#include "scratch_files.h"

namespace parley::evidence {
namespace {

// The documents of a corpus text that must be accepted.
std::vector<EvidenceDocument> documents_of(std::string_view text) {
  auto documents = parse_evidence_jsonl(text);
  EXPECT_TRUE(documents.ok()) << documents.error().message;
  return documents.ok() ? *documents : std::vector<EvidenceDocument>{};
}

// The error of a corpus text that must be refused.
std::string error_of(std::string_view text) {
  auto documents = parse_evidence_jsonl(text);
  EXPECT_FALSE(documents.ok());
  return documents.ok() ? "<accepted>" : documents.error().message;
}

TEST(EvidenceCorpus, ReadsIdsTextsAndTitles) {
  const auto documents = documents_of(
      R"({"id": "flu", "text": "Fever and cough.", "source": "ignored"})" "\n"
      R"({"id": 7, "text": "  Rash on the arms.  "})" "\n"
      R"({"id": -3, "title": " Migraine ", "text": "Headache and nausea."})" "\n"
      R"({"id": " padded ", "title": null, "text": "Null title is no title."})" "\n"
      R"({"id": 18446744073709551615, "title": "  ", "text": "Blank title is no title."})");
  ASSERT_EQ(documents.size(), 5u);
  EXPECT_EQ(documents[0].id, "flu");
  EXPECT_EQ(documents[0].text, "Fever and cough.");
  EXPECT_EQ(documents[1].id, "7");
  EXPECT_EQ(documents[1].text, "Rash on the arms.");
  EXPECT_EQ(documents[2].id, "-3");
  EXPECT_EQ(documents[2].text, "Migraine\nHeadache and nausea.");
  EXPECT_EQ(documents[3].id, "padded");
  EXPECT_EQ(documents[3].text, "Null title is no title.");
  EXPECT_EQ(documents[4].id, "18446744073709551615");
  EXPECT_EQ(documents[4].text, "Blank title is no title.");
}

TEST(EvidenceCorpus, AcceptsBomCrlfAndBlankLinesAndCountsThemInLineNumbers) {
  const std::string text = "\xEF\xBB\xBF{\"id\": \"a\", \"text\": \"one\"}\r\n\r\n   \t\n{\"id\": \"b\", \"text\": \"two\"}\r\n";
  const auto documents = documents_of(text);
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[0].id, "a");
  EXPECT_EQ(documents[1].text, "two");
  EXPECT_EQ(error_of(text + "\r\n{\"id\": \"c\"}\r\n"), "line 6: missing text");
}

TEST(EvidenceCorpus, ABomAtTheStartOfALineIsAcceptedToo) {
  // Concatenated files keep their BOMs; nlohmann's parser skips one before a value.
  const auto documents = documents_of("{\"id\": \"a\", \"text\": \"one\"}\n\xEF\xBB\xBF{\"id\": \"b\", \"text\": \"two\"}");
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[1].id, "b");
  EXPECT_EQ(error_of("{\"id\": \"a\", \"text\": \"one\"}\n{\"id\": \xEF\xBB\xBF\"b\", \"text\": \"two\"}"),
            "line 2: not valid JSON (at byte 8)");
}

// The byte is the 1-based position in the line of the byte where parsing failed.
TEST(EvidenceCorpus, InvalidJsonNamesTheLineAndByte) {
  EXPECT_EQ(error_of("{\"id\": \"a\", \"text\": \"one\"}\n{\"id\": \"b\", \"text\": }"),
            "line 2: not valid JSON (at byte 21)");  // the '}'
  // "tr" could begin true; the 'a' cannot.
  EXPECT_EQ(error_of("{\"id\": \"a\", \"text\": \"one\"} trailing"), "line 1: not valid JSON (at byte 30)");
  EXPECT_EQ(error_of("{\"id\": \"a\", \"text\": \"bad \xFF byte\"}"), "line 1: not valid JSON (at byte 26)");  // the 0xFF
}

TEST(EvidenceCorpus, EachBadFieldHasItsOwnMessage) {
  EXPECT_EQ(error_of(R"(["id", "text"])"), "line 1: row is not a JSON object");
  EXPECT_EQ(error_of(R"("just a string")"), "line 1: row is not a JSON object");
  EXPECT_EQ(error_of(R"({"text": "no id"})"), "line 1: missing id");
  EXPECT_EQ(error_of(R"({"id": null, "text": "null id"})"), "line 1: missing id");
  EXPECT_EQ(error_of(R"({"id": 1.5, "text": "t"})"), "line 1: id must be a string or an integer");
  EXPECT_EQ(error_of(R"({"id": 1e3, "text": "t"})"), "line 1: id must be a string or an integer");
  EXPECT_EQ(error_of(R"({"id": true, "text": "t"})"), "line 1: id must be a string or an integer");
  EXPECT_EQ(error_of(R"({"id": ["a"], "text": "t"})"), "line 1: id must be a string or an integer");
  EXPECT_EQ(error_of(R"({"id": "  ", "text": "t"})"), "line 1: id is empty");
  EXPECT_EQ(error_of(R"({"id": "a"})"), "line 1: missing text");
  EXPECT_EQ(error_of(R"({"id": "a", "text": null})"), "line 1: missing text");
  EXPECT_EQ(error_of(R"({"id": "a", "text": 5})"), "line 1: text must be a string");
  EXPECT_EQ(error_of(R"({"id": "a", "text": " \t "})"), "line 1: text is empty");
  EXPECT_EQ(error_of(R"({"id": "a", "text": "t", "title": 3})"), "line 1: title must be a string");
}

TEST(EvidenceCorpus, ADuplicateIdNamesBothLines) {
  EXPECT_EQ(error_of(R"({"id": "flu", "text": "one"})" "\n\n"
                     R"({"id": "cold", "text": "two"})" "\n"
                     R"({"id": " flu", "text": "three"})"),
            "line 4: duplicate id 'flu' (first on line 1)");
  // An integer id and the same digits as a string are one id.
  EXPECT_EQ(error_of(R"({"id": 7, "text": "one"})" "\n" R"({"id": "7", "text": "two"})"),
            "line 2: duplicate id '7' (first on line 1)");
  const std::string long_id(70, 'x');
  EXPECT_EQ(error_of(R"({"id": ")" + long_id + R"(", "text": "a"})" "\n" R"({"id": ")" + long_id +
                     R"(", "text": "b"})"),
            "line 2: duplicate id '" + std::string(60, 'x') + "...' (first on line 1)");
  const std::string id_of_60(60, 'y');  // shown whole
  EXPECT_EQ(error_of(R"({"id": ")" + id_of_60 + R"(", "text": "a"})" "\n" R"({"id": ")" + id_of_60 +
                     R"(", "text": "b"})"),
            "line 2: duplicate id '" + id_of_60 + "' (first on line 1)");
}

TEST(EvidenceCorpus, TheFirstBadRowFailsTheLoad) {
  EXPECT_EQ(error_of(R"({"id": "a", "text": "ok"})" "\n" R"({"id": "b"})" "\n" R"({"id": "c", "text": 1})"),
            "line 2: missing text");
}

TEST(EvidenceCorpus, NoDocumentsIsAnError) {
  EXPECT_EQ(error_of(""), "no documents");
  EXPECT_EQ(error_of("\n \r\n\t\n"), "no documents");
  EXPECT_EQ(error_of("\xEF\xBB\xBF"), "no documents");
}

TEST(EvidenceCorpus, LoadsAFileAndPrefixesErrorsWithItsPath) {
  const auto dir = testing::fresh_scratch_dir("parley-evidence", "corpus");
  const auto good = dir / "good.jsonl";
  std::ofstream(good) << R"({"id": 1, "text": "Fever."})" "\n" R"({"id": 2, "text": "Rash."})" "\n";
  auto documents = load_evidence_corpus(good);
  ASSERT_TRUE(documents.ok()) << documents.error().message;
  ASSERT_EQ(documents->size(), 2u);
  EXPECT_EQ((*documents)[1].id, "2");
  EXPECT_EQ((*documents)[1].text, "Rash.");

  const auto bad = dir / "bad.jsonl";
  std::ofstream(bad) << R"({"id": 1, "text": "Fever."})" "\n" R"({"id": 1, "text": "Rash."})" "\n";
  auto duplicate = load_evidence_corpus(bad);
  ASSERT_FALSE(duplicate.ok());
  EXPECT_EQ(duplicate.error().message, bad.string() + ": line 2: duplicate id '1' (first on line 1)");

  auto missing = load_evidence_corpus(dir / "absent.jsonl");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, (dir / "absent.jsonl").string() + ": file not found");

  auto directory = load_evidence_corpus(dir);
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().message, dir.string() + ": is a directory, not a file");
}

}  // namespace
}  // namespace parley::evidence
