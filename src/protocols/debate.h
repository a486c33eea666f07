#pragma once
// debate: Du et al. (2024) "society of minds" debate. N agents answer independently; then, in
// each of R rounds, every agent sees its peers' latest solutions and gives an updated answer
// (all agents of a round in parallel); the final answer is the majority vote of the last round.
// Who sees whom is a hook (visible_peers) so that restricted-graph protocols derive from this.
// The round machinery below (seats, the independent round, a revision round, the vote) is
// shared with protocols whose rounds have this shape but whose visibility depends on the
// debate itself (group_debate.cc: random groups per debate; s2_mad.cc: only disagreeing peers)
// and with the baselines of SVR-MAD's MAD setting (§5), which may stop early on consensus
// (run_rounds; sid_et.cc, s2_mad.cc).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "parley/protocol.h"

namespace parley {

class RoundDebate : public Protocol {
 public:
  RoundDebate(int agents, int rounds) : agent_count_(agents), rounds_(rounds) {}
  Async<std::optional<std::string>> run(Debate& debate) const override;

 protected:
  // Indices of the agents whose latest solution agent `self` sees in `round` (>= 1).
  // Du et al.: all other agents.
  virtual std::vector<std::size_t> visible_peers(std::size_t self, int round, std::size_t agent_count) const;

 private:
  int agent_count_;
  int rounds_;
};

// ---- Round machinery -----------------------------------------------------------------------

// One agent's place in a round-based debate: it keeps its own conversation.
struct Seat {
  Agent agent;
  std::vector<ChatMessage> history;  // the question, then its replies and what it was shown
  Turn latest;                       // its latest reply with the parsed answer
};

// `count` seats for the debate's agent instances, each conversation opened with the question.
std::vector<Seat> take_seats(Debate& debate, std::size_t count);

// Round 0: every seat from `first` on answers the question on its own, all in parallel (seats
// before `first` already hold an answer: sid_et reuses its single agent's).
// With `logprobs` the calls ask for token log-probabilities (the prior signals of svr_mad).
Async<void> answer_independently(Debate& debate, std::vector<Seat>& seats, std::size_t first = 0,
                                 bool logprobs = false);

// Du et al.'s visibility: every seat but `self`, in seat order.
std::vector<std::size_t> all_other_seats(std::size_t self, std::size_t count);

// What one seat is shown in a revision round.
struct RevisionInput {
  std::vector<std::size_t> peers;  // seats whose latest solution is shown in full
  std::string briefing;            // text before the solutions ("" = none)
  std::vector<PeerView> briefed;   // the agents whose answers the briefing reports, in its order
  bool sits_out = false;           // no call this round; the seat keeps its latest answer (S2-MAD)
};

// One revision round (Du et al.): seat i's conversation continues with its latest reply and a
// user turn built from inputs[i]; all seats answer in parallel, so each sees only what its
// peers said in the previous round. A seat whose input sits out is not asked.
Async<void> revise_in_parallel(Debate& debate, int round, std::vector<Seat>& seats,
                               std::vector<RevisionInput> inputs);

// What every seat is shown in `round`, planned from the seats as the previous round left them.
// A coroutine, so that planning may itself call a model (s2_mad embeds the latest replies).
using RevisionPlan = std::function<Async<std::vector<RevisionInput>>(int round, const std::vector<Seat>& seats)>;

// Du et al.'s plan: every seat is shown all the others (all_other_seats).
RevisionPlan all_to_all_plan();

// Revision rounds 1..`rounds`, each planned by `plan`. With `consensus` > 0 the debate stops after
// a round r < `rounds` in which at least `consensus` seats' latest answers are one vote
// (largest_agreement, vote.h) -- the early stop of SVR-MAD's MAD setting (§5: "may terminate
// after round one if at least five agents reach a clear consensus") -- recorded as a "stop" event
// of round r with detail {"reason":"consensus","round":r,"agreeing":k}. Returns the last round run
// (0 when `rounds` is 0).
Async<int> run_rounds(Debate& debate, std::vector<Seat>& seats, int rounds, int consensus, RevisionPlan plan);

// The early stop of run_rounds on its own (also group_debate's): whether `consensus` > 0 seats'
// latest answers are one vote, recording the "stop" event of `round` when they are.
bool stop_on_consensus(Debate& debate, int round, const std::vector<Seat>& seats, int consensus);

// The MAD setting of SVR-MAD §5 as parameters: `agents` (6), `rounds` (2), `consensus` (5).
std::vector<ParamSpec> svr_mad_setting_params();
struct MadSetting {
  int agents = 6;
  int rounds = 2;
  int consensus = 5;
};
MadSetting svr_mad_setting(const ProtocolParams& params);

// What a peer's latest turn shows of its answer (for TurnInfo::shown).
PeerView peer_view(const Turn& turn);

// Majority vote over every seat's latest answer, recorded as the "vote" event of `round`.
std::optional<std::string> vote_of_latest(Debate& debate, int round, const std::vector<Seat>& seats);

}  // namespace parley
