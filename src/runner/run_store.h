#pragma once
// The store's record of the experiment that writes it. A run (or a gateway) checks the store
// against it before adding debates — never next to debates of another experiment, nor next to
// debates whose experiment the store does not record — and then writes it into the store's
// metadata, which the report commands read (protocol order, simulated). Internal to the runner
// and the gateway.

#include <filesystem>
#include <string>
#include <vector>

#include "parley/config.h"
#include "parley/result.h"
#include "parley/store.h"

namespace parley {

// How a writer claims a store.
struct StoreClaim {
  bool resume = false;            // continue a store that holds debates of this experiment
  std::string elsewhere;          // what to do instead, in errors: "choose another --out"
  std::string source = "run";     // the store's `source` metadata: "run" or "serve"
};

struct StoreRecord {
  std::string fingerprint;                  // ExperimentConfig::fingerprint
  std::vector<InputFile> inputs;            // ExperimentConfig::input_files
  std::string input_hashes;                 // JSON: what → content hash of each input file
  std::vector<std::string> protocol_order;  // the entries' labels in the experiment's order
  std::string experiment;                   // its name

  // Reads and hashes the experiment's input files (an Error names one that cannot be read).
  static Result<StoreRecord> of(const ExperimentConfig& config);

  // Checks that this experiment may write into `store` (at `dir`, for messages), then records
  // it there with `simulated` and the parley version.
  Result<Ok> claim(Store& store, const std::filesystem::path& dir, bool simulated, const StoreClaim& how) const;
};

// The store's `protocol_order` metadata (labels separated by line breaks) as a list.
std::vector<std::string> protocol_order(const std::string& meta_value);

}  // namespace parley
