// MACI's evidence context and prompt texts (protocols/maci_context.h).
#include "protocols/maci_context.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "protocols/prompts.h"

namespace parley::maci {

namespace {

// The task's own documents (all of them, in their order) and the corpus's BM25 hits for the
// query, into `pool` (a corpus document with the id of a task document is that document).
struct Candidates {
  std::vector<RetrievedDocument> own;     // the task's documents
  std::vector<RetrievedDocument> corpus;  // BM25 hits, best first
};

Candidates candidates_for(const Task& task, const std::string& query, std::size_t limit,
                          std::vector<EvidenceDocument>& pool) {
  Candidates candidates;
  std::set<std::string> ids;
  for (const EvidenceDocument& doc : task.documents) {
    if (!ids.insert(doc.id).second) continue;
    candidates.own.push_back({pool.size(), 0.0});
    pool.push_back(doc);
  }
  if (task.evidence) {
    auto hits = task.evidence->search(query, limit);
    if (!hits) throw DebateHalt{DebateStatus::kFailed, "evidence retrieval: " + hits.error().message};
    for (const RetrievedDocument& hit : hits.value()) {
      const EvidenceDocument& doc = task.evidence->documents().at(hit.index);
      if (!ids.insert(doc.id).second) continue;
      candidates.corpus.push_back({pool.size(), hit.bm25});
      pool.push_back(doc);
    }
  }
  return candidates;
}

}  // namespace

// E^(0): the task's own documents first — the case itself (a news task's article) is never cut
// for the corpus's sake — then the corpus's candidates, reranked with an embedding model, in
// what is left of the budget.
Async<EvidenceContext> gather_evidence(Debate& debate, const ContextBudget& budget, std::size_t candidate_count,
                                       const std::string& query) {
  std::vector<EvidenceDocument> pool;
  const Candidates candidates = candidates_for(debate.task(), query, candidate_count, pool);
  EvidenceContext context;
  std::vector<std::vector<double>> pool_embeddings;
  // The task's own documents are the case itself: all of them, whatever the budget, which they
  // are charged against first.
  for (const RetrievedDocument& own : candidates.own)
    context.selected.push_back({own.index, own.bm25, std::nullopt, estimate_tokens(pool[own.index].text)});
  ContextBudget rest = budget;
  rest.max_documents -= std::min(rest.max_documents, context.selected.size());
  for (const SelectedEvidence& chosen : context.selected) rest.max_tokens -= chosen.tokens;
  rest.max_tokens = std::max<std::int64_t>(rest.max_tokens, 0);
  for (const RetrievedDocument& c : candidates.corpus)
    if (estimate_tokens(pool[c.index].text) > budget.max_tokens) context.too_large.push_back(pool[c.index].id);
  std::vector<SelectedEvidence> from_corpus;
  if (debate.can_embed()) {
    context.encoder = "model";
    // (Named arguments, not literals or a braced list: GCC 12 cannot keep an array in a coroutine frame.)
    std::vector<std::string> query_text(1, query);
    std::vector<std::vector<double>> theta = co_await debate.embed(
        std::move(query_text), 0, std::string("the question (θ, the retrieval query)"), std::string("embedding_query"));
    context.prototype = std::move(theta.at(0));
    if (!pool.empty()) {
      std::vector<std::string> texts;
      for (const auto& doc : pool) texts.push_back(doc.text);
      pool_embeddings = co_await debate.embed(std::move(texts), 0, fmt::format("{} evidence candidates", pool.size()),
                                              std::string("embedding_evidence"));
      std::vector<std::vector<double>> corpus_embeddings;
      for (const RetrievedDocument& c : candidates.corpus) corpus_embeddings.push_back(pool_embeddings.at(c.index));
      auto reranked = rerank_within_budget(candidates.corpus, pool, context.prototype, corpus_embeddings, rest);
      if (!reranked) throw DebateHalt{DebateStatus::kFailed, "evidence rerank: " + reranked.error().message};
      from_corpus = std::move(reranked.value());
      for (SelectedEvidence& own : context.selected)  // recorded, though the task's own are never cut
        own.similarity = cosine_similarity(pool_embeddings.at(own.index), context.prototype);
    }
  } else {
    context.encoder = "lexical";
    context.prototype = lexical_embedding(query);
    from_corpus = select_within_budget(candidates.corpus, pool, rest);
  }
  context.selected.insert(context.selected.end(), from_corpus.begin(), from_corpus.end());
  auto documents = std::make_shared<std::vector<EvidenceDocument>>();
  for (const SelectedEvidence& chosen : context.selected) {
    documents->push_back(pool[chosen.index]);
    context.embeddings.push_back(pool_embeddings.empty() ? lexical_embedding(pool[chosen.index].text)
                                                         : pool_embeddings[chosen.index]);
  }
  context.documents = std::move(documents);
  co_return context;
}

// ---- Prompts -------------------------------------------------------------------------------

// App. Table 15's levels as instructions (the paper's templates are unpublished; M-6): CL is
// described by the nearest level, ties going to the more contentious one.
std::string behaviour_instruction(double contentiousness) {
  static const std::pair<double, const char*> kLevels[] = {
      {0.9,
       "Be highly confrontational: challenge your opponent's hypotheses directly and often, and stress the risks, "
       "failure modes and findings they cannot explain (\"this cannot be accepted\", \"unacceptable risk\")."},
      {0.7,
       "Stay confrontational but open to counter-evidence: accept a point only under strict conditions and say "
       "which concerns remain (\"serious concerns remain\", \"requires stronger evidence\")."},
      {0.5,
       "Be balanced and dialectical: weigh the evidence for and against each hypothesis symmetrically and look "
       "for the findings that would discriminate between them (\"on the one hand / on the other hand\")."},
      {0.3,
       "Be moderately agreeable while keeping your skepticism: support well-evidenced points with caveats, and "
       "stress verification and scope (\"promising if\", \"contingent on\")."},
      {0.1,
       "Be cooperative and consolidating: build on the decisive evidence, synthesise the agreed points and "
       "converge on a final justification (\"converge on\", \"final justification\")."},
  };
  const auto* best = &kLevels[0];
  for (const auto& level : kLevels)
    if (std::fabs(level.first - contentiousness) < std::fabs(best->first - contentiousness) - 1e-9) best = &level;
  return best->second;
}

namespace {

std::string belief_instruction(const Task& task) {
  if (task.answer_type == AnswerType::kChoice) return "a probability distribution over the option letters";
  if (task.labels && task.labels->ordered()) {
    std::string scale;
    for (const auto& label : task.labels->labels()) scale += (scale.empty() ? "" : ", ") + label;
    return "a probability distribution over the scale " + scale;
  }
  return "a probability distribution over your candidate answers, named freely (\"other\" takes what you cannot "
         "place)";
}

std::string evidence_block(const EvidenceContext& evidence) {
  if (evidence.documents->empty()) return "Evidence: none was retrieved; cite nothing.";
  std::string out = "Evidence (cite by the id in brackets):";
  for (const auto& doc : *evidence.documents) out += "\n[" + doc.id + "] " + doc.text;
  return out;
}

}  // namespace

// The opening of every agent's conversation: what never changes first (the rules, the reply
// form), then the question and its evidence, then round 0's request.
std::string opening_prompt(const Task& task, const EvidenceContext& evidence, std::size_t agents) {
  return fmt::format(
      "You are one of {} agents in a moderated debate on the question below. Each round a moderator tells you how "
      "contentious to be, and admits into the debate record only the arguments whose cited evidence is relevant "
      "and which independent judges rate well. Argue in claim-justification pairs, each citing the evidence it "
      "rests on by id (cite only ids listed below), and state your belief as {}. {}\n\nQuestion:\n{}\n\n{}\n\n"
      "Round 0: give your own assessment, before seeing anyone else's.",
      agents, belief_instruction(task), maci::reply_format(), question_with_options(task), evidence_block(evidence));
}

std::string render_distribution(const Distribution& belief, const OutcomeSpace& space) {
  std::vector<std::size_t> order(belief.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return belief[a] > belief[b]; });
  std::string out;
  for (std::size_t i : order)
    if (belief[i] > 0.0) out += fmt::format("{}{} {:.2f}", out.empty() ? "" : "; ", space.name(i), belief[i]);
  return out;
}

std::string render_argument(const Argument& argument) {
  std::string out = argument.claim + " (" + argument.justification + ")";
  if (!argument.evidence.empty()) out += " [" + fmt::format("{}", fmt::join(argument.evidence, ", ")) + "]";
  return out;
}

}  // namespace parley::maci
