#include "cli/run_files.h"

#include <system_error>

namespace parley::cli {

bool is_a_run_file(const std::filesystem::path& out, const std::filesystem::path& run_dir) {
  std::error_code error;
  const auto where = std::filesystem::weakly_canonical(out, error);
  const auto dir = std::filesystem::weakly_canonical(run_dir, error);
  if (error || where.parent_path() != dir) return false;
  const std::string name = where.filename().string();
  for (const char* own : {"results.sqlite", "results.sqlite-wal", "results.sqlite-shm", "results.sqlite-journal",
                          "run.lock", "summary.json", "transcripts.jsonl"}) {
    if (name == own) return true;
  }
  return false;
}

}  // namespace parley::cli
