#pragma once
// BrowserPool: the viewer's read-only store connections, shared by the server's threads (internal
// to src/view). A request borrows one RunBrowser for its queries and gives it back; at most
// `capacity` exist, opened as they are first needed, so the store's page caches — the viewer's
// memory — are bounded whatever the number of threads and the size of the store. A request that
// finds them all borrowed waits. Thread-safe.

#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "parley/run_browser.h"

namespace parley::view {

class BrowserPool {
 public:
  // `first` is a browser open on `run_dir` already (the one that checked it is a run).
  BrowserPool(std::filesystem::path run_dir, std::unique_ptr<RunBrowser> first, int capacity);

  class Lease {
   public:
    Lease(BrowserPool& pool, std::unique_ptr<RunBrowser> browser) : pool_(&pool), browser_(std::move(browser)) {}
    ~Lease() {
      if (browser_) pool_->give_back(std::move(browser_));
    }
    Lease(Lease&&) = default;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    RunBrowser& operator*() const { return *browser_; }
    RunBrowser* operator->() const { return browser_.get(); }

   private:
    BrowserPool* pool_;
    std::unique_ptr<RunBrowser> browser_;
  };

  // A browser, opening one when none is free and fewer than the capacity exist; an Error when
  // opening fails (the store has gone).
  Result<Lease> borrow();

  int opened() const;

 private:
  void give_back(std::unique_ptr<RunBrowser> browser);

  const std::filesystem::path run_dir_;
  const int capacity_;
  mutable std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<RunBrowser>> idle_;
  int opened_ = 1;
};

}  // namespace parley::view
