#pragma once
// WalCheckpointer: moves the store's WAL checkpoints off the writing thread.
// SQLite's default checkpoints inside the COMMIT that takes the WAL past 1,000 pages: that
// commit copies the WAL into the database and waits for two syncs, and the event loop waits
// with it. Here the writer's connection only counts pages (sqlite3_wal_hook); past the
// threshold a helper thread, on a connection of its own, runs a PASSIVE checkpoint, which never
// blocks the writer (https://sqlite.org/wal.html#application_initiated_checkpoints). The
// database stays correct whatever the helper does: an unfinished checkpoint leaves the pages in
// the WAL, where readers find them, and the last connection to close checkpoints the rest.

#include <sqlite3.h>

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

  // The first error a checkpoint met, other than SQLITE_BUSY (a reader in the way, normal),
  // once: e.g. a full disk. The WAL still holds every page, so nothing is lost.
  std::optional<std::string> take_error();
  // Checkpoints finished so far (for tests).
  int checkpoints();

 private:
  static int on_commit(void* self, sqlite3* db, const char* schema, int wal_pages);
  void request();
  void run();
  // One PASSIVE checkpoint on the helper's connection; an error is kept for take_error().
  void checkpoint_once();

  sqlite3* writer_;
  std::string path_;
  int threshold_pages_;
  sqlite3* own_ = nullptr;  // the helper thread's connection

  std::mutex mutex_;
  std::condition_variable wake_;
  bool requested_ = false;
  bool stopping_ = false;
  int checkpoints_ = 0;
  std::optional<std::string> error_;
  std::thread thread_;  // started by the first request
};

}  // namespace parley
