// EventLoop: ready queue, timers and one I/O driver, all on the calling thread.
#include <stdexcept>
#include <thread>

#include "parley/async.h"

namespace parley {

EventLoop::~EventLoop() = default;

void EventLoop::post_at(Clock::time_point when, std::coroutine_handle<> h) {
  timers_.push(Timer{when, timer_order_++, h});
}

detail::Detached EventLoop::drive(Async<void> task) {
  try {
    co_await task;
  } catch (...) {
    if (!failure_) failure_ = std::current_exception();
  }
  --alive_;
}

void EventLoop::spawn(Async<void> task) {
  ++alive_;
  drive(std::move(task));
}

void EventLoop::run() {
  using std::chrono::milliseconds;
  for (;;) {
    while (!ready_.empty()) {
      auto h = ready_.front();
      ready_.pop_front();
      h.resume();
      if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
    }
    const auto now = Clock::now();
    while (!timers_.empty() && timers_.top().when <= now) {
      ready_.push_back(timers_.top().handle);
      timers_.pop();
    }
    if (!ready_.empty()) continue;

    // Nothing runnable: wait for I/O or the next timer.
    milliseconds wait(1000);
    if (!timers_.empty()) {
      auto until = std::chrono::ceil<milliseconds>(timers_.top().when - now);
      wait = std::min(wait, std::max(until, milliseconds(0)));
    }
    if (io_ != nullptr && io_->busy()) {
      io_->poll(wait);
    } else if (!timers_.empty()) {
      std::this_thread::sleep_for(wait);
    } else {
      if (alive_ > 0) {
        throw std::logic_error("event loop stalled: a spawned coroutine waits on something that can never happen");
      }
      break;
    }
  }
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

}  // namespace parley
