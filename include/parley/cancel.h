#pragma once
// CancelSignal: stops one piece of work — a served debate whose client went away or whose
// deadline passed — without stopping the loop (EventLoop::cancel stops everything, for good).
// Whoever owns the work fires it; the code doing the work subscribes while it waits: a
// transport aborts its transfer, a sleeping retry wakes, the debate issues no further call.
// Single-threaded, on the loop thread, like everything that awaits.

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace parley {

class CancelSignal {
 public:
  // Unsubscribes when destroyed (or reset), so a callback never outlives what it refers to.
  class Subscription {
   public:
    Subscription() = default;
    Subscription(Subscription&& other) noexcept;
    Subscription& operator=(Subscription&& other) noexcept;
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;
    ~Subscription() { reset(); }
    void reset();

   private:
    friend class CancelSignal;
    Subscription(CancelSignal* signal, std::uint64_t id) : signal_(signal), id_(id) {}
    CancelSignal* signal_ = nullptr;
    std::uint64_t id_ = 0;
  };

  CancelSignal() = default;
  CancelSignal(const CancelSignal&) = delete;  // subscriptions point at it
  CancelSignal& operator=(const CancelSignal&) = delete;
  ~CancelSignal();

  // Fires once, irreversibly: records `reason` and runs the callbacks subscribed so far, in the
  // order they subscribed. A callback unsubscribed by an earlier one is not run. Callbacks should
  // only post work to the loop (never destroy the signal). Later calls change nothing.
  void fire(std::string reason = "cancelled");
  bool fired() const noexcept { return fired_; }
  const std::string& reason() const noexcept { return reason_; }  // "" until fired

  // Runs `callback` when the signal fires; at once when it has fired already (the returned
  // subscription is then empty). Keep the subscription for as long as the callback may run.
  [[nodiscard]] Subscription subscribe(std::function<void()> callback);

  std::size_t subscribers() const noexcept { return callbacks_.size(); }

 private:
  bool fired_ = false;
  std::string reason_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, std::function<void()>> callbacks_;
};

}  // namespace parley
