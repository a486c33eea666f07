#pragma once
// Async<T> and EventLoop: the single-threaded coroutine runtime every debate runs on.
// A protocol is a coroutine returning Async<T>; it co_awaits LLM calls (which suspend until
// the HTTP transport or the simulator completes them) and when_all(...) for parallel turns.
// Everything here is used from the one orchestration thread that calls EventLoop::run();
// nothing is thread-safe but the stop flag given to cancel_when. Async<T> is lazy: it starts when awaited (or spawned) and is
// awaited at most once. A capturing lambda coroutine reads its captures through the closure,
// so the closure must outlive the coroutine: bind it to a named variable that lives until
// run() returns — never spawn `[&]() -> Async<void> {...}()` on a temporary. And pass named
// values, not prvalue aggregates (`f(Info{})`), to coroutine parameters: g++ 12 copies such a
// prvalue into the frame bitwise, corrupting its strings (seen under ASan).

#include <atomic>
#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "parley/cancel.h"

namespace parley {

template <class T>
class Async;

namespace detail {

// Coroutine frames come from per-thread free lists by size (src/core/frame_pool.cc): a debate
// allocates and frees several frames per LLM call, of a few sizes, and the heap's own caches
// hold too few of each. A frame may be freed on another thread than the one it came from.
void* allocate_frame(std::size_t size);
void free_frame(void* frame, std::size_t size) noexcept;
// False under AddressSanitizer, where every frame is an allocation of its own.
bool frames_are_pooled() noexcept;

struct PooledFrame {
  static void* operator new(std::size_t size) { return allocate_frame(size); }
  static void operator delete(void* frame, std::size_t size) noexcept { free_frame(frame, size); }
};

struct PromiseBase : PooledFrame {
  std::coroutine_handle<> continuation = std::noop_coroutine();
  std::exception_ptr exception;

  std::suspend_always initial_suspend() noexcept { return {}; }
  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> self) noexcept {
      return self.promise().continuation;  // symmetric transfer back to the awaiter
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { exception = std::current_exception(); }
};

template <class T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Async<T> get_return_object() noexcept;
  template <class U>
  void return_value(U&& v) { value.emplace(std::forward<U>(v)); }
  T take() {
    if (exception) std::rethrow_exception(exception);
    return std::move(*value);
  }
};

template <>
struct Promise<void> : PromiseBase {
  Async<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void take() {
    if (exception) std::rethrow_exception(exception);
  }
};

}  // namespace detail

template <class T>
class [[nodiscard]] Async {
 public:
  using promise_type = detail::Promise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  explicit Async(Handle h) noexcept : handle_(h) {}
  Async(Async&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Async& operator=(Async&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Async(const Async&) = delete;
  Async& operator=(const Async&) = delete;
  ~Async() { reset(); }

  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
    handle_.promise().continuation = awaiting;
    return handle_;
  }
  T await_resume() { return handle_.promise().take(); }

 private:
  void reset() {
    if (handle_) handle_.destroy();
    handle_ = {};
  }
  Handle handle_;
};

namespace detail {
template <class T>
Async<T> Promise<T>::get_return_object() noexcept {
  return Async<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}
inline Async<void> Promise<void>::get_return_object() noexcept {
  return Async<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}

// A fire-and-forget coroutine that destroys itself when done; used to start children.
struct Detached {
  struct promise_type : PooledFrame {
    Detached get_return_object() noexcept { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }  // children catch everything
  };
};
}  // namespace detail

// Something that performs I/O for the loop (the HTTP transport, the gateway's server). poll()
// waits at most max_wait for activity, then resumes the coroutines whose I/O finished (via
// EventLoop::post). A loop may drive several: when more than one is busy it waits on their
// wait_fd()s together, bounded by their next_deadline()s, then calls poll(0) on each.
class IoDriver {
 public:
  virtual ~IoDriver() = default;
  virtual bool busy() const = 0;  // transfers in flight (or, for a server, listening)
  virtual void poll(std::chrono::milliseconds max_wait) = 0;
  // Completes every transfer in flight as cancelled (resuming their coroutines via post);
  // called by EventLoop::cancel, after which the driver starts no new transfer.
  virtual void cancel() = 0;
  // A descriptor that is readable when poll(0) has I/O to handle (an epoll set); -1 when the
  // driver has none, in which case the loop waits at most kUnwaitablePoll while it shares the
  // wait with other drivers.
  virtual int wait_fd() const { return -1; }
  // When poll(0) must next run even if wait_fd() stays quiet (a timeout); nullopt when none.
  virtual std::optional<std::chrono::steady_clock::time_point> next_deadline() const { return std::nullopt; }
  static constexpr std::chrono::milliseconds kUnwaitablePoll{1};
};

class EventLoop {
 public:
  using Clock = std::chrono::steady_clock;

