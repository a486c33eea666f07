#pragma once
// What MACI puts before its agents (src/protocols/maci.cc): the evidence context E^(0) with its
// embeddings and the prototype θ (App. B.2, F.2; M-1 reading (a)), and the prompt texts — the
// opening, Table 15's behaviour instructions, beliefs and arguments as the opponents are shown
// them. Internal to src/protocols; choices in docs/protocols.md ("maci").

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parley/evidence.h"
#include "parley/maci.h"
#include "parley/protocol.h"
#include "protocols/maci_reply.h"

namespace parley::maci {

// E^(0): the documents in the agents' context, in context order, each with its φ embedding, and
// the prototype θ (M-1 reading (a): the question's embedding).
struct EvidenceContext {
  std::shared_ptr<const std::vector<EvidenceDocument>> documents = std::make_shared<std::vector<EvidenceDocument>>();
  std::vector<std::vector<double>> embeddings;
  std::vector<double> prototype;
  std::vector<SelectedEvidence> selected;
  std::string encoder;  // "model" (the entry's `embeddings:`) or "lexical"
  std::vector<std::string> too_large;  // candidates alone larger than the whole context budget

  std::optional<std::size_t> find(const std::string& id) const {
    for (std::size_t i = 0; i < documents->size(); ++i)
      if ((*documents)[i].id == id) return i;
    return std::nullopt;
  }
};

// E^(0): the task's own documents first — the case itself, always in the context — then the
// corpus's `candidate_count` best BM25 hits for `query`, reranked by the debate's embedding model
// when it has one, in what is left of `budget`. θ is φ(query): the embedding model's, else
// lexical_embedding. Throws DebateHalt when retrieval or the rerank fails.
Async<EvidenceContext> gather_evidence(Debate& debate, const ContextBudget& budget, std::size_t candidate_count,
                                       const std::string& query);

// App. Table 15's level nearest to CL (ties to the more contentious) as an instruction.
std::string behaviour_instruction(double contentiousness);
// The opening of every agent's conversation: rules, reply form, question, evidence, round 0.
std::string opening_prompt(const Task& task, const EvidenceContext& evidence, std::size_t agents);
// "B 0.70; A 0.30": a belief as an opponent is shown it, most probable first.
std::string render_distribution(const Distribution& belief, const OutcomeSpace& space);
// "claim (justification) [ids]": an admitted argument as ψ lists it.
std::string render_argument(const Argument& argument);

}  // namespace parley::maci
