#pragma once
// RunLock: one writer per run directory. `parley run` holds an exclusive flock(2) on
// DIR/run.lock from before it opens the store until it has written the exports; a second run
// on DIR is refused at once; so is `parley serve`'s on its store. The OS releases the lock when
// the process ends, however it ends
// (a kill leaves no stale lock). Readers (report, compare) take no lock: SQLite's WAL lets them
// read while the run writes. Used by the runner and the gateway.

#include <filesystem>
#include <string_view>

#include "parley/result.h"

namespace parley {

class RunLock {
 public:
  // Creates DIR/run.lock if needed and locks it, writing this process's id into it; an Error
  // naming the holder's process id when another process holds it, ending with `elsewhere`, what
  // to do instead in the caller's terms ("choose another --out").
  static Result<RunLock> acquire(const std::filesystem::path& dir, std::string_view elsewhere);

  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&&) = delete;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();

 private:
  explicit RunLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace parley
