// The built-in lexical encoder φ (parley/evidence.h): MACI's eq. (1) needs span and prototype
// embeddings, and a run without an embedding model still measures evidence quality. Hashed
// term frequencies of words and word pairs (the reading guide's offline substitute, A.7).

#include <cctype>
#include <cmath>
#include <string>

#include "core/hash.h"
#include "parley/evidence.h"

namespace parley {
namespace {

bool is_word_byte(unsigned char c) { return std::isalnum(c) != 0 || c >= 0x80; }

void add_term(std::vector<double>& vector, std::string_view term) {
  const std::uint64_t hash = fnv1a64(term);
  // The top bit picks the sign, so that colliding terms cancel rather than add up on average.
  const double sign = (hash >> 63) != 0 ? -1.0 : 1.0;
  vector[hash % vector.size()] += sign;
}

}  // namespace

std::vector<double> lexical_embedding(std::string_view text, std::size_t dimensions) {
  std::vector<double> vector(dimensions == 0 ? 1 : dimensions, 0.0);
  std::string previous;
  std::string word;
  const auto flush = [&] {
    if (word.empty()) return;
    add_term(vector, word);
    if (!previous.empty()) add_term(vector, previous + ' ' + word);
    previous = std::move(word);
    word.clear();
  };
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_word_byte(c)) {
      word.push_back(c < 0x80 ? static_cast<char>(std::tolower(c)) : ch);
    } else {
      flush();
    }
  }
  flush();
  double norm = 0.0;
  for (const double x : vector) norm += x * x;
  if (norm > 0.0) {
    norm = std::sqrt(norm);
    for (double& x : vector) x /= norm;
  }
  return vector;
}

}  // namespace parley
