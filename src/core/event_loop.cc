// EventLoop: ready queue, timers and one I/O driver, all on the calling thread.
#include <stdexcept>
#include <thread>
#include <utility>

#include "parley/async.h"

namespace parley {

EventLoop::~EventLoop() = default;

void EventLoop::post_at(Clock::time_point when, std::coroutine_handle<> h) {
  if (cancelled_) {
    post(h);  // nothing waits once cancelled: the sleeper resumes and sees cancelled()
    return;
  }
  timers_.push(Timer{when, timer_order_++, h, nullptr});
}

void EventLoop::post_wake_at(Clock::time_point when, const std::shared_ptr<Wake>& wake) {
  if (cancelled_) {
    wake_now(*wake);
    return;
  }
  timers_.push(Timer{when, timer_order_++, nullptr, wake});
}

void EventLoop::release(const Timer& timer) {
  if (timer.wake) {
    wake_now(*timer.wake);  // nothing when its CancelSignal woke it already
  } else {
    ready_.push_back(timer.handle);
  }
}

void EventLoop::cancel() {
  cancelled_ = true;
  for (; !timers_.empty(); timers_.pop()) release(timers_.top());
  if (io_ != nullptr) io_->cancel();
}

void EventLoop::cancel_when(const std::atomic<bool>* stop) {
  stop_ = stop;
  check_stop();
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
      check_stop();  // a run whose coroutines never wait must still notice a stop
      auto h = ready_.front();
      ready_.pop_front();
      h.resume();
      if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
    }
    const auto now = Clock::now();
    drop_woken_timers();
    while (!timers_.empty() && timers_.top().when <= now) {
      release(timers_.top());
      timers_.pop();
    }
    if (!ready_.empty()) continue;
    if (!idle_waiters_.empty()) {
      ready_.push_back(idle_waiters_.front());
      idle_waiters_.pop_front();
      continue;
    }

    // Nothing runnable: wait for I/O or the next timer.
    check_stop();
    if (!ready_.empty()) continue;  // cancel() made timers and transfers ready
    drop_woken_timers();
    milliseconds wait = kStopCheckInterval;  // the longest wait, so that a stop flag is seen promptly
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