  EventLoop() = default;
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;
  ~EventLoop();

  // Resume h on a later turn of the loop (never inline).
  void post(std::coroutine_handle<> h) { ready_.push_back(h); }
  // Resume h at or after `when`.
  void post_at(Clock::time_point when, std::coroutine_handle<> h);

  // Awaitable: suspends the caller until `when` (a past time still yields one turn).
  auto sleep_until(Clock::time_point when) {
    struct Awaiter {
      EventLoop* loop;
      Clock::time_point when;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) { loop->post_at(when, h); }
      void await_resume() const noexcept {}
    };
    return Awaiter{this, when};
  }
  // Awaitable: suspends the caller for d (d <= 0 still yields one turn).
  auto sleep_for(Clock::duration d) { return sleep_until(Clock::now() + d); }
  // Awaitable: sleep_until that ends as soon as `*cancel` fires (a null or already fired signal:
  // as sleep_until / one turn). Resumes exactly once, on a later turn of the loop; co_await
  // yields true when the full time passed, false when the signal cut the sleep short.
  auto sleep_until(Clock::time_point when, CancelSignal* cancel) {
    struct Awaiter {
      EventLoop* loop;
      Clock::time_point when;
      CancelSignal* cancel;
      std::shared_ptr<Wake> wake;
      CancelSignal::Subscription subscription;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) {
        wake = std::make_shared<Wake>(Wake{h});
        loop->post_wake_at(when, wake);
        if (cancel == nullptr) return;
        subscription = cancel->subscribe([loop = loop, wake = wake] {
          wake->cut_short = true;
          loop->wake_now(*wake);
        });
      }
      bool await_resume() noexcept {
        subscription.reset();
        return !wake->cut_short;
      }
    };
    return Awaiter{this, when, cancel, nullptr, {}};
  }
  auto sleep_for(Clock::duration d, CancelSignal* cancel) { return sleep_until(Clock::now() + d, cancel); }
  // Awaitable: lets other ready coroutines run first.
  auto yield() {
    struct Awaiter {
      EventLoop* loop;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) { loop->post(h); }
      void await_resume() const noexcept {}
    };
    return Awaiter{this};
  }
  // Awaitable: resumes the caller once no other coroutine is ready and no timer is due, before
  // the loop waits on I/O or a timer: what to do when nothing else can run. Idle waiters are
  // resumed one at a time, in the order they began to wait, each when the loop is idle again.
  auto when_idle() {
    struct Awaiter {
      EventLoop* loop;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) { loop->idle_waiters_.push_back(h); }
      void await_resume() const noexcept {}
    };
    return Awaiter{this};
  }

  // Starts a top-level coroutine; run() returns once all spawned work has finished.
  // An exception escaping a spawned coroutine is a bug: run() rethrows it.
  void spawn(Async<void> task);

  // The I/O drivers (the HTTP transport, the gateway's server); not owned, and each removed
  // before it is destroyed. Adding one twice or removing one never added changes nothing. One
  // busy driver is polled with the loop's wait; several busy ones are waited on together.
  void add_io(IoDriver* io);
  void remove_io(IoDriver* io);

  // Cancellation, for stopping a run: pending timers fire now and later ones at once, every I/O
  // driver completes its transfers as cancelled, and code that awaited them checks cancelled()
  // when resumed (an LLM call then ends with a kCancelled error). Irreversible.
  void cancel();
  bool cancelled() const { return cancelled_; }
  // cancel() once `*stop` is true. `stop` may be set from another thread or a signal handler:
  // run() checks it between coroutines and at least every kStopCheckInterval while it waits.
  // It must outlive run().
  void cancel_when(const std::atomic<bool>* stop);
  static constexpr std::chrono::milliseconds kStopCheckInterval{50};

  // Runs until no coroutine is ready, no timer is pending, no I/O is in flight and every
  // spawned coroutine has finished.
  void run();

  std::size_t spawned_alive() const { return alive_; }

 private:
  detail::Detached drive(Async<void> task);
  void check_stop() {
    if (stop_ != nullptr && !cancelled_ && stop_->load(std::memory_order_relaxed)) cancel();
  }

  // A sleeper that a CancelSignal may wake before its timer: whichever comes first resumes it,
  // the other finds it woken and does nothing.
  struct Wake {
    std::coroutine_handle<> handle;
    bool woken = false;
    bool cut_short = false;
  };
  void post_wake_at(Clock::time_point when, const std::shared_ptr<Wake>& wake);
  void wake_now(Wake& wake) {
    if (wake.woken) return;
    wake.woken = true;
    post(wake.handle);
  }

  struct Timer {
    Clock::time_point when;
    std::uint64_t order;  // FIFO among equal deadlines
    std::coroutine_handle<> handle;
    std::shared_ptr<Wake> wake;  // set for a sleep a CancelSignal may end first; then handle is null
    bool operator>(const Timer& o) const { return when != o.when ? when > o.when : order > o.order; }
  };
  // Moves a due (or, on cancel, pending) timer's sleeper to the ready queue.
  void release(const Timer& timer);
  // Drops the earliest timers whose sleepers a CancelSignal woke already: they resume nothing,
  // and must not keep the loop waiting (a stopped 30 s back-off would hold up a run's end).
  void drop_woken_timers() {
    while (!timers_.empty() && timers_.top().wake && timers_.top().wake->woken) timers_.pop();
  }
  std::deque<std::coroutine_handle<>> ready_;
  std::deque<std::coroutine_handle<>> idle_waiters_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::uint64_t timer_order_ = 0;
  // Waits up to `wait` for I/O: one busy driver polls with it, several share one ::poll.
  // False when no driver is busy.
  bool wait_for_io(std::chrono::milliseconds wait);
  std::vector<IoDriver*> io_;
  std::vector<IoDriver*> busy_io_;  // scratch for wait_for_io
  const std::atomic<bool>* stop_ = nullptr;
  bool cancelled_ = false;
  std::size_t alive_ = 0;
  std::exception_ptr failure_;
};

