// The loader's lock as dl_iterate_phdr takes it, and giving it back after a jump out of its callback.
#include "snapshot/loader_lock.h"

#include <gtest/gtest.h>
#include <link.h>
#include <setjmp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <thread>

namespace umbra {
namespace {

pid_t self() { return pid_t(syscall(SYS_gettid)); }

TEST(LoaderLock, HeldOncePerDlIteratePhdrTheThreadIsInside) {
  ASSERT_TRUE(find_loader_lock());
  EXPECT_EQ(loader_lock_holds(self()), 0u);
  unsigned inside = 0, nested = 0;
  struct Seen {
    unsigned* inside;
    unsigned* nested;
  } seen{&inside, &nested};
  dl_iterate_phdr(
      [](dl_phdr_info*, size_t, void* data) {
        auto& s = *static_cast<Seen*>(data);
        *s.inside = loader_lock_holds(self());
        dl_iterate_phdr(
            [](dl_phdr_info*, size_t, void* n) {
              *static_cast<unsigned*>(n) = loader_lock_holds(self());
              return 1;
            },
            s.nested);
        return 1;
      },
      &seen);
  EXPECT_EQ(inside, 1u);
  EXPECT_EQ(nested, 2u);
  EXPECT_EQ(loader_lock_holds(self()), 0u);
}

// A fault inside dl_iterate_phdr's callback is left by a jump, as the capture handler's fault guard does: the lock
// stays taken (another thread's dl_iterate_phdr would wait for ever) until the holds are given back.
sigjmp_buf g_out;

TEST(LoaderLock, HoldsLeftByAJumpOutOfTheCallbackAreGivenBack) {
  ASSERT_TRUE(find_loader_lock());
  unsigned before = loader_lock_holds(self());
  if (sigsetjmp(g_out, 0) == 0) {
    dl_iterate_phdr([](dl_phdr_info*, size_t, void*) -> int { siglongjmp(g_out, 1); }, nullptr);
  }
  EXPECT_EQ(loader_lock_holds(self()), before + 1);  // left taken by the jump
  release_loader_lock_to(self(), before);
  EXPECT_EQ(loader_lock_holds(self()), before);
  bool other_thread_got_in = false;
  std::thread other([&] {
    dl_iterate_phdr([](dl_phdr_info*, size_t, void* done) {
      *static_cast<bool*>(done) = true;
      return 1;
    }, &other_thread_got_in);
  });
  other.join();
  EXPECT_TRUE(other_thread_got_in);
}

// The handler may call dl_iterate_phdr only when that cannot wait: the lock free, or wholly its own thread's.
TEST(LoaderLock, MayBeTakenWhenFreeOrOwnedNotWhileAnotherThreadHoldsIt) {
  ASSERT_TRUE(find_loader_lock());
  EXPECT_TRUE(loader_lock_may_be_taken(self()));
  bool inside = false;
  dl_iterate_phdr([](dl_phdr_info*, size_t, void* r) {
    *static_cast<bool*>(r) = loader_lock_may_be_taken(self());
    return 1;
  }, &inside);
  EXPECT_TRUE(inside);
  struct Holding {
    std::atomic<int> step{0};
    std::atomic<pid_t> tid{0};
  } holding;
  std::thread holder([&] {
    dl_iterate_phdr([](dl_phdr_info*, size_t, void* h) {
      auto& st = *static_cast<Holding*>(h);
      st.tid = self();
      st.step = 1;
      while (st.step != 2) std::this_thread::yield();
      return 1;
    }, &holding);
  });
  while (holding.step != 1) std::this_thread::yield();
  EXPECT_FALSE(loader_lock_may_be_taken(self()));
  // The holder is named, so that a handler can tell whether it is one of its own.
  EXPECT_EQ(loader_lock_owner(), holding.tid.load());
  holding.step = 2;
  holder.join();
  EXPECT_TRUE(loader_lock_may_be_taken(self()));
  EXPECT_EQ(loader_lock_owner(), 0);
}

}  // namespace
}  // namespace umbra
