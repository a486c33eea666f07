#pragma once
// WalCheckpointer: moves the store's WAL checkpoints off the writing thread.
// SQLite's default checkpoints inside the COMMIT that takes the WAL past 1,000 pages: that
// commit copies the WAL into the database and waits for two syncs, and the event loop waits
// with it. Here the writer's connection only counts pages (sqlite3_wal_hook); past the
// threshold a helper thread, on a connection of its own, runs a PASSIVE checkpoint, which never
// blocks the writer (https://sqlite.org/wal.html#application_initiated_checkpoints). Past
// kCatchUpFactor thresholds the writer waits for the helper's checkpoint in progress and copies
// the frames left itself, so that the WAL can start over (see on_commit). If the helper fails
// (it cannot open the file, or start a thread), the store checkpoints in COMMIT as SQLite
// would. The database stays correct whatever the helper does: an unfinished checkpoint leaves
// the pages in the WAL, where readers find them, and the last connection to close checkpoints
// the rest.

#include <sqlite3.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace parley {

class WalCheckpointer {
 public:
  // Hooks `writer`'s commits; the helper thread opens `path` on its first checkpoint.
  WalCheckpointer(sqlite3* writer, std::string path, int threshold_pages);
  // Stops the helper (after a checkpoint in progress) and unhooks `writer`.
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // Asks the helper for a checkpoint, whatever the WAL's size (what a commit past the
  // threshold does).
  void request();
  // What made the helper fail, once; from then on checkpoints are made in COMMIT, as SQLite
  // makes them without this class, so the store carries on and does not report it. Nothing is
  // lost: the WAL still holds every page.
  std::optional<std::string> take_error();
  // Checkpoints the helper has finished, and those made in COMMIT (for tests).
  int checkpoints();
  int inline_checkpoints() const;

 private:
  static constexpr int kCatchUpFactor = 4;

  static int on_commit(void* self, sqlite3* db, const char* schema, int wal_pages);
  void checkpoint_inline(sqlite3* db, const char* schema);
  void fail(std::string message);  // with mutex_ held
  void run();
  // One PASSIVE checkpoint on the helper's connection; an error is kept for take_error().
  void checkpoint_once();

  sqlite3* writer_;
  std::string path_;
  int threshold_pages_;
  sqlite3* own_ = nullptr;  // the helper thread's connection

  std::mutex checkpointing_;  // held by whichever thread checkpoints
  std::mutex mutex_;
  std::condition_variable wake_;
  bool requested_ = false;
  bool stopping_ = false;
  int checkpoints_ = 0;
  std::optional<std::string> error_;
  std::atomic<bool> helper_failed_{false};
  std::atomic<int> inline_checkpoints_{0};
  std::thread thread_;  // started by the first request
};

}  // namespace parley