// One holder at a time on one loop, the others admitted in the order they asked (a FIFO async
// mutex): `co_await lock.acquire(loop)` returns a guard that releases when destroyed, also when
// the holder unwinds with an exception. The next waiter resumes on a later turn of the loop.
// Used where work must run one after another in the order it started (MACI's scheduler, whose
// state passes from debate to debate). Single-threaded, like the loop.
class FifoLock {
 public:
  class Guard {
   public:
    explicit Guard(FifoLock* lock) : lock_(lock) {}
    Guard(Guard&& other) noexcept : lock_(std::exchange(other.lock_, nullptr)) {}
    Guard& operator=(Guard&&) = delete;
    ~Guard() {
      if (lock_ != nullptr) lock_->release();
    }

   private:
    FifoLock* lock_;
  };

  auto acquire(EventLoop& loop) {
    struct Awaiter {
      FifoLock* lock;
      EventLoop* loop;
      bool await_ready() {
        if (lock->held_) return false;
        lock->held_ = true;
        return true;
      }
      void await_suspend(std::coroutine_handle<> h) { lock->waiters_.push_back({h, loop}); }
      Guard await_resume() { return Guard(lock); }  // a resumed waiter holds it already
    };
    return Awaiter{this, &loop};
  }
  bool held() const { return held_; }

