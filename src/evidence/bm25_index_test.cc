// EvidenceIndex: BM25 order and scores pinned by hand, stemming, stop words, hostile queries,
// determinism.

#include <gtest/gtest.h>

#include "parley/evidence.h"

namespace parley {
namespace {

// Analysed (Porter2 stems, stop words dropped), the texts are:
//   0 fever cough fatigu                          (3 terms)
//   1 fever fever rash                            (3)
//   2 headach nausea blur vision after long day   (7)
//   3 cough                                       (1: normalised length 1/3.2 < 0.5, clamped)
//   4 rash arm                                    (2)
// N = 5 documents, average length 16/5 = 3.2.
std::vector<EvidenceDocument> symptoms() {
  return {{"d0", "Fever and cough with fatigue"},
          {"d1", "Fevers, fever, rash"},
          {"d2", "Headache, nausea and blurred vision after a long day"},
          {"d3", "Coughing"},
          {"d4", "Rash on the arms"}};
}

EvidenceIndex index_of(std::vector<EvidenceDocument> documents) {
  auto index = EvidenceIndex::build(std::move(documents));
  EXPECT_TRUE(index.ok()) << index.error().message;
  return std::move(index).value();
}

std::vector<RetrievedDocument> search(const EvidenceIndex& index, std::string_view query, std::size_t max = 10) {
  auto found = index.search(query, max);
  EXPECT_TRUE(found.ok()) << found.error().message;
  return found.ok() ? *found : std::vector<RetrievedDocument>{};
}

std::vector<std::size_t> order_of(const std::vector<RetrievedDocument>& found) {
  std::vector<std::size_t> order;
  for (const RetrievedDocument& entry : found) order.push_back(entry.index);
  return order;
}

// Expected scores from Xapian 1.4's BM25Weight (weight/bm25weight.cc), computed in plain
// Python: tw = (N − n + 0.5) / (n + 0.5), raised to tw/2 + 1 when below 2; term weight
// ln(tw)·(k1 + 1) (k3's factor is 1 for a word said once); a document adds
// termweight · wdf / (k1·(b·L + 1 − b) + wdf), L = max(len / 3.2, 0.5); k1 = 1.2, b = 0.75.
constexpr double kFeverInD0 = 0.5445514413232769;  // n = 2: tw = 1.4 → 1.7; wdf 1, L = 3/3.2
constexpr double kFeverInD1 = 0.7426685660989423;  // wdf 2, L = 3/3.2
constexpr double kCoughInD3 = 0.6670755156210142;  // n = 2; wdf 1, L clamped to 0.5
constexpr double kHeadacheInD2 = 0.7394101828129536;  // n = 1: tw = 3 (no raise); L = 7/3.2
constexpr double kRashInD4 = 0.6267823636707517;   // n = 2; wdf 1, L = 2/3.2
constexpr double kTolerance = 1e-12;

TEST(EvidenceIndex, ScoresAreXapiansBm25WithK1AndBOfTheGuide) {
  const EvidenceIndex index = index_of(symptoms());
  const auto fever = search(index, "fever");
  ASSERT_EQ(order_of(fever), (std::vector<std::size_t>{1, 0}));  // twice in as long a text
  EXPECT_NEAR(fever[0].bm25, kFeverInD1, kTolerance);
  EXPECT_NEAR(fever[1].bm25, kFeverInD0, kTolerance);

  const auto headache = search(index, "headache");
  ASSERT_EQ(order_of(headache), (std::vector<std::size_t>{2}));
  EXPECT_NEAR(headache[0].bm25, kHeadacheInD2, kTolerance);

  const auto rash = search(index, "rash");
  ASSERT_EQ(order_of(rash), (std::vector<std::size_t>{4, 1}));  // once each: the shorter text first
  EXPECT_NEAR(rash[0].bm25, kRashInD4, kTolerance);
  EXPECT_NEAR(rash[1].bm25, kFeverInD0, kTolerance);  // same n, wdf and length as fever in d0
}

TEST(EvidenceIndex, WordsOfTheQueryAddUp) {
  const EvidenceIndex index = index_of(symptoms());
  // d0 has both words; d1 fever twice; d3 cough once in the shortest text.
  const auto found = search(index, "coughs and fever");
  ASSERT_EQ(order_of(found), (std::vector<std::size_t>{0, 1, 3}));
  EXPECT_NEAR(found[0].bm25, 2 * kFeverInD0, kTolerance);  // cough and fever weigh alike in d0
  EXPECT_NEAR(found[1].bm25, kFeverInD1, kTolerance);
  EXPECT_NEAR(found[2].bm25, kCoughInD3, kTolerance);
}

// The query parser makes each word said a term of its own (within-query frequency 1), so k3
// never changes a score and a word said twice counts twice.
TEST(EvidenceIndex, AWordRepeatedInTheQueryCountsAgain) {
  const EvidenceIndex index = index_of(symptoms());
  const auto twice = search(index, "fever fevers");
  ASSERT_EQ(order_of(twice), (std::vector<std::size_t>{1, 0}));
  EXPECT_NEAR(twice[0].bm25, 2 * kFeverInD1, kTolerance);
  EXPECT_NEAR(twice[1].bm25, 2 * kFeverInD0, kTolerance);
}

TEST(EvidenceIndex, MaxCandidatesKeepsTheBest) {
  const EvidenceIndex index = index_of(symptoms());
  EXPECT_EQ(order_of(search(index, "coughs and fever", 2)), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(order_of(search(index, "coughs and fever", 1)), (std::vector<std::size_t>{0}));
  EXPECT_TRUE(search(index, "coughs and fever", 0).empty());
  EXPECT_EQ(search(index, "coughs and fever", 1000).size(), 3u);
}

TEST(EvidenceIndex, StemmingMatchesInflections) {
  const EvidenceIndex index = index_of(symptoms());
  EXPECT_EQ(order_of(search(index, "fevers")), (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(order_of(search(index, "coughed")), (std::vector<std::size_t>{3, 0}));
  EXPECT_EQ(order_of(search(index, "ARM")), (std::vector<std::size_t>{4}));
  EXPECT_EQ(order_of(search(index, "blurring visions")), (std::vector<std::size_t>{2}));
}

TEST(EvidenceIndex, EqualScoresComeInDocumentOrder) {
  const EvidenceIndex index = index_of({{"a", "beta gamma"}, {"b", "alpha"}, {"c", "alpha"}, {"d", "alpha"}});
  const auto found = search(index, "alpha");
  ASSERT_EQ(order_of(found), (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_EQ(found[0].bm25, found[2].bm25);
  EXPECT_EQ(order_of(search(index, "alpha", 2)), (std::vector<std::size_t>{1, 2}));
}

TEST(EvidenceIndex, StopWordsUnknownWordsAndEmptyQueriesFindNothing) {
  const EvidenceIndex index = index_of(symptoms());
  EXPECT_TRUE(search(index, "").empty());
  EXPECT_TRUE(search(index, "   \t\n").empty());
  EXPECT_TRUE(search(index, "?!, ...").empty());
  EXPECT_TRUE(search(index, "the and with on a").empty());  // stop words, all in the texts
  EXPECT_TRUE(search(index, "zebra quokka").empty());
  EXPECT_TRUE(search(index, "the zebra").empty());
  // A stop word beside a real one changes nothing.
  const auto with_stop_word = search(index, "the rash");
  const auto without = search(index, "rash");
  ASSERT_EQ(order_of(with_stop_word), order_of(without));
  for (std::size_t i = 0; i < without.size(); ++i) EXPECT_EQ(with_stop_word[i].bm25, without[i].bm25);
}

TEST(EvidenceIndex, QuerySyntaxIsReadAsWords) {
  const EvidenceIndex index = index_of(symptoms());
  using namespace std::string_view_literals;
  for (std::string_view query :
       {"NOT"sv, "AND OR"sv, "((("sv, "\"unterminated"sv, "fever*"sv, "a\x01\xFF\xFE b"sv, "nul\0byte"sv}) {
    EXPECT_TRUE(index.search(query, 5).ok()) << query;
  }
  // "-cough" excludes nothing: it is the word cough.
  EXPECT_EQ(order_of(search(index, "fever -cough")), (std::vector<std::size_t>{0, 1, 3}));
  EXPECT_EQ(order_of(search(index, "fever AND rash")), (std::vector<std::size_t>{1, 4, 0}));
}

TEST(EvidenceIndex, PunctuationBetweenWordsSeparatesThem) {
  const EvidenceIndex index = index_of({{"a", "Dengue fever with rash"}, {"b", "Pain behind the eyes"}});
  // Joined by ':' or '.', Xapian would read a phrase and find neither.
  EXPECT_EQ(order_of(search(index, "Symptoms:fever")), (std::vector<std::size_t>{0}));
  EXPECT_EQ(order_of(search(index, "pain.dengue")), order_of(search(index, "pain dengue")));
  EXPECT_FALSE(search(index, "pain.dengue").empty());
}

TEST(EvidenceIndex, AHyphenatedWordMatchesAsAPhrase) {
  const EvidenceIndex index = index_of({{"a", "A ray seen on x"}, {"b", "Chest x-ray"}, {"c", "x ray"}});
  // Analysed: a "ray seen x", b "chest x ray", c "x ray". The phrase leaves a out; c, shorter,
  // comes first.
  EXPECT_EQ(order_of(search(index, "x-ray")), (std::vector<std::size_t>{2, 1}));
  // As two words a matches too, level with b (same terms, same length), so in document order.
  EXPECT_EQ(order_of(search(index, "x ray")), (std::vector<std::size_t>{2, 0, 1}));
}

TEST(EvidenceIndex, AnEmptyCorpusIsAValidIndex) {
  const EvidenceIndex index = index_of({});
  EXPECT_TRUE(index.documents().empty());
  EXPECT_TRUE(search(index, "fever").empty());
}

TEST(EvidenceIndex, KeepsItsDocumentsAndSurvivesAMove) {
  EvidenceIndex index = index_of(symptoms());
  EvidenceIndex moved = std::move(index);
  ASSERT_EQ(moved.documents().size(), 5u);
  EXPECT_EQ(moved.documents()[3].id, "d3");
  EXPECT_EQ(moved.documents()[3].text, "Coughing");
  EXPECT_EQ(order_of(search(moved, "fever")), (std::vector<std::size_t>{1, 0}));

  EvidenceIndex assigned = index_of({{"z", "zebra"}});
  assigned = std::move(moved);
  ASSERT_EQ(assigned.documents().size(), 5u);
  EXPECT_EQ(order_of(search(assigned, "fever")), (std::vector<std::size_t>{1, 0}));
  EXPECT_TRUE(search(assigned, "zebra").empty());
}

TEST(EvidenceIndex, IsDeterministic) {
  const EvidenceIndex first = index_of(symptoms());
  const EvidenceIndex second = index_of(symptoms());
  for (const char* query : {"fever", "coughs and fever", "rash arms headache", "blurred long fatigue"}) {
    const auto a = search(first, query);
    const auto b = search(second, query);
    const auto again = search(first, query);
    ASSERT_EQ(a.size(), b.size()) << query;
    ASSERT_EQ(a.size(), again.size()) << query;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].index, b[i].index) << query;
      EXPECT_EQ(a[i].bm25, b[i].bm25) << query;  // bit for bit
      EXPECT_EQ(a[i].index, again[i].index) << query;
      EXPECT_EQ(a[i].bm25, again[i].bm25) << query;
    }
  }
}

}  // namespace
}  // namespace parley
