// CancelSignal: callbacks by subscription id, so that unsubscribing during fire() is safe.
#include "parley/cancel.h"

#include <utility>

namespace parley {

CancelSignal::Subscription::Subscription(Subscription&& other) noexcept
    : signal_(std::exchange(other.signal_, nullptr)), id_(other.id_) {}

CancelSignal::Subscription& CancelSignal::Subscription::operator=(Subscription&& other) noexcept {
  if (this != &other) {
    reset();
    signal_ = std::exchange(other.signal_, nullptr);
    id_ = other.id_;
  }
  return *this;
}

void CancelSignal::Subscription::reset() {
  if (signal_ != nullptr) signal_->callbacks_.erase(id_);
  signal_ = nullptr;
}

CancelSignal::~CancelSignal() = default;

void CancelSignal::fire(std::string reason) {
  if (fired_) return;
  fired_ = true;
  reason_ = std::move(reason);
  // Each callback is taken out before it runs: one that unsubscribes a later one removes it
  // from the map, and its own subscription's reset() finds nothing to erase.
  while (!callbacks_.empty()) {
    auto node = callbacks_.extract(callbacks_.begin());
    node.mapped()();
  }
}

CancelSignal::Subscription CancelSignal::subscribe(std::function<void()> callback) {
  if (fired_) {
    callback();
    return {};
  }
  const std::uint64_t id = next_id_++;
  callbacks_.emplace(id, std::move(callback));
  return Subscription(this, id);
}

}  // namespace parley
