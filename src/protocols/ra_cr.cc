// ra_cr: Rank-Adaptive Cross-Round (protocols paper §2.2, Fig. 2c, App. A.2, Alg. II) — CR
// visibility plus judge-driven scheduling: from the second round on, the judge scores each
// agent's previous-round output (Likert 1–5 → [0, 1]), the next order is sampled with
// quality-biased randomisation, and the lowest-scored agent is silenced for the round.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/hash.h"
#include "protocols/ordered_rounds.h"
#include "protocols/protocols.h"

namespace parley {
namespace {

// A judge that gave no valid verdict leaves an agent neutral.
constexpr double kUnscored = 0.5;

class RankAdaptiveCrossRound final : public OrderedRounds {
 public:
  RankAdaptiveCrossRound(int agents, int rounds, double rank_bias, int silence)
      : OrderedRounds(agents, rounds, Visibility::kPreviousRound), rank_bias_(rank_bias), silence_(silence) {}

 protected:
  Async<RoundPlan> plan_round(Debate& debate, int round, RoundHistory& history) const override {
    const std::size_t n = history.agents.size();
    history.quality.resize(n);
    // Alg. II line 3: the first round is a random permutation.
    if (round == 0) co_return RoundPlan{shuffled_order(debate.rng(), n), {}};

    // Lines 5 and 10: score the responses of round r − 1. An agent silenced in r − 1 has no
    // response there, so it has no score this round: an older score would rank it on text it
    // wrote before, and would silence it again and again without its ever being judged anew.
    std::fill(history.quality.begin(), history.quality.end(), std::nullopt);
    std::vector<JudgedResponse> responses;
    for (std::size_t i : history.spoke[round - 1])
      responses.push_back(JudgedResponse{history.agents[i].name, history.turns[round - 1][i]->text});
    Judge judge(debate);
    const std::vector<ScoreVerdict> verdicts = co_await judge.score_each(responses, round - 1);
    for (std::size_t k = 0; k < verdicts.size(); ++k) {
      if (verdicts[k].score) history.quality[history.spoke[round - 1][k]] = verdicts[k].score;
    }

    // Lines 6–7: Plackett–Luce sampling with weights exp(rank_bias · score): a higher score
    // makes an earlier turn more likely, and every order stays possible.
    std::vector<std::size_t> remaining(n);
    for (std::size_t i = 0; i < n; ++i) remaining[i] = i;
    std::vector<std::size_t> order;
    while (!remaining.empty()) {
      double total = 0.0;
      for (std::size_t i : remaining) total += weight(history.quality[i]);
      double pick = debate.rng().uniform() * total;
      std::size_t chosen = remaining.size() - 1;
      for (std::size_t k = 0; k < remaining.size(); ++k) {
        pick -= weight(history.quality[remaining[k]]);
        if (pick < 0) {
          chosen = k;
          break;
        }
      }
      order.push_back(remaining[chosen]);
      remaining.erase(remaining.begin() + static_cast<std::ptrdiff_t>(chosen));
    }

    // Silence the `silence` lowest-scored agents of the ranking (ties: the one sampled later),
    // keeping at least one speaker. Only scored agents are ranked: without any judge score
    // there is no ranking to silence by, and an unscored agent is not the lowest-ranked.
    RoundPlan plan;
    std::vector<std::size_t> ranked;
    for (std::size_t i : order)
      if (history.quality[i]) ranked.push_back(i);
    std::stable_sort(ranked.begin(), ranked.end(),
                     [&](std::size_t a, std::size_t b) { return *history.quality[a] > *history.quality[b]; });
    const std::size_t silenced = std::min({static_cast<std::size_t>(silence_), n - 1, ranked.size()});
    plan.silenced.assign(ranked.end() - static_cast<std::ptrdiff_t>(silenced), ranked.end());
    for (std::size_t i : order)
      if (std::find(plan.silenced.begin(), plan.silenced.end(), i) == plan.silenced.end()) plan.order.push_back(i);

    std::string scores;
    for (std::size_t i = 0; i < n; ++i) {
      scores += fmt::format("{}\"{}\":{}", i ? "," : "", history.agents[i].name,
                            history.quality[i] ? fmt::format("{:.4g}", *history.quality[i]) : "null");
    }
    debate.event(round, "ranking", "{" + scores + "}");
    co_return plan;
  }

 private:
  double weight(const std::optional<double>& score) const { return std::exp(rank_bias_ * score.value_or(kUnscored)); }

  double rank_bias_;
  int silence_;
};

}  // namespace

ProtocolInfo ra_cr_protocol() {
  return {"ra_cr",
          "Rank-Adaptive Cross-Round: CR plus judge-scored, quality-biased random order and silencing of the lowest",
          "Protocols paper (debate-protocols-wr-cr-racr) §2.2, Fig. 2c, App. A.2 Alg. II",
          {{"agents", ParamKind::kInt, std::int64_t{3}, 2, 64, "number of agents"},
           {"rounds", ParamKind::kInt, std::int64_t{2}, 1, 20, "rounds, each one turn per agent"},
           {"rank_bias", ParamKind::kDouble, 2.0, 0.0, 50.0,
            "order sampling weight exp(rank_bias * judge score); 0 = uniform shuffle"},
           {"silence", ParamKind::kInt, std::int64_t{1}, 0, 63, "lowest-scored agents silenced each round after the first"}},
          [](const ProtocolParams& p) {
            return std::make_unique<RankAdaptiveCrossRound>(static_cast<int>(p.integer("agents")),
                                                            static_cast<int>(p.integer("rounds")), p.real("rank_bias"),
                                                            static_cast<int>(p.integer("silence")));
          },
          2};
}

}  // namespace parley
