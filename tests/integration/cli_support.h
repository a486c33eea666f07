#pragma once
// Helpers for black-box tests that run the real `parley` binary: run a command line, capture
// stdout, stderr and the exit code; make a scratch directory.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace parley::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::filesystem::path parley_binary();      // the parley executable of this build
std::filesystem::path source_dir();         // the source tree
std::filesystem::path scratch_dir(const std::string& name);  // fresh, empty

// Where the child's stdout goes: captured into CommandResult::out, or somewhere a write fails
// (a full disk; a pipe whose reader has gone, with SIGPIPE at its default or ignored).
enum class StdoutTo { kCapture, kFullDisk, kClosedPipe, kClosedPipeSigpipeIgnored };

// Runs `parley args...` with the working directory `cwd`, stdin from /dev/null.
CommandResult run_parley(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                         StdoutTo stdout_to = StdoutTo::kCapture);
// The same, but SIGKILLed as soon as `kill_when()` (polled every millisecond) returns true; the
// exit code is then 137.
CommandResult run_parley_killed_when(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                                     const std::function<bool()>& kill_when);

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& text);

}  // namespace parley::testing
