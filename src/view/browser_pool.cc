// BrowserPool: a bounded set of read-only connections handed out one request at a time.
#include "view/browser_pool.h"

namespace parley::view {

BrowserPool::BrowserPool(std::filesystem::path run_dir, std::unique_ptr<RunBrowser> first, int capacity)
    : run_dir_(std::move(run_dir)), capacity_(capacity) {
  idle_.push_back(std::move(first));
}

Result<BrowserPool::Lease> BrowserPool::borrow() {
  std::unique_lock lock(mutex_);
  returned_.wait(lock, [&] { return !idle_.empty() || opened_ < capacity_; });
  if (!idle_.empty()) {
    auto browser = std::move(idle_.back());
    idle_.pop_back();
    return Lease(*this, std::move(browser));
  }
  ++opened_;  // counted before opening, outside the lock, so no other thread passes the capacity
  lock.unlock();
  auto browser = RunBrowser::open(run_dir_);
  if (!browser) {
    lock.lock();
    --opened_;
    returned_.notify_one();
    return browser.error();
  }
  return Lease(*this, std::move(*browser));
}

void BrowserPool::give_back(std::unique_ptr<RunBrowser> browser) {
  {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(browser));
  }
  returned_.notify_one();
}

int BrowserPool::opened() const {
  std::lock_guard lock(mutex_);
  return opened_;
}

}  // namespace parley::view
