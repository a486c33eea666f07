#pragma once
// A turn's words as the interaction metrics read them: its maximal runs of ASCII letters,
// compared without case. A reply is read once: the letter runs are found 64 bytes at a time (a
// 64-bit mask from four 16-byte compares) and each word is hashed 8 bytes at a time. Internal
// to src/metrics.

#include <cstdint>
#include <string_view>
#include <vector>

namespace parley {

// A 64-bit hash of an ASCII-letter word, the same for every case of its letters. For words of
// one length up to 8 letters it is one-to-one; beyond that two words share a hash with
// probability about 2^-64, far below anything a mean over debates could show.
std::uint64_t word_hash(std::string_view word);

// The words of a debate's turns, as PRR and AD read them. Each turn's argument tokens (its
// distinct words of three or more letters) are a bit set over the debate's vocabulary, so that
// AD's Jaccard similarity of two turns is a few AND/OR and bit counts, with no sorting.
class DebateWords {
 public:
  // Reads one turn's text; turns are numbered in the order they are added, from 0.
  void add_turn(std::string_view text);

  std::size_t turns() const { return turns_.size(); }
  // PRR: one of the turn's words is a stance word (agree, disagree, challenge, support, with
  // their inflections).
  bool takes_stance(std::size_t turn) const { return turns_[turn].takes_stance; }
  std::size_t argument_tokens(std::size_t turn) const;
  // |A ∩ B| / |A ∪ B| of two turns' argument tokens; 1 when both have none.
  double jaccard(std::size_t a, std::size_t b) const;

 private:
  std::uint32_t token_id(std::uint64_t hash);
  [[gnu::noinline]] void grow_table();  // out of token_id's fast path

  struct Turn {
    std::vector<std::uint64_t> tokens;  // bit k: the debate's k-th distinct token
    bool takes_stance = false;
  };
  std::vector<Turn> turns_;
  // Open addressing over word hashes: the id of each token seen, kNoToken where none is.
  static constexpr std::uint32_t kNoToken = 0xFFFFFFFF;
  std::vector<std::uint64_t> slot_hashes_;
  std::vector<std::uint32_t> slot_ids_;
  std::uint32_t distinct_ = 0;
};

}  // namespace parley
