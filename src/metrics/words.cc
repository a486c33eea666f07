#include "metrics/words.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace parley {
namespace {

// Setting bit 5 of an ASCII letter lowers it; applied to a whole word of letters at once.
constexpr std::uint64_t kCaseBits = 0x2020202020202020ULL;

bool is_ascii_letter(char c) {
  const char lower = static_cast<char>(c | 0x20);
  return lower >= 'a' && lower <= 'z';
}

// Bit k of the result is set when text[from + k] is an ASCII letter (k < 64, within the text).
std::uint64_t letter_mask(std::string_view text, std::size_t from) {
  std::uint64_t mask = 0;
  std::size_t i = from;
  const std::size_t end = std::min(text.size(), from + 64);
#if defined(__SSE2__)
  const __m128i case_bit = _mm_set1_epi8(0x20), before_a = _mm_set1_epi8('a' - 1), after_z = _mm_set1_epi8('z' + 1);
  for (; i + 16 <= end; i += 16) {
    // Bytes above 0x7F are negative to the signed compares, so never letters.
    const __m128i lower = _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i)), case_bit);
    const __m128i letters = _mm_and_si128(_mm_cmpgt_epi8(lower, before_a), _mm_cmplt_epi8(lower, after_z));
    mask |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(letters))} << (i - from);
  }
#endif
  for (; i < end; ++i) {
    if (is_ascii_letter(text[i])) mask |= std::uint64_t{1} << (i - from);
  }
  return mask;
}

// `length` (1 to 8) bytes from `at`, zero-padded, as they lie in memory; `eight_readable` when
// the 8 bytes from `at` are all inside the text.
std::uint64_t load_chunk(const char* at, std::size_t length, bool eight_readable) {
  std::uint64_t chunk = 0;
  if constexpr (std::endian::native == std::endian::little) {
    if (eight_readable) {
      std::memcpy(&chunk, at, 8);
      return length == 8 ? chunk : chunk & ((std::uint64_t{1} << (8 * length)) - 1);
    }
  }
  std::memcpy(&chunk, at, length);
  return chunk;
}

// word_hash of the `length` letters at `word`, of which `readable` bytes may be read.
inline std::uint64_t hash_letters(const char* word, std::size_t length, std::size_t readable) {
  constexpr std::uint64_t kOdd = 0x9E3779B97F4A7C15ULL;
  std::uint64_t hash = length * kOdd;
  for (std::size_t i = 0; i < length; i += 8) {
    const std::size_t take = std::min<std::size_t>(8, length - i);
    // Padding bytes become 0x20 too; the length in the seed keeps "ab" apart from "ab  ".
    hash = (hash ^ (load_chunk(word + i, take, i + 8 <= readable) | kCaseBits)) * kOdd;
    hash ^= hash >> 32;
  }
  // MurmurHash3's finaliser: every bit of the chunks reaches the low bits PRR's filter reads.
  hash ^= hash >> 33;
  hash *= 0xff51afd7ed558ccdULL;
  hash ^= hash >> 33;
  hash *= 0xc4ceb9fe1a85ec53ULL;
  hash ^= hash >> 33;
  return hash;
}

// The stance lexicon {agree, disagree, challenge, support} with its verb inflections.
constexpr std::string_view kStance[] = {
    "agree",     "agrees",     "agreed",     "agreeing",    "disagree",  "disagrees",
    "disagreed", "disagreeing", "challenge", "challenges",  "challenged", "challenging",
    "support",   "supports",   "supported",  "supporting"};

// Whether a word (its hash and its letters) is a stance word: found by hash, then confirmed.
bool is_stance_word(std::uint64_t hash, std::string_view word) {
  struct Lexicon {
    std::array<std::uint64_t, std::size(kStance)> hashes{};
    std::array<std::uint64_t, 4> low_bits{};  // one bit per stance word's low eight hash bits
  };
  static const Lexicon kLexicon = [] {
    Lexicon lexicon;
    for (std::size_t k = 0; k < std::size(kStance); ++k) {
      lexicon.hashes[k] = word_hash(kStance[k]);
      lexicon.low_bits[(lexicon.hashes[k] >> 6) & 3] |= std::uint64_t{1} << (lexicon.hashes[k] & 63);
    }
    return lexicon;
  }();
  // All but about one word in sixteen are turned away by one bit.
  if (((kLexicon.low_bits[(hash >> 6) & 3] >> (hash & 63)) & 1) == 0) return false;
  for (std::size_t k = 0; k < std::size(kStance); ++k) {
    if (kLexicon.hashes[k] != hash || kStance[k].size() != word.size()) continue;
    if (std::equal(word.begin(), word.end(), kStance[k].begin(),
                   [](char c, char lower) { return static_cast<char>(c | 0x20) == lower; }))
      return true;
  }
  return false;
}

}  // namespace

