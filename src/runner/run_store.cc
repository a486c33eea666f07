#include "runner/run_store.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <utility>

#include "core/files.h"
#include "core/hash.h"
#include "parley/version.h"

namespace parley {

Result<StoreRecord> StoreRecord::of(const ExperimentConfig& config) {
  StoreRecord record;
  record.fingerprint = config.fingerprint();
  record.inputs = config.input_files();
  // The content hash of each input file, keyed by what it is: the store's `input_files` row.
  nlohmann::json hashes = nlohmann::json::object();
  for (const InputFile& file : record.inputs) {
    Result<std::string> bytes = read_input_file(file.path);
    if (!bytes) return Error{fmt::format("{} ({}): {}", file.what, file.path.string(), bytes.error().message)};
    hashes[file.what] = hash_hex128(*bytes);
  }
  record.input_hashes = hashes.dump();
  for (const auto& p : config.protocols) record.protocol_order.push_back(p.label);
  record.experiment = config.name;
  return record;
}

Result<Ok> StoreRecord::claim(Store& store, const std::filesystem::path& dir_path, bool simulated,
                              const StoreClaim& how) const {
  const std::string dir = dir_path.string();
  const auto stored = store.meta("fingerprint");
  const std::int64_t debates = store.count();
  if (stored || debates > 0) {
    if (!stored) {
      return Error{fmt::format("{} holds {} debates but no record of the experiment that ran them (its metadata "
                               "was removed or damaged); it cannot be continued: {}",
                               dir, debates, how.elsewhere)};
    }
    if (!how.resume) {
      return Error{fmt::format("{} already holds a run; pass --resume to continue it, or {}", dir, how.elsewhere)};
    }
    if (*stored != fingerprint) {
      return Error{fmt::format("{} holds a run of a different experiment (models, agents, dataset, protocols, "
                               "seeds or budget changed); it cannot be resumed with this one: {}",
                               dir, how.elsewhere)};
    }
    const auto stored_hashes = nlohmann::json::parse(store.meta("input_files").value_or(""), nullptr, false);
    const auto hashes = nlohmann::json::parse(input_hashes);
    for (const InputFile& file : inputs) {
      const auto at = stored_hashes.is_object() ? stored_hashes.find(file.what) : stored_hashes.end();
      if (at == stored_hashes.end() || !at->is_string()) {
        return Error{fmt::format("{} does not record the content of {} (it was written by an older parley, or its "
                                 "metadata was damaged), so it cannot be resumed safely: {}",
                                 dir, file.what, how.elsewhere)};
      }
      if (*at != hashes.at(file.what)) {
        return Error{fmt::format("{} ({}) changed since the run in {} began; resuming would mix results of both "
                                 "versions: restore it, or {}",
                                 file.what, file.path.string(), dir, how.elsewhere)};
      }
    }
  }
  std::string order;
  for (const auto& label : protocol_order) order += (order.empty() ? "" : "\n") + label;
  for (auto [key, value] : {std::pair<const char*, std::string>{"fingerprint", fingerprint},
                            {"input_files", input_hashes},
                            {"protocol_order", order},
                            {"simulated", simulated ? "1" : "0"},
                            {"parley_version", PARLEY_VERSION},
                            {"experiment", experiment},
                            {"source", how.source}}) {
    if (auto ok = store.set_meta(key, value); !ok) return ok.error();
  }
  return Ok{};
}

std::vector<std::string> protocol_order(const std::string& meta_value) {
  std::vector<std::string> order;
  std::size_t start = 0;
  while (start <= meta_value.size() && !meta_value.empty()) {
    const auto end = meta_value.find('\n', start);
    order.push_back(meta_value.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return order;
}

}  // namespace parley
