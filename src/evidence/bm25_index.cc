// EvidenceIndex: BM25 candidates for MACI's retrieval (App. B.2) from an in-memory Xapian
// database. The one file that sees Xapian; its exceptions become Errors here.

#include <xapian.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "parley/evidence.h"

namespace parley {
namespace {

// Lucene's English stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), the usual BM25 baseline.
constexpr const char* kStopWords[] = {"a",    "an",   "and",  "are",   "as",    "at",    "be",
                                      "but",  "by",   "for",  "if",    "in",    "into",  "is",
                                      "it",   "no",   "not",  "of",    "on",    "or",    "such",
                                      "that", "the",  "their", "then", "there", "these", "they",
                                      "this", "to",   "was",  "will",  "with"};

// The reading guide's k1 and b (A.7; the paper gives none); k2, k3 and min_normlen as Xapian's
// own defaults.
constexpr double kK1 = 1.2;
constexpr double kK2 = 0.0;
constexpr double kK3 = 1.0;  // inert: the query parser gives every word said its own term, wqf 1
constexpr double kB = 0.75;
constexpr double kMinNormalizedLength = 0.5;

// Bag-of-words queries: no boolean operators, phrases in quotes, +/- or wildcards, so that
// no query text can be a syntax error.
constexpr unsigned kQueryFlags = 0;

// The query as words: ASCII punctuation other than a hyphen or an apostrophe read as a space, so
// that "Symptoms:fever" or "pain.dengue" are two words, not a phrase Xapian would require.
std::string query_words(std::string_view query) {
  std::string words(query);
  for (char& c : words) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::ispunct(byte) && c != '-' && c != '\'') c = ' ';
  }
  return words;
}

Error xapian_error(const char* what, const Xapian::Error& error) {
  return Error{std::string("evidence index: ") + what + ": " + error.get_description()};
}

}  // namespace

struct EvidenceIndex::State {
  std::vector<EvidenceDocument> documents;
  Xapian::WritableDatabase database{std::string(), Xapian::DB_BACKEND_INMEMORY};
  Xapian::Stem stemmer{"en"};
  Xapian::SimpleStopper stop_words{std::begin(kStopWords), std::end(kStopWords)};
};

EvidenceIndex::EvidenceIndex(std::unique_ptr<State> state) : state_(std::move(state)) {}
EvidenceIndex::EvidenceIndex(EvidenceIndex&&) noexcept = default;
EvidenceIndex& EvidenceIndex::operator=(EvidenceIndex&&) noexcept = default;
EvidenceIndex::~EvidenceIndex() = default;

const std::vector<EvidenceDocument>& EvidenceIndex::documents() const { return state_->documents; }

Result<EvidenceIndex> EvidenceIndex::build(std::vector<EvidenceDocument> documents) {
  try {
    auto state = std::make_unique<State>();
    state->documents = std::move(documents);
    Xapian::TermGenerator terms;
    terms.set_stemmer(state->stemmer);
    terms.set_stemming_strategy(Xapian::TermGenerator::STEM_ALL);
    terms.set_stopper(&state->stop_words);
    terms.set_stopper_strategy(Xapian::TermGenerator::STOP_ALL);
    for (const EvidenceDocument& document : state->documents) {
      Xapian::Document entry;
      terms.set_document(entry);
      terms.index_text(document.text);
      state->database.add_document(entry);  // docid = position + 1
    }
    state->database.commit();
    return EvidenceIndex(std::move(state));
  } catch (const Xapian::Error& error) {
    return xapian_error("building", error);
  }
}

Result<std::vector<RetrievedDocument>> EvidenceIndex::search(std::string_view query,
                                                             std::size_t max_candidates) const {
  std::vector<RetrievedDocument> found;
  try {
    Xapian::QueryParser parser;
    parser.set_stemmer(state_->stemmer);
    parser.set_stemming_strategy(Xapian::QueryParser::STEM_ALL);
    // No stopper: stop words are never indexed, so in a query they match nothing.
    parser.set_default_op(Xapian::Query::OP_OR);
    Xapian::Enquire enquire(state_->database);
    enquire.set_query(parser.parse_query(query_words(query), kQueryFlags));  // empty: matches nothing
    enquire.set_weighting_scheme(Xapian::BM25Weight(kK1, kK2, kK3, kB, kMinNormalizedLength));
    enquire.set_docid_order(Xapian::Enquire::ASCENDING);  // equal scores in document order
    const auto wanted = static_cast<Xapian::doccount>(std::min(max_candidates, state_->documents.size()));
    const Xapian::MSet matches = enquire.get_mset(0, wanted);
    found.reserve(matches.size());
    for (auto match = matches.begin(); match != matches.end(); ++match) {
      found.push_back({static_cast<std::size_t>(*match - 1), match.get_weight()});
    }
  } catch (const Xapian::Error& error) {
    return xapian_error("searching", error);
  }
  return found;
}

}  // namespace parley
