// Simulated embeddings: unit vectors, a bag of words worked by hand, replies close when they
// conclude alike, and the client's embeddings call.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/hash.h"
#include "llm/simulator_embedding.h"
#include "simulator_test_support.h"

namespace parley::sim {
namespace {

double norm(const std::vector<double>& v) {
  double sum = 0.0;
  for (double x : v) sum += x * x;
  return std::sqrt(sum);
}

TEST(SimulatedEmbedding, IsADeterministicUnitVector) {
  const auto task = testing::choice_task(1);
  const auto a = simulate_embedding(task.get(), "The length sets the period.\nAnswer: B");
  EXPECT_EQ(a.size(), kEmbeddingDimensions);
  EXPECT_NEAR(norm(a), 1.0, 1e-12);
  EXPECT_EQ(a, simulate_embedding(task.get(), "The length sets the period.\nAnswer: B"));
  EXPECT_NEAR(norm(simulate_embedding(nullptr, "some words")), 1.0, 1e-12);
}

TEST(SimulatedEmbedding, WithoutATaskIsTheBagOfWordsWorkedByHand) {
  // Five words in five different slots (checked), so the vectors are known: "the cat sat" has
  // three entries of ±1, "the cat sat on the mat" has ±√2 for "the" and ±1 for the other four.
  std::set<std::uint64_t> slots;
  for (const char* word : {"the", "cat", "sat", "on", "mat"}) slots.insert(fnv1a64(word) % kEmbeddingDimensions);
  ASSERT_EQ(slots.size(), 5u);
  const double expected = (std::sqrt(2.0) + 2.0) / (std::sqrt(3.0) * std::sqrt(6.0));  // ≈ 0.805
  EXPECT_NEAR(cosine_similarity(simulate_embedding(nullptr, "the cat sat"),
                                simulate_embedding(nullptr, "The cat sat on the mat.")),
              expected, 1e-12);
  // Word order and punctuation do not matter; case does not either.
  EXPECT_NEAR(cosine_similarity(simulate_embedding(nullptr, "cat, the SAT"), simulate_embedding(nullptr, "the cat sat")),
              1.0, 1e-12);
}

TEST(SimulatedEmbedding, RepliesThatConcludeAlikeAreClose) {
  const auto task = testing::choice_task(1);
  const std::string wording_a = "The period depends only on the length of the string.\n";
  const std::string wording_b = "Mass cancels out of the equation of motion, so consider the rest.\n";
  const auto b1 = simulate_embedding(task.get(), wording_a + "Answer: B");
  const auto b2 = simulate_embedding(task.get(), wording_b + "Answer: B");
  const auto c1 = simulate_embedding(task.get(), wording_a + "Answer: C");
  // Same answer, different wording: at least the answer's share 0.81, minus small cross terms.
  EXPECT_GT(cosine_similarity(b1, b2), 0.75);
  // Same wording, different answer: about the wording's share 0.19.
  EXPECT_LT(cosine_similarity(b1, c1), 0.35);
  EXPECT_GT(cosine_similarity(b1, c1), 0.05);
  // An unparsed reply concludes nothing and is close to no answer.
  const auto unsure = simulate_embedding(task.get(), wording_a + "I cannot decide.");
  EXPECT_LT(cosine_similarity(b1, unsure), 0.35);
}

TEST(SimulatedEmbedding, TheClientEmbedsEveryInputAndCountsItsTokens) {
  EventLoop loop;
  auto client = make_simulator_client(loop, default_simulator_params(), "default");
  ASSERT_TRUE(client.ok());
  EmbeddingRequest request;
  request.model = "sim";
  request.inputs = {"Answer: B", "a longer text of several words"};
  request.note.task = testing::choice_task(1);
  std::optional<EmbeddingResult> result;
  auto body = [&]() -> Async<void> { result = co_await (*client)->embed(request); };
  loop.spawn(body());
  loop.run();
  ASSERT_TRUE(result && std::holds_alternative<EmbeddingResponse>(*result));
  const auto& response = std::get<EmbeddingResponse>(*result);
  ASSERT_EQ(response.vectors.size(), 2u);
  EXPECT_EQ(response.vectors[0], simulate_embedding(request.note.task.get(), "Answer: B"));
  EXPECT_EQ(response.usage.prompt_tokens, estimate_tokens("Answer: B") + estimate_tokens(request.inputs[1]));
  EXPECT_EQ(response.usage.completion_tokens, 0);
}

}  // namespace
}  // namespace parley::sim
