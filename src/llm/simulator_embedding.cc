// Simulated embeddings: a reply's meaning is mostly its conclusion, a little its wording.
#include "llm/simulator_embedding.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "core/hash.h"
#include "parley/answer.h"

namespace parley::sim {
namespace {

void normalise(std::vector<double>& v) {
  double norm = 0.0;
  for (double x : v) norm += x * x;
  if (norm == 0.0) return;
  norm = std::sqrt(norm);
  for (double& x : v) x /= norm;
}

// A pseudo-random unit direction named by `key`: directions of different keys are nearly
// orthogonal in 256 dimensions (cosine about ±0.06).
std::vector<double> direction(std::string_view key) {
  Rng rng(HashBuilder().add("embedding-direction").add(key).value());
  std::vector<double> v(kEmbeddingDimensions);
  for (double& x : v) x = rng.normal();
  normalise(v);
  return v;
}

// Feature hashing of lower-cased alphanumeric words, with a hashed sign so that collisions
// cancel on average; counts are square-rooted so a repeated word does not dominate.
std::vector<double> bag_of_words(std::string_view text) {
  std::vector<double> counts(kEmbeddingDimensions, 0.0);
  std::vector<double> signs(kEmbeddingDimensions, 0.0);
  std::string word;
  auto flush = [&] {
    if (word.empty()) return;
    const std::uint64_t h = fnv1a64(word);
    const std::size_t slot = static_cast<std::size_t>(h % kEmbeddingDimensions);
    counts[slot] += 1.0;
    signs[slot] += ((h >> 32) & 1U) ? 1.0 : -1.0;
    word.clear();
  };
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      flush();
    }
  }
  flush();
  std::vector<double> v(kEmbeddingDimensions);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (counts[i] > 0.0) v[i] = std::copysign(std::sqrt(counts[i]), signs[i] == 0.0 ? 1.0 : signs[i]);
  }
  normalise(v);
  return v;
}

}  // namespace

std::vector<double> simulate_embedding(const Task* task, std::string_view text) {
  std::vector<double> wording = bag_of_words(text);
  if (task == nullptr) return wording;
  const Answer answer = parse_answer(text, *task);
  // An unparsed reply concludes nothing a peer shares: its own direction.
  const std::vector<double> conclusion =
      answer.value ? direction("answer:" + *answer.value) : direction("text:" + std::string(text));
  const double rest = std::sqrt(1.0 - kEmbeddingAnswerWeight * kEmbeddingAnswerWeight);
  for (std::size_t i = 0; i < wording.size(); ++i)
    wording[i] = kEmbeddingAnswerWeight * conclusion[i] + rest * wording[i];
  normalise(wording);
  return wording;
}

std::vector<double> simulate_evidence_embedding(const Task& task, double relevance, std::string_view text) {
  const double r = std::clamp(relevance, 0.0, 1.0);
  const std::vector<double> topic = direction("topic:" + task.id);
  // What a text shares besides the question's topic: mostly the domain common to the task's
  // evidence (so that averaging many documents does not cancel it, as real embeddings of one
  // field do not), a little its own conclusion and wording.
  const std::vector<double> domain = direction("domain:" + task.id);
  std::vector<double> v = simulate_embedding(&task, text);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = kEvidenceDomainWeight * domain[i] + kEvidenceOwnWeight * v[i];
  normalise(v);
  const double rest = std::sqrt(1.0 - r * r);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = r * topic[i] + rest * v[i];
  normalise(v);
  return v;
}

}  // namespace parley::sim
