// s2_mad: S2-MAD (Zeng et al. 2025, "S2-MAD: Breaking the Token Barrier to Enhance Multi-Agent
// Debate Efficiency", NAACL 2025) as the SVR-MAD paper runs it as a baseline (SVR-MAD App. A,
// "S2-MAD"): agents with the same viewpoint need not exchange it, so in each round an agent is
// shown only the peers whose viewpoint differs from its own, and an agent whom no peer differs
// from makes no call that round and keeps its answer. S2-MAD judges "the same viewpoint" in one
// of two ways (App. A): (1) equivalent answers, for closed-form answers -- the default, and what
// SVR-MAD uses; (2) similar response embeddings, for answers that cannot be compared -- when the
// experiment entry names an embedding model (`embeddings:`), replies whose cosine similarity
// reaches `similarity_threshold` are the same viewpoint. Rounds as in SVR-MAD's MAD setting (§5:
// 6 agents, at most two rounds, stop after round one when at least five agree); majority vote at
// the end. Choices: docs/protocols.md.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "protocols/debate.h"
#include "protocols/protocols.h"
#include "protocols/vote.h"

namespace parley {
namespace {

// alike[i][j]: seats i and j hold the same viewpoint.
using SameViewpoint = std::vector<std::vector<bool>>;

// App. A (1), closed-form answers: both answers parsed and the same by the rule that matches gold
// answers. An unparsed answer is the same as none.
SameViewpoint equivalent_answers(const Task& task, const std::vector<Seat>& seats) {
  SameViewpoint alike(seats.size(), std::vector<bool>(seats.size(), false));
  for (std::size_t i = 0; i < seats.size(); ++i) {
    for (std::size_t j = 0; j < seats.size(); ++j) {
      const Answer& a = seats[i].latest.answer;
      const Answer& b = seats[j].latest.answer;
      alike[i][j] = a.value && b.value && same_answer(task, *a.value, *b.value);
    }
  }
  return alike;
}

// App. A (2), response embeddings: the replies' cosine similarity reaches the threshold. Each
// distinct reply is embedded once per debate (a seat that sat out keeps its reply), so a round
// makes at most one embedding call, for the replies that are new. The cosines are recorded as a
// "similarity" event.
class ResponseSimilarity {
 public:
  explicit ResponseSimilarity(double threshold) : threshold_(threshold) {}

  Async<SameViewpoint> operator()(Debate& debate, int round, const std::vector<Seat>& seats) {
    std::vector<std::string> fresh;
    std::string whose;
    for (const Seat& seat : seats) {
      const std::string& text = seat.latest.text;
      if (vectors_.count(text) != 0 || std::find(fresh.begin(), fresh.end(), text) != fresh.end()) continue;
      fresh.push_back(text);
      whose += (whose.empty() ? "" : ", ") + seat.agent.name;
    }
    if (!fresh.empty()) {
      std::vector<std::vector<double>> embedded =
          co_await debate.embed(fresh, round, "the latest replies of " + whose);
      for (std::size_t k = 0; k < fresh.size(); ++k) vectors_[fresh[k]] = std::move(embedded[k]);
    }
    SameViewpoint alike(seats.size(), std::vector<bool>(seats.size(), false));
    nlohmann::json cosines = nlohmann::json::array();
    for (std::size_t i = 0; i < seats.size(); ++i) {
      nlohmann::json row = nlohmann::json::array();
      for (std::size_t j = 0; j < seats.size(); ++j) {
        const double cosine =
            cosine_similarity(vectors_.at(seats[i].latest.text), vectors_.at(seats[j].latest.text));
        alike[i][j] = cosine >= threshold_;
        row.push_back(std::round(cosine * 1e4) / 1e4);
      }
      cosines.push_back(std::move(row));
    }
    debate.event(round, "similarity",
                 nlohmann::json{{"threshold", threshold_}, {"cosine", std::move(cosines)}}.dump());
    co_return alike;
  }

 private:
  double threshold_;
  std::map<std::string, std::vector<double>> vectors_;  // reply text -> its embedding
};

// Each seat is shown the peers whose viewpoint differs; a seat no peer differs from sits out.
std::vector<RevisionInput> disagreeing_only(const SameViewpoint& alike) {
  std::vector<RevisionInput> inputs(alike.size());
  for (std::size_t i = 0; i < alike.size(); ++i) {
    for (std::size_t j = 0; j < alike.size(); ++j) {
      if (j != i && !alike[i][j]) inputs[i].peers.push_back(j);
    }
    inputs[i].sits_out = inputs[i].peers.empty();  // nothing to debate
  }
  return inputs;
}

class S2Mad final : public Protocol {
 public:
  S2Mad(MadSetting setting, double similarity_threshold)
      : setting_(setting), similarity_threshold_(similarity_threshold) {}

  Async<std::optional<std::string>> run(Debate& debate) const override {
    std::vector<Seat> seats = take_seats(debate, static_cast<std::size_t>(setting_.agents));
    co_await answer_independently(debate, seats);
    ResponseSimilarity similar_responses(similarity_threshold_);
    const RevisionPlan plan = [&debate, &similar_responses](
                                  int round,
                                  const std::vector<Seat>& now) -> Async<std::vector<RevisionInput>> {
      if (debate.can_embed()) co_return disagreeing_only(co_await similar_responses(debate, round, now));
      co_return disagreeing_only(equivalent_answers(debate.task(), now));
    };
    const int last = co_await run_rounds(debate, seats, setting_.rounds, setting_.consensus, plan);
    co_return vote_of_latest(debate, last, seats);
  }

 private:
  MadSetting setting_;
  double similarity_threshold_;
};

std::vector<ParamSpec> s2_mad_params() {
  std::vector<ParamSpec> params = svr_mad_setting_params();
  params.push_back(
      {"similarity_threshold", ParamKind::kDouble, 0.9, 0.0, 1.0,
       "with `embeddings:`, replies whose embeddings' cosine similarity reaches this are the same "
       "viewpoint (S2-MAD's embedding variant; the value is model-specific)"});
  return params;
}

}  // namespace

ProtocolInfo s2_mad_protocol() {
  ProtocolInfo info{
      "s2_mad",
      "N agents answer, then rounds where each reads only the peers whose viewpoint differs; majority vote",
      "Zeng et al. 2025, S2-MAD: Breaking the Token Barrier to Enhance Multi-Agent Debate Efficiency "
      "(answer equivalence, or response embeddings with `embeddings:`; as SVR-MAD's baseline, App. A)",
      s2_mad_params(), [](const ProtocolParams& p) {
        return std::make_unique<S2Mad>(svr_mad_setting(p), p.real("similarity_threshold"));
      }};
  info.uses_embeddings = true;
  return info;
}

}  // namespace parley
