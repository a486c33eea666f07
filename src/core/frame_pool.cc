// Coroutine frames from per-thread free lists (detail::allocate_frame in parley/async.h).
// A debate allocates and frees several frames per LLM call, all of a few sizes, with hundreds
// of debates interleaved: glibc keeps only 7 freed chunks of a size for quick reuse, so most
// frames went through its bins. Here a freed frame waits, without limit, on the list of its
// size class and is handed out again first.
#include <cstddef>
#include <new>
#include <utility>

#include "parley/async.h"

namespace parley::detail {

#if defined(__SANITIZE_ADDRESS__)
// Under AddressSanitizer every frame is an allocation of its own, so that a use after free is caught.
void* allocate_frame(std::size_t size) { return ::operator new(size); }
void free_frame(void* frame, std::size_t) noexcept { ::operator delete(frame); }
#else
namespace {

constexpr std::size_t kGranule = 16;  // glibc's own: a frame takes no more than malloc would give it
constexpr std::size_t kClasses = 4096 / kGranule + 1;  // frames up to 4 KiB are pooled; larger ones are rare

struct FreeFrame {
  FreeFrame* next;
};

// Plain data, so that it stays usable during the thread's exit: the Reaper empties the lists,
// and a frame freed after that goes straight back to the heap.
struct FreeLists {
  FreeFrame* heads[kClasses];
  bool closed;
};
thread_local FreeLists free_lists{};

struct Reaper {
  ~Reaper() {
    for (FreeFrame*& head : free_lists.heads) {
      while (head != nullptr) ::operator delete(std::exchange(head, head->next));
    }
    free_lists.closed = true;
  }
};
thread_local Reaper reaper;

std::size_t size_class(std::size_t size) { return (size + kGranule - 1) / kGranule; }

}  // namespace

void* allocate_frame(std::size_t size) {
  const std::size_t size_class_index = size_class(size);
  if (size_class_index >= kClasses || free_lists.closed) return ::operator new(size);
  (void)&reaper;  // an odr-use: constructs it on this thread, so that it runs at the thread's exit
  if (FreeFrame* frame = free_lists.heads[size_class_index]) {
    free_lists.heads[size_class_index] = frame->next;
    return frame;
  }
  return ::operator new(size_class_index * kGranule);
}

void free_frame(void* frame, std::size_t size) noexcept {
  const std::size_t size_class_index = size_class(size);
  if (size_class_index >= kClasses || free_lists.closed) {
    ::operator delete(frame);
    return;
  }
  auto* node = static_cast<FreeFrame*>(frame);
  node->next = free_lists.heads[size_class_index];
  free_lists.heads[size_class_index] = node;
}
#endif

}  // namespace parley::detail
