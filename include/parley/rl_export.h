#pragma once
// UDPO training data from a stored run, for an external RL trainer (`parley export-rl`): each
// exported debate's answer trajectory (parley/metrics.h) and UDPO's quantities, computed by the
// functions of parley/udpo.h — the trajectory rewards (eqs. 1–3 and r_task), each agent's
// coefficients from a profile of the exported debates (eqs. 10–14), its reward (eq. 4) and
// advantage (Algorithm 1 line 14), and the debate's replay priority (eq. 15) — as JSON lines in
// the conversational shapes that Hugging Face TRL, OpenRLHF and verl read (docs/formats.md,
// "parley export-rl"). A pure function over transcripts that were read back from a store: no
// I/O, safe from any thread.

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "parley/result.h"
#include "parley/transcript.h"
#include "parley/udpo.h"

namespace parley::udpo {

// One line per (debate, agent) — the agent's whole conversation — or per agent turn.
enum class ExportUnit { kTrajectory, kTurn };

struct ExportOptions {
  std::string protocol;  // the protocol label to export; "" = every protocol of the run
  ExportUnit unit = ExportUnit::kTrajectory;
  double kappa = 1.5;                                // κ of eqs. (10)–(14)
  BaseRule bases = BaseRule::kCohensD;               // U-8: (a) Cohen's d over the batch, (b) equal
  double lambda_base = 1.0;                          // λ_base
  double eta_base = 0.01;                            // η_base
  IntraReward intra_reward = IntraReward::kOneMinusFlipRate;  // U-1
  SystemProfile system_profile = SystemProfile::kLeaveOneOut;  // U-7
  double u_intra_lambda = 0.5;                       // λ of U_intra = λF + (1 − λ)M
  ReplayOptions replay;                              // ε_p, η, β_IS of eq. (15)
};

// A batch: one protocol's exported debates that seat the same agents (in any order). The profile,
// the Cohen's d bases, the advantages' baselines and the replay distribution are each computed
// over one batch.
struct ExportBatch {
  std::string protocol;
  std::vector<std::string> agents;  // in the order of the batch's first debate
  std::size_t debates = 0;
  BaseCoefficients bases;
  std::vector<AgentCoefficients> coefficients;  // by agent, as `agents`
};

struct RlExport {
  std::vector<std::string> lines;  // one JSON object each, without its newline
  std::size_t debates = 0;         // debates exported
  // Debates of the chosen protocol(s) not exported, by why: "failed", "budget" (their status),
  // "no agent turns" (completed without any answer-bearing call).
  std::map<std::string, std::size_t> skipped;
  std::vector<ExportBatch> batches;
};

// The export of `transcripts` (a run's, as read back from its store). An Error, with nothing
// exported, for: no debates; an unknown protocol; any debate of the chosen protocol(s) stored
// without its prompts (by a parley older than the prompt record; the message says how many);
// no debate left to export; an option out of range.
Result<RlExport> export_rl(std::span<const Transcript> transcripts, const ExportOptions& options);

}  // namespace parley::udpo
