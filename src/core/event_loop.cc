// EventLoop: ready queue, timers and the I/O drivers, all on the calling thread.
#include <poll.h>

#include <algorithm>
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

void EventLoop::add_io(IoDriver* io) {
  if (io != nullptr && std::find(io_.begin(), io_.end(), io) == io_.end()) io_.push_back(io);
}

void EventLoop::remove_io(IoDriver* io) { std::erase(io_, io); }

void EventLoop::cancel() {
  cancelled_ = true;
  for (; !timers_.empty(); timers_.pop()) release(timers_.top());
  const std::vector<IoDriver*> drivers = io_;  // a copy: a driver may remove itself as it stops
  for (IoDriver* io : drivers) io->cancel();
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
    if (wait_for_io(wait)) continue;
    if (timers_.empty()) {
      if (alive_ > 0) {
        throw std::logic_error("event loop stalled: a spawned coroutine waits on something that can never happen");
      }
      break;
    }
    std::this_thread::sleep_for(wait);
  }
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

bool EventLoop::wait_for_io(std::chrono::milliseconds wait) {
  using std::chrono::milliseconds;
  busy_io_.clear();
  for (IoDriver* io : io_) {
    if (io->busy()) busy_io_.push_back(io);
  }
  if (busy_io_.empty()) return false;
  if (busy_io_.size() == 1) {  // the run's case: its transport waits on its own
    busy_io_.front()->poll(wait);
    return true;
  }
  std::vector<pollfd> sets;
  sets.reserve(busy_io_.size());
  const auto now = Clock::now();
  for (const IoDriver* io : busy_io_) {
    if (const auto deadline = io->next_deadline()) {
      wait = std::min(wait, std::max(std::chrono::ceil<milliseconds>(*deadline - now), milliseconds(0)));
    }
    const int fd = io->wait_fd();
    if (fd < 0) {
      wait = std::min(wait, IoDriver::kUnwaitablePoll);
    } else {
      sets.push_back(pollfd{fd, POLLIN, 0});
    }
  }
  ::poll(sets.data(), sets.size(), static_cast<int>(wait.count()));
  for (IoDriver* io : busy_io_) io->poll(milliseconds(0));
  return true;
}

}  // namespace parley
