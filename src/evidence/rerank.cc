// MACI App. B.2: BM25 candidates reordered by a dense reranker, the top k_ret = 32 kept within
// a 4k-token context. Pure: embeddings come from the caller (LlmClient::embed), never Xapian.

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "parley/chat.h"
#include "parley/evidence.h"

namespace parley {
namespace {

bool all_finite(const std::vector<double>& vector) {
  return std::all_of(vector.begin(), vector.end(), [](double x) { return std::isfinite(x); });
}

Result<Ok> check_embeddings(std::size_t candidates, const std::vector<double>& query,
                            std::span<const std::vector<double>> embeddings) {
  if (embeddings.size() != candidates) {
    return Error{"rerank: " + std::to_string(embeddings.size()) + " embeddings for " + std::to_string(candidates) +
                 " candidates"};
  }
  if (!all_finite(query)) return Error{"rerank: the query embedding has a value that is not finite"};
  for (std::size_t i = 0; i < embeddings.size(); ++i) {
    if (embeddings[i].size() != query.size()) {
      return Error{"rerank: embedding " + std::to_string(i) + " has " + std::to_string(embeddings[i].size()) +
                   " dimensions, the query's " + std::to_string(query.size())};
    }
    if (!all_finite(embeddings[i])) {
      return Error{"rerank: embedding " + std::to_string(i) + " has a value that is not finite"};
    }
  }
  return Ok{};
}

const EvidenceDocument& document_at(std::span<const EvidenceDocument> documents, std::size_t index) {
  if (index >= documents.size()) {
    throw std::out_of_range("evidence candidate " + std::to_string(index) + " of " +
                            std::to_string(documents.size()) + " documents");
  }
  return documents[index];
}

// Walks the ranking and keeps each document that fits what is left of the budget; one that
// does not is skipped whole (never truncated) and the walk goes on to shorter ones.
std::vector<SelectedEvidence> cut_to_budget(std::vector<SelectedEvidence> ranked, const ContextBudget& budget) {
  std::vector<SelectedEvidence> kept;
  std::int64_t used = 0;
  for (SelectedEvidence& entry : ranked) {
    if (kept.size() >= budget.max_documents) break;
    if (entry.tokens > budget.max_tokens - used) continue;
    used += entry.tokens;
    kept.push_back(std::move(entry));
  }
  return kept;
}

std::vector<SelectedEvidence> in_bm25_order(std::span<const RetrievedDocument> candidates,
                                            std::span<const EvidenceDocument> documents) {
  std::vector<SelectedEvidence> ranked;
  ranked.reserve(candidates.size());
  for (const RetrievedDocument& candidate : candidates) {
    const EvidenceDocument& document = document_at(documents, candidate.index);
    ranked.push_back({candidate.index, candidate.bm25, std::nullopt, estimate_tokens(document.text)});
  }
  return ranked;
}

}  // namespace

Result<std::vector<SelectedEvidence>> rerank_within_budget(std::span<const RetrievedDocument> candidates,
                                                           std::span<const EvidenceDocument> documents,
                                                           const std::vector<double>& query_embedding,
                                                           std::span<const std::vector<double>> candidate_embeddings,
                                                           const ContextBudget& budget) {
  if (auto checked = check_embeddings(candidates.size(), query_embedding, candidate_embeddings); !checked) {
    return checked.error();
  }
  std::vector<SelectedEvidence> ranked = in_bm25_order(candidates, documents);
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    ranked[i].similarity = cosine_similarity(query_embedding, candidate_embeddings[i]);
  }
  // Stable: equal similarities keep the candidates' BM25 order.
  std::stable_sort(ranked.begin(), ranked.end(), [](const SelectedEvidence& a, const SelectedEvidence& b) {
    return *a.similarity > *b.similarity;
  });
  return cut_to_budget(std::move(ranked), budget);
}

std::vector<SelectedEvidence> select_within_budget(std::span<const RetrievedDocument> candidates,
                                                   std::span<const EvidenceDocument> documents,
                                                   const ContextBudget& budget) {
  return cut_to_budget(in_bm25_order(candidates, documents), budget);
}

}  // namespace parley