 private:
  void release() {
    if (waiters_.empty()) {
      held_ = false;
      return;
    }
    auto [next, loop] = waiters_.front();
    waiters_.pop_front();
    loop->post(next);  // ownership passes to it: held_ stays true
  }
  bool held_ = false;
  std::deque<std::pair<std::coroutine_handle<>, EventLoop*>> waiters_;
};

// Runs every task concurrently and returns their results in order. If any task threw, the
// first exception (in task order) is rethrown after all of them have finished.
template <class T>
Async<std::vector<T>> when_all(std::vector<Async<T>> tasks) {
  struct State {
    std::size_t remaining = 0;
    std::coroutine_handle<> waiter;
    std::vector<std::optional<T>> results;
    std::vector<std::exception_ptr> errors;
  };
  struct Awaiter {
    std::vector<Async<T>>* tasks;
    State* state;
    static detail::Detached run_one(State* s, std::size_t i, Async<T> task) {
      try {
        s->results[i].emplace(co_await task);
      } catch (...) {
        s->errors[i] = std::current_exception();
      }
      if (--s->remaining == 0) s->waiter.resume();
    }
    bool await_ready() const noexcept { return tasks->empty(); }
    bool await_suspend(std::coroutine_handle<> h) {
      state->waiter = h;
      state->remaining = tasks->size() + 1;
      for (std::size_t i = 0; i < tasks->size(); ++i) run_one(state, i, std::move((*tasks)[i]));
      return --state->remaining != 0;  // all finished synchronously: do not suspend
    }
    void await_resume() const noexcept {}
  };
  State state;
  state.results.resize(tasks.size());
  state.errors.resize(tasks.size());
  co_await Awaiter{&tasks, &state};
  for (auto& e : state.errors)
    if (e) std::rethrow_exception(e);
  std::vector<T> out;
  out.reserve(tasks.size());
  for (auto& r : state.results) out.push_back(std::move(*r));
  co_return out;
}

// Hands the results of concurrent operations to their callers in the order the operations
// were issued, whatever order they complete in: result k is handed over only after results
// 0..k-1 were and their callers ran on to their next suspension, and always on a later turn of
// the loop (never inline, not even when the operation completed synchronously, as a cache hit
// does). Whatever the callers compute is then a function of the results alone, so a debate
// replays identically. Operations issued on one IssueOrder must all be awaited to the end.
class IssueOrder {
 public:
  explicit IssueOrder(EventLoop& loop) : loop_(loop) {}
  IssueOrder(const IssueOrder&) = delete;
  IssueOrder& operator=(const IssueOrder&) = delete;

  // Issues `operation` (starts it) and returns its result (or rethrows its exception) in turn.
  template <class T>
  Async<T> run(Async<T> operation) {
    const std::uint64_t ticket = issued_++;
    std::optional<T> result;
    std::exception_ptr failure;
    try {
      result.emplace(co_await operation);
    } catch (...) {
      failure = std::current_exception();
    }
    co_await Turn{this, ticket};
    if (failure) std::rethrow_exception(failure);
    co_return std::move(*result);
  }

 private:
  struct Turn {
    IssueOrder* order;
    std::uint64_t ticket;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) {
      order->waiting_.push_back({ticket, h});
      order->post_next();
    }
    void await_resume() const {
      ++order->handed_;
      order->post_next();  // runs after this caller has suspended again
    }
  };
  void post_next() {
    for (std::size_t i = 0; i < waiting_.size(); ++i) {
      if (waiting_[i].ticket != handed_) continue;
      loop_.post(waiting_[i].handle);
      waiting_[i] = waiting_.back();
      waiting_.pop_back();
      return;
    }
  }

  EventLoop& loop_;
  std::uint64_t issued_ = 0;
  std::uint64_t handed_ = 0;  // results handed over so far: the next ticket in turn
  struct Waiting {
    std::uint64_t ticket;
    std::coroutine_handle<> handle;
  };
  // Completed, not yet in turn: a debate's calls in flight at most, so a search is short.
  std::vector<Waiting> waiting_;
};

