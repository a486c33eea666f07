#pragma once
// The files a run keeps in its directory (runner.cc, run_lock.cc, the store's SQLite files): a
// command that writes an output must never replace one of them — the store it reads, or what
// `parley report` and `parley view` read.
#include <filesystem>

namespace parley::cli {

// Whether `out` names one of `run_dir`'s own files (report.html is not one: it is an output).
bool is_a_run_file(const std::filesystem::path& out, const std::filesystem::path& run_dir);

}  // namespace parley::cli
