#include "wal_checkpointer.h"

#include <system_error>
#include <utility>

#include <fmt/format.h>

namespace parley {

WalCheckpointer::WalCheckpointer(sqlite3* writer, std::string path, int threshold_pages)
    : writer_(writer), path_(std::move(path)), threshold_pages_(threshold_pages) {
  // Replaces SQLite's own hook, and with it the automatic checkpoint in COMMIT.
  sqlite3_wal_hook(writer_, &WalCheckpointer::on_commit, this);
}

WalCheckpointer::~WalCheckpointer() {
  sqlite3_wal_hook(writer_, nullptr, nullptr);
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  sqlite3_close_v2(own_);
}

int WalCheckpointer::on_commit(void* self, sqlite3* db, const char* schema, int wal_pages) {
  auto* checkpointer = static_cast<WalCheckpointer*>(self);
  const int threshold = checkpointer->threshold_pages_;
  if (checkpointer->helper_failed_.load()) {
    // SQLite's own behaviour, whose checkpoint errors it ignores too: the WAL keeps the pages.
    if (wal_pages >= threshold) checkpointer->checkpoint_inline(db, schema);
    return SQLITE_OK;
  }
  // The WAL starts over from its beginning only at a write transaction that begins with every
  // frame copied into the database. The helper copies what was committed when it started, and
  // the writer, which begins its next transaction at once, has added frames by the time it
  // ends: alone, the helper never lets the WAL start over. So once the WAL has grown to
  // kCatchUpFactor thresholds the writer waits for the helper's checkpoint in progress, if
  // any, and copies the frames it has not (no transaction is open in this hook); the next
  // transaction starts the WAL over. That wait is the writer's only one, once per
  // kCatchUpFactor thresholds of WAL.
  if (wal_pages >= kCatchUpFactor * threshold) {
    checkpointer->checkpoint_inline(db, schema);
  } else if (wal_pages >= threshold) {
    checkpointer->request();
  }
  return SQLITE_OK;
}

void WalCheckpointer::checkpoint_inline(sqlite3* db, const char* schema) {
  std::lock_guard busy(checkpointing_);
  // SQLITE_BUSY now means another process checkpoints: the next commit tries again.
  if (sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr) == SQLITE_OK)
    ++inline_checkpoints_;
}

void WalCheckpointer::request() {
  {
    std::lock_guard lock(mutex_);
    if (helper_failed_.load()) return;
    requested_ = true;
    if (!thread_.joinable()) {
      try {
        thread_ = std::thread([this] { run(); });
      } catch (const std::system_error& error) {  // never thrown into SQLite's COMMIT
        fail(fmt::format("{}: cannot start the checkpoint thread: {}", path_, error.what()));
        return;
      }
    }
  }
  wake_.notify_one();
}

void WalCheckpointer::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return requested_ || stopping_; });
    if (stopping_) return;
    requested_ = false;
    lock.unlock();
    checkpoint_once();
    lock.lock();
    ++checkpoints_;
  }
}

// Called with mutex_ held.
void WalCheckpointer::fail(std::string message) {
  if (!error_) error_ = std::move(message);
  helper_failed_.store(true);
}

void WalCheckpointer::checkpoint_once() {
  auto keep = [this](std::string message) {
    std::lock_guard lock(mutex_);
    fail(std::move(message));
  };
  auto give_up = [&](std::string message) {  // the connection could not be made usable
    keep(std::move(message));
    sqlite3_close_v2(own_);
    own_ = nullptr;
  };
  if (!own_) {
    const int rc = sqlite3_open_v2(path_.c_str(), &own_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
      return give_up(
          fmt::format("{}: cannot open for a checkpoint: {}", path_, own_ ? sqlite3_errmsg(own_) : sqlite3_errstr(rc)));
    }
    sqlite3_busy_timeout(own_, 5000);
    // A connection finds the WAL when it first reads the database; until then it checkpoints
    // nothing (and says so only through a frame count of -1).
    if (sqlite3_exec(own_, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr) != SQLITE_OK) {
      return give_up(fmt::format("{}: cannot read for a checkpoint: {}", path_, sqlite3_errmsg(own_)));
    }
  }
  std::lock_guard busy(checkpointing_);
  const int rc = sqlite3_wal_checkpoint_v2(own_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  if (rc != SQLITE_OK && rc != SQLITE_BUSY) keep(fmt::format("{}: checkpoint: {}", path_, sqlite3_errmsg(own_)));
}

std::optional<std::string> WalCheckpointer::take_error() {
  std::lock_guard lock(mutex_);
  return std::exchange(error_, std::nullopt);
}

int WalCheckpointer::checkpoints() {
  std::lock_guard lock(mutex_);
  return checkpoints_;
}

int WalCheckpointer::inline_checkpoints() const { return inline_checkpoints_.load(); }

}  // namespace parley