// Counting semaphore for coroutines (per-endpoint concurrency limits). Permits go to waiters in
// the order they began to wait: a released permit passes straight to the first waiter, which
// resumes through the loop. A waiter whose CancelSignal fires leaves the queue (acquire with a
// signal), so a call whose debate was given up never takes a permit from the calls behind it.
class AsyncSemaphore {
  // A waiter in the queue: lives in the awaiting coroutine's frame while it is suspended.
  struct Waiter {
    std::coroutine_handle<> handle;
    Waiter* previous = nullptr;
    Waiter* next = nullptr;
    bool queued = false;
    bool granted = false;  // a permit was handed to it (or taken at once)
  };

 public:
  explicit AsyncSemaphore(std::size_t permits) : permits_(permits) {}
  AsyncSemaphore(const AsyncSemaphore&) = delete;
  AsyncSemaphore& operator=(const AsyncSemaphore&) = delete;

  // Awaitable: co_await yields true when the caller holds a permit, false when `*cancel` fired
  // first (at once, taking nothing, when it had fired already). A waiter the signal ends leaves
  // the queue; a permit handed to it before it resumed is passed on (release), so a false never
  // holds a permit and never loses one. A null signal: only true, as acquire().
  class Acquire {
   public:
    Acquire(AsyncSemaphore* semaphore, EventLoop* loop, CancelSignal* cancel)
        : semaphore_(semaphore), loop_(loop), cancel_(cancel) {}
    Acquire(const Acquire&) = delete;
    Acquire& operator=(const Acquire&) = delete;
    ~Acquire() {
      if (waiter_.queued) semaphore_->unlink(waiter_);  // its frame destroyed while it waited
    }

    bool await_ready() {
      if (cancel_ != nullptr && cancel_->fired()) return true;
      if (semaphore_->permits_ == 0 || semaphore_->first_ != nullptr) return false;
      --semaphore_->permits_;
      waiter_.granted = true;
      return true;
    }
    void await_suspend(std::coroutine_handle<> handle) {
      waiter_.handle = handle;
      semaphore_->enqueue(waiter_);
      if (cancel_ == nullptr) return;
      subscription_ = cancel_->subscribe([this] {
        if (!waiter_.queued) return;  // granted already: await_resume passes the permit on
        semaphore_->unlink(waiter_);
        loop_->post(waiter_.handle);
      });
    }
    bool await_resume() {
      subscription_.reset();
      if (waiter_.granted && cancel_ != nullptr && cancel_->fired()) {
        semaphore_->release(*loop_);
        return false;
      }
      return waiter_.granted;
    }

   private:
    AsyncSemaphore* semaphore_;
    EventLoop* loop_;
    CancelSignal* cancel_;
    Waiter waiter_;
    CancelSignal::Subscription subscription_;
  };

  // Awaitable: waits for a permit (co_await yields true).
  Acquire acquire() { return Acquire(this, nullptr, nullptr); }
  // Awaitable: waits for a permit unless `*cancel` fires first (see Acquire).
  Acquire acquire(EventLoop& loop, CancelSignal* cancel) { return Acquire(this, &loop, cancel); }

  // Hands the permit to the first waiter (resumed through the loop), or returns it.
  void release(EventLoop& loop) {
    Waiter* first = first_;
    if (first == nullptr) {
      ++permits_;
      return;
    }
    unlink(*first);
    first->granted = true;
    loop.post(first->handle);
  }
  std::size_t waiting() const { return waiting_; }
  std::size_t available() const { return permits_; }

 private:
  void enqueue(Waiter& waiter) {
    waiter.previous = last_;
    waiter.next = nullptr;
    (last_ != nullptr ? last_->next : first_) = &waiter;
    last_ = &waiter;
    waiter.queued = true;
    ++waiting_;
  }
  void unlink(Waiter& waiter) {
    (waiter.previous != nullptr ? waiter.previous->next : first_) = waiter.next;
    (waiter.next != nullptr ? waiter.next->previous : last_) = waiter.previous;
    waiter.previous = waiter.next = nullptr;
    waiter.queued = false;
    --waiting_;
  }

  std::size_t permits_;
  std::size_t waiting_ = 0;
  Waiter* first_ = nullptr;  // the queue, first come first
  Waiter* last_ = nullptr;
};

}  // namespace parley
