#include "wal_checkpointer.h"

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

int WalCheckpointer::on_commit(void* self, sqlite3* /*db*/, const char* /*schema*/, int wal_pages) {
  auto* checkpointer = static_cast<WalCheckpointer*>(self);
  if (wal_pages >= checkpointer->threshold_pages_) checkpointer->request();
  return SQLITE_OK;
}

void WalCheckpointer::request() {
  {
    std::lock_guard lock(mutex_);
    requested_ = true;
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
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

void WalCheckpointer::checkpoint_once() {
  auto keep = [this](std::string message) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::move(message);
  };
  if (!own_) {
    const int rc = sqlite3_open_v2(path_.c_str(), &own_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
      keep(fmt::format("{}: cannot open for a checkpoint: {}", path_, own_ ? sqlite3_errmsg(own_) : sqlite3_errstr(rc)));
      sqlite3_close_v2(own_);
      own_ = nullptr;
      return;
    }
    sqlite3_busy_timeout(own_, 5000);
    // A connection finds the WAL when it first reads the database; until then it checkpoints
    // nothing (and says so only through a frame count of -1).
    if (sqlite3_exec(own_, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr) != SQLITE_OK) {
      keep(fmt::format("{}: cannot read for a checkpoint: {}", path_, sqlite3_errmsg(own_)));
      sqlite3_close_v2(own_);
      own_ = nullptr;
      return;
    }
  }
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

}  // namespace parley