std::uint64_t word_hash(std::string_view word) { return hash_letters(word.data(), word.size(), word.size()); }

void DebateWords::grow_table() {
  // A debate of three agents and three rounds has two to three hundred distinct tokens.
  const std::size_t capacity = std::max<std::size_t>(1024, 2 * slot_ids_.size());
  std::vector<std::uint64_t> hashes(capacity);
  std::vector<std::uint32_t> ids(capacity, kNoToken);
  for (std::size_t i = 0; i < slot_ids_.size(); ++i) {
    if (slot_ids_[i] == kNoToken) continue;
    std::size_t slot = slot_hashes_[i] & (capacity - 1);
    while (ids[slot] != kNoToken) slot = (slot + 1) & (capacity - 1);
    hashes[slot] = slot_hashes_[i];
    ids[slot] = slot_ids_[i];
  }
  slot_hashes_ = std::move(hashes);
  slot_ids_ = std::move(ids);
}

inline std::uint32_t DebateWords::token_id(std::uint64_t hash) {
  if (2 * (distinct_ + 1) > slot_ids_.size()) grow_table();  // keep the table at most half full
  const std::size_t mask = slot_ids_.size() - 1;
  std::size_t slot = hash & mask;
  while (slot_ids_[slot] != kNoToken) {
    if (slot_hashes_[slot] == hash) return slot_ids_[slot];
    slot = (slot + 1) & mask;
  }
  slot_hashes_[slot] = hash;
  slot_ids_[slot] = distinct_;
  return distinct_++;
}

void DebateWords::add_turn(std::string_view text) {
  Turn turn;
  turn.tokens.reserve((distinct_ + text.size() / 4) / 64 + 1);  // room for every word to be new
  const std::size_t size = text.size();
  const auto add_word = [&](std::size_t begin, std::size_t end) {
    const std::size_t length = end - begin;
    if (length < 3) return;
    const std::uint64_t hash = hash_letters(text.data() + begin, length, size - begin);
    const std::uint32_t id = token_id(hash);
    if (id / 64 >= turn.tokens.size()) turn.tokens.resize(id / 64 + 1);
    turn.tokens[id / 64] |= std::uint64_t{1} << (id % 64);
    if (!turn.takes_stance && length >= 5) turn.takes_stance = is_stance_word(hash, text.substr(begin, length));
  };
  // 64 bytes at a time: a word starts at a letter after a non-letter and ends at the first
  // non-letter after it; the two alternate, so each word is two bit scans.
  std::size_t begin = std::string_view::npos;
  std::uint64_t previous_letter = 0;  // whether the byte before the chunk is a letter
  for (std::size_t from = 0; from < size; from += 64) {
    const std::uint64_t letters = letter_mask(text, from);
    const std::uint64_t after_letter = (letters << 1) | previous_letter;
    std::uint64_t starts = letters & ~after_letter;
    std::uint64_t ends = ~letters & after_letter;  // past the text's end no byte is a letter
    previous_letter = letters >> 63;
    while ((begin == std::string_view::npos ? starts : ends) != 0) {
      if (begin == std::string_view::npos) {
        begin = from + static_cast<std::size_t>(std::countr_zero(starts));
        starts &= starts - 1;
      } else {
        add_word(begin, std::min(size, from + static_cast<std::size_t>(std::countr_zero(ends))));
        ends &= ends - 1;
        begin = std::string_view::npos;
      }
    }
  }
  if (begin != std::string_view::npos) add_word(begin, size);  // a word ending a multiple of 64
  turns_.push_back(std::move(turn));
}

std::size_t DebateWords::argument_tokens(std::size_t turn) const {
  std::size_t count = 0;
  for (std::uint64_t bits : turns_[turn].tokens) count += static_cast<std::size_t>(std::popcount(bits));
  return count;
}

double DebateWords::jaccard(std::size_t a, std::size_t b) const {
  const std::vector<std::uint64_t>& first = turns_[a].tokens;
  const std::vector<std::uint64_t>& second = turns_[b].tokens;
  std::size_t common = 0, either = 0;
  for (std::size_t i = 0; i < std::max(first.size(), second.size()); ++i) {
    const std::uint64_t x = i < first.size() ? first[i] : 0, y = i < second.size() ? second[i] : 0;
    common += static_cast<std::size_t>(std::popcount(x & y));
    either += static_cast<std::size_t>(std::popcount(x | y));
  }
  if (either == 0) return 1.0;  // two empty arguments are identical
  return static_cast<double>(common) / static_cast<double>(either);
}

}  // namespace parley
