#pragma once
// ChunkQueue: what a streamed debate has to say, handed from its observer (a plain callback on
// the loop thread) to the coroutine that writes it to the client, in order. Single-threaded.

#include <coroutine>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "parley/async.h"

namespace parley::gateway {

class ChunkQueue {
 public:
  explicit ChunkQueue(EventLoop& loop) : loop_(loop) {}

  void push(std::string chunk) {
    chunks_.push_back(std::move(chunk));
    wake();
  }
  // No chunk follows: next() yields nullopt once the queue is empty.
  void close() {
    closed_ = true;
    wake();
  }

  // Awaitable: the next chunk, waiting for one; nullopt once closed and drained.
  auto next() {
    struct Awaiter {
      ChunkQueue* queue;
      bool await_ready() const noexcept { return !queue->chunks_.empty() || queue->closed_; }
      void await_suspend(std::coroutine_handle<> h) { queue->waiter_ = h; }
      std::optional<std::string> await_resume() {
        if (queue->chunks_.empty()) return std::nullopt;
        std::string chunk = std::move(queue->chunks_.front());
        queue->chunks_.pop_front();
        return chunk;
      }
    };
    return Awaiter{this};
  }

 private:
  void wake() {
    if (waiter_) loop_.post(std::exchange(waiter_, nullptr));
  }

  EventLoop& loop_;
  std::deque<std::string> chunks_;
  bool closed_ = false;
  std::coroutine_handle<> waiter_;
};

}  // namespace parley::gateway
