// The dense rerank and the context budget (MACI App. B.2), pinned by hand.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "parley/evidence.h"

namespace parley {
namespace {

// A text of exactly `tokens` estimated tokens (estimate_tokens: ceil(bytes / 4)).
std::string text_of_tokens(std::int64_t tokens) { return std::string(static_cast<std::size_t>(4 * tokens), 'w'); }

// Four documents of 10, 10, 30 and 5 tokens; BM25 ranked them 0, 1, 2, 3.
struct Fixture {
  std::vector<EvidenceDocument> documents{{"a", text_of_tokens(10)},
                                          {"b", text_of_tokens(10)},
                                          {"c", text_of_tokens(30)},
                                          {"d", text_of_tokens(5)}};
  std::vector<RetrievedDocument> candidates{{0, 4.0}, {1, 3.0}, {2, 2.0}, {3, 1.0}};
  std::vector<double> query{1.0, 0.0};
};

std::vector<std::size_t> order_of(const std::vector<SelectedEvidence>& selected) {
  std::vector<std::size_t> order;
  for (const SelectedEvidence& entry : selected) order.push_back(entry.index);
  return order;
}

std::vector<SelectedEvidence> reranked(const Fixture& f, const std::vector<std::vector<double>>& embeddings,
                                       const ContextBudget& budget) {
  auto selected = rerank_within_budget(f.candidates, f.documents, f.query, embeddings, budget);
  EXPECT_TRUE(selected.ok()) << selected.error().message;
  return selected.ok() ? *selected : std::vector<SelectedEvidence>{};
}

// Cosines to the query (1, 0): a −1, b √½, c 1, d √½ (d equals b, so b stays before d).
const std::vector<std::vector<double>> kEmbeddings{{-2.0, 0.0}, {1.0, 1.0}, {3.0, 0.0}, {2.0, 2.0}};
constexpr ContextBudget kRoomy{.max_documents = 10, .max_tokens = 1000};

TEST(EvidenceRerank, OrdersByCosineWithTiesInBm25Order) {
  const Fixture f;
  const auto selected = reranked(f, kEmbeddings, kRoomy);
  ASSERT_EQ(order_of(selected), (std::vector<std::size_t>{2, 1, 3, 0}));
  ASSERT_TRUE(selected[0].similarity && selected[1].similarity && selected[3].similarity);
  EXPECT_NEAR(*selected[0].similarity, 1.0, 1e-15);
  EXPECT_NEAR(*selected[1].similarity, std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(*selected[3].similarity, -1.0, 1e-15);
  EXPECT_EQ(selected[0].bm25, 2.0);  // each keeps its own BM25 score and tokens
  EXPECT_EQ(selected[0].tokens, 30);
  EXPECT_EQ(selected[2].tokens, 5);

  // Swapping b's and d's BM25 places swaps them in the tie too.
  Fixture swapped;
  swapped.candidates = {{0, 4.0}, {3, 3.0}, {2, 2.0}, {1, 1.0}};
  const std::vector<std::vector<double>> same_vectors{{-2.0, 0.0}, {2.0, 2.0}, {3.0, 0.0}, {1.0, 1.0}};
  EXPECT_EQ(order_of(reranked(swapped, same_vectors, kRoomy)), (std::vector<std::size_t>{2, 3, 1, 0}));
}

TEST(EvidenceRerank, AZeroEmbeddingHasCosineZero) {
  const Fixture f;
  const auto selected = reranked(f, {{-2.0, 0.0}, {0.0, 0.0}, {3.0, 0.0}, {2.0, 2.0}}, kRoomy);
  ASSERT_EQ(order_of(selected), (std::vector<std::size_t>{2, 3, 1, 0}));
  EXPECT_EQ(*selected[2].similarity, 0.0);
}

TEST(EvidenceRerank, ADocumentThatDoesNotFitIsSkippedWholeAndShorterOnesStillFit) {
  const Fixture f;
  // Ranked c(30) b(10) d(5) a(10). With 28 tokens c alone is too long; b and d fit (15); a
  // would make 25 and fits too.
  auto selected = reranked(f, kEmbeddings, {.max_documents = 10, .max_tokens = 28});
  EXPECT_EQ(order_of(selected), (std::vector<std::size_t>{1, 3, 0}));
  // With 24 tokens a (10 more than 15) no longer fits.
  EXPECT_EQ(order_of(reranked(f, kEmbeddings, {.max_documents = 10, .max_tokens = 24})),
            (std::vector<std::size_t>{1, 3}));
  // With 40, c and b fill it exactly; d and a are left out.
  EXPECT_EQ(order_of(reranked(f, kEmbeddings, {.max_documents = 10, .max_tokens = 40})),
            (std::vector<std::size_t>{2, 1}));
  // With 44, c and b (40) leave room for d (5)? No: 45 > 44. Nothing but c and b.
  EXPECT_EQ(order_of(reranked(f, kEmbeddings, {.max_documents = 10, .max_tokens = 44})),
            (std::vector<std::size_t>{2, 1}));
  EXPECT_EQ(order_of(reranked(f, kEmbeddings, {.max_documents = 10, .max_tokens = 45})),
            (std::vector<std::size_t>{2, 1, 3}));
  EXPECT_TRUE(reranked(f, kEmbeddings, {.max_documents = 10, .max_tokens = 4}).empty());
}

TEST(EvidenceRerank, KeepsAtMostMaxDocuments) {
  const Fixture f;
  EXPECT_EQ(order_of(reranked(f, kEmbeddings, {.max_documents = 2, .max_tokens = 1000})),
            (std::vector<std::size_t>{2, 1}));
  EXPECT_EQ(order_of(reranked(f, kEmbeddings, {.max_documents = 1, .max_tokens = 1000})),
            (std::vector<std::size_t>{2}));
  EXPECT_TRUE(reranked(f, kEmbeddings, {.max_documents = 0, .max_tokens = 1000}).empty());
  // Skipped documents do not count against k: c is too long, then b and d make two.
  EXPECT_EQ(order_of(reranked(f, kEmbeddings, {.max_documents = 2, .max_tokens = 28})),
            (std::vector<std::size_t>{1, 3}));
}

TEST(EvidenceRerank, DefaultsAreThePapersKRetAnd4kTokens) {
  const ContextBudget defaults;
  EXPECT_EQ(defaults.max_documents, 32u);
  EXPECT_EQ(defaults.max_tokens, 4000);
  // 40 candidates of 100 tokens: k_ret binds (32 × 100 = 3,200 tokens).
  std::vector<EvidenceDocument> documents;
  std::vector<RetrievedDocument> candidates;
  for (std::size_t i = 0; i < 40; ++i) {
    documents.push_back({std::to_string(i), text_of_tokens(100)});
    candidates.push_back({i, 40.0 - static_cast<double>(i)});
  }
  EXPECT_EQ(select_within_budget(candidates, documents).size(), 32u);
  // Of 150 tokens each: the 4,000 tokens bind (26 × 150 = 3,900).
  for (EvidenceDocument& document : documents) document.text = text_of_tokens(150);
  EXPECT_EQ(select_within_budget(candidates, documents).size(), 26u);
  const std::vector<std::vector<double>> embeddings(40, std::vector<double>{1.0});
  auto reranked_default = rerank_within_budget(candidates, documents, {1.0}, embeddings);
  ASSERT_TRUE(reranked_default.ok());
  EXPECT_EQ(reranked_default->size(), 26u);
}

TEST(EvidenceRerank, WithoutEmbeddingsKeepsBm25Order) {
  const Fixture f;
  const auto selected = select_within_budget(f.candidates, f.documents, {.max_documents = 10, .max_tokens = 28});
  // a(10) b(10) fit, c(30) does not, d(5) does: 25 tokens.
  ASSERT_EQ(order_of(selected), (std::vector<std::size_t>{0, 1, 3}));
  EXPECT_FALSE(selected[0].similarity.has_value());
  EXPECT_EQ(selected[2].bm25, 1.0);
  EXPECT_EQ(selected[2].tokens, 5);
  EXPECT_TRUE(select_within_budget({}, f.documents).empty());
}

TEST(EvidenceRerank, TokensAreEstimatedFromTheText) {
  const std::vector<EvidenceDocument> documents{{"x", "12345"}, {"y", ""}};
  const std::vector<RetrievedDocument> candidates{{0, 1.0}, {1, 0.5}};
  const auto selected = select_within_budget(candidates, documents, {.max_documents = 5, .max_tokens = 2});
  ASSERT_EQ(selected.size(), 2u);
  EXPECT_EQ(selected[0].tokens, 2);  // ceil(5 / 4)
  EXPECT_EQ(selected[1].tokens, 0);
}

TEST(EvidenceRerank, MismatchedEmbeddingsAreErrors) {
  const Fixture f;
  const auto error_of = [&](const std::vector<double>& query, const std::vector<std::vector<double>>& embeddings) {
    auto selected = rerank_within_budget(f.candidates, f.documents, query, embeddings, kRoomy);
    EXPECT_FALSE(selected.ok());
    return selected.ok() ? std::string("<accepted>") : selected.error().message;
  };
  EXPECT_EQ(error_of(f.query, {{1.0, 0.0}, {1.0, 0.0}, {1.0, 0.0}}), "rerank: 3 embeddings for 4 candidates");
  EXPECT_EQ(error_of(f.query, {{1.0, 0.0}, {1.0, 0.0}, {1.0}, {1.0, 0.0}}),
            "rerank: embedding 2 has 1 dimensions, the query's 2");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(error_of(f.query, {{1.0, 0.0}, {1.0, 0.0}, {1.0, 0.0}, {nan, 0.0}}),
            "rerank: embedding 3 has a value that is not finite");
  EXPECT_EQ(error_of({0.0, inf}, kEmbeddings), "rerank: the query embedding has a value that is not finite");
}

TEST(EvidenceRerank, ACandidateOutsideTheCorpusIsABug) {
  const Fixture f;
  const std::vector<RetrievedDocument> stray{{4, 1.0}};
  EXPECT_THROW((void)select_within_budget(stray, f.documents), std::out_of_range);
  const std::vector<std::vector<double>> one{{1.0, 0.0}};
  EXPECT_THROW((void)rerank_within_budget(stray, f.documents, f.query, one), std::out_of_range);
}

TEST(EvidenceRerank, IsDeterministic) {
  const Fixture f;
  const auto first = reranked(f, kEmbeddings, kRoomy);
  const auto second = reranked(f, kEmbeddings, kRoomy);
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].index, second[i].index);
    EXPECT_EQ(first[i].similarity, second[i].similarity);
  }
}

}  // namespace
}  // namespace parley
