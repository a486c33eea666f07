#pragma once
// Store: the run's SQLite database (DIR/results.sqlite, WAL mode). The runner writes each
// transcript, and its row of the debate index the viewer reads (parley/run_browser.h), as its
// debate finishes; --resume reads which (task, protocol, seed) units are
// done; the report reads everything back. One Store per process, used from one thread.
// Writes are grouped into transactions of at most `batch` debates or `flush_ms`, so a kill
// loses at most the debates of the open transaction, which a resume redoes.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "parley/result.h"
#include "parley/transcript.h"

namespace parley {

struct UnitKey {
  std::string task_id;
  std::string protocol;
  std::uint64_t seed = 0;
  auto operator<=>(const UnitKey&) const = default;
};

// (done, total) while a store written by an older parley (schema version 2) gets its debate index
// built from its transcripts, once, as it is opened: called at 0, every few thousand debates, and
// at the end.
using IndexProgress = std::function<void(std::int64_t done, std::int64_t total)>;

// Whether a transcript read back carries its calls' texts (MessageRecord::text, reasoning).
enum class CallTexts { kRead, kSkip };

class Store {
 public:
  virtual ~Store() = default;

  // Opens (creating if needed) the database at `path`. A store of schema version 2 is indexed
  // (docs/formats.md, "results.sqlite") and stamped 3 first, reporting to `progress`; another
  // version is refused.
  static Result<std::unique_ptr<Store>> open(const std::filesystem::path& path);
  static Result<std::unique_ptr<Store>> open(const std::filesystem::path& path, const IndexProgress& progress);

  virtual Result<Ok> set_meta(const std::string& key, const std::string& value) = 0;
  virtual std::optional<std::string> meta(const std::string& key) = 0;

  // Adds a finished debate. A unit already stored is an Error (the runner never runs one twice),
  // and so is a cancelled debate (cut short by a stop: it is not a result).
  virtual Result<Ok> put(const Transcript& transcript) = 0;
  // Makes every put() so far durable.
  virtual Result<Ok> flush() = 0;
  // Once a run has written its debates: builds what the debate index has that puts do not keep
  // up while a run writes, the metrics' value index (docs/formats.md, "results.sqlite"; the
  // viewer sorts by a metric without it too, more slowly). Made once, then kept up by later puts.
  virtual Result<Ok> finish() = 0;

  virtual std::set<UnitKey> finished() = 0;
  // The task a stored debate of `task_id` was asked (any protocol, any seed; its id, question,
  // options, answer type, gold and tolerance, as that debate recorded them), put() ones not yet
  // flushed included; nullopt when no debate of it is stored. What a writer that names tasks
  // itself (parley serve's `parley.task_id`) checks a reused id against.
  virtual Result<std::optional<Task>> stored_task(const std::string& task_id) = 0;
  // Deletes the stored debates whose status is failed (put() ones too), so that they are no
  // longer finished and a resume runs them again; returns how many were deleted.
  virtual Result<std::int64_t> remove_failed() = 0;
  // Every stored transcript, ordered by (protocol, task_id, seed).
  virtual Result<std::vector<Transcript>> load_all() = 0;
  // load_all, which also hands `copy` each transcript's JSON as stored (transcript_to_json's
  // line, the transcripts.jsonl format), in the same order and the same pass over the store:
  // the export copies these bytes rather than writing the transcripts again. With
  // CallTexts::kSkip the returned transcripts' calls have no text (see transcript_from_json).
  virtual Result<std::vector<Transcript>> load_all_and_copy(const std::function<void(std::string_view json)>& copy,
                                                            CallTexts texts) = 0;
  virtual std::int64_t count() = 0;
};

// Transcript <-> one JSON object (the transcripts.jsonl line format, docs/formats.md).
std::string transcript_to_json(const Transcript& transcript);
// With CallTexts::kSkip each call's text and reasoning are passed over and left empty (still
// required to be there): for readers that only count, such as the summary, which then copy
// no message text.
Result<Transcript> transcript_from_json(std::string_view json, CallTexts texts = CallTexts::kRead);

}  // namespace parley
