#pragma once
// Evidence documents and their retrieval, MACI's pre-debate step (App. B.2, F.2): BM25 gives
// candidates, a dense reranker orders them, and the top k_ret = 32 are kept within a 4k-token
// context. load_evidence_corpus reads the documents; EvidenceIndex ranks them by BM25 (Xapian);
// rerank_within_budget / select_within_budget pick the context, pure and without Xapian.
// Values and free functions are safe from any thread; an EvidenceIndex is immutable once built
// but is safe to query from one thread at a time only (Xapian's database handles are not
// thread-safe), so give each thread its own index.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parley/result.h"
#include "parley/task.h"  // EvidenceDocument

namespace parley {

// A JSONL corpus: one object per non-blank line with "id" (a string, or an integer written as
// its decimal text) and "text" (a non-empty string); an optional "title" (a string) becomes
// the first line of the text, "<title>\n<text>". Ids and texts are trimmed of surrounding
// whitespace; other keys are ignored; blank lines, CRLF line ends and a UTF-8 BOM (starting the
// file or a line) are accepted. The first problem fails the whole load with one message naming
// the file and line ("corpus.jsonl: line 4: missing text", "line 2: not valid JSON (at byte
// 21)"; a duplicate id names both lines); so does a file without documents.
Result<std::vector<EvidenceDocument>> load_evidence_corpus(const std::filesystem::path& path);

// One BM25 candidate: its position in the index's documents and its score.
struct RetrievedDocument {
  std::size_t index = 0;
  double bm25 = 0.0;
};

// BM25 over an in-memory Xapian database, built once from the documents it keeps. Text is
// analysed the same way when indexed and when queried: Xapian's word splitting, lower case,
// English (Porter2) stemming of every word, and Lucene's 33-word English stop list dropped.
// Queries are bags of words joined by OR: no boolean operators, quotes or +/- prefixes (those
// are read as words or ignored); a hyphenated word ("x-ray") matches as a phrase.
// Scores are Xapian's BM25Weight with k1 = 1.2, b = 0.75 (the reading guide's choice, A.7: the
// paper gives none) and Xapian's defaults for the rest: k2 = 0 (no query-length correction),
// k3 = 1 (within-query frequency; inert here, since the query parser makes every word said a
// term of its own, so a word said twice counts twice), min_normlen = 0.5 (normalised document
// lengths below it are raised to it).
class EvidenceIndex {
 public:
  // An error only if Xapian reports one (not expected in memory); an empty corpus is a valid index.
  static Result<EvidenceIndex> build(std::vector<EvidenceDocument> documents);

  EvidenceIndex(EvidenceIndex&&) noexcept;
  EvidenceIndex& operator=(EvidenceIndex&&) noexcept;
  ~EvidenceIndex();

  const std::vector<EvidenceDocument>& documents() const;

  // Up to max_candidates documents sharing a term with the query, best BM25 score first, equal
  // scores in document order. An empty query, one of stop words only or one whose words no
  // document contains gives an empty list; an error only if Xapian reports one.
  Result<std::vector<RetrievedDocument>> search(std::string_view query, std::size_t max_candidates) const;

 private:
  struct State;
  explicit EvidenceIndex(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// MACI App. B.2: k_ret = 32 documents within a 4k-token context. Tokens are estimate_tokens
// (parley/chat.h, ceil(bytes / 4)) of the document texts only: ids and separators the caller
// adds around them in a prompt are not counted.
struct ContextBudget {
  std::size_t max_documents = 32;
  std::int64_t max_tokens = 4000;
};

// A document chosen for the context.
struct SelectedEvidence {
  std::size_t index = 0;              // position in the corpus, as in RetrievedDocument
  double bm25 = 0.0;
  std::optional<double> similarity;   // cosine to the query; none when ranked by BM25 alone
  std::int64_t tokens = 0;            // its estimate_tokens
};

// Orders the candidates (as search() returns them, best first) by the cosine similarity of their
// embedding to the query's, equal similarities in candidate (BM25) order, then keeps documents
// in that order while they fit: at most budget.max_documents, their tokens summing to at most
// budget.max_tokens. A document that does not fit in what is left of the budget — alone larger
// than the whole budget included — is skipped whole, never truncated, and later, shorter ones
// may still fit. candidate_embeddings[i] belongs to candidates[i]. An error when the counts
// differ, the vectors' lengths differ, or a value is not finite; throws std::out_of_range for a
// candidate index outside `documents` (a bug).
Result<std::vector<SelectedEvidence>> rerank_within_budget(std::span<const RetrievedDocument> candidates,
                                                           std::span<const EvidenceDocument> documents,
                                                           const std::vector<double>& query_embedding,
                                                           std::span<const std::vector<double>> candidate_embeddings,
                                                           const ContextBudget& budget = {});

// The built-in encoder φ for eq. (1) when no embedding model is configured (MACI names none,
// M-2): each word (a run of ASCII letters and digits, lower-cased, or of non-ASCII bytes) and
// each pair of adjacent words is hashed (FNV-1a 64) to one of `dimensions` slots with a sign
// from the hash's top bit, its count added there; the vector is scaled to unit length (all zero
// for a text without words). Texts sharing words have a positive cosine; unrelated texts about
// zero. Deterministic and platform-independent.
inline constexpr std::size_t kLexicalDimensions = 1024;
std::vector<double> lexical_embedding(std::string_view text, std::size_t dimensions = kLexicalDimensions);

// The same cut without embeddings (no embedding model configured): BM25 order as given.
std::vector<SelectedEvidence> select_within_budget(std::span<const RetrievedDocument> candidates,
                                                   std::span<const EvidenceDocument> documents,
                                                   const ContextBudget& budget = {});

}  // namespace parley
