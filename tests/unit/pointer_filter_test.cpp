#include "util/pointer_filter.h"

#include <gtest/gtest.h>

#include <vector>

namespace umbra {
namespace {

// Addresses as the tree's nodes have them: 64-byte records in one reservation.
const void* node_address(size_t i) { return reinterpret_cast<const void*>(0x7f0000000000 + i * 64); }

TEST(PointerFilter, EveryAddressAddedIsHeldAndFewOthersSeemSo) {
  for (size_t held : {size_t(10), size_t(12'000), size_t(200'000)}) {
    SCOPED_TRACE(held);
    PointerFilter filter(held);
    // Every 37th node of a tree 37 times as large: the held ones are spread among those asked about.
    for (size_t i = 0; i < held; ++i) filter.add(node_address(i * 37));
    size_t false_yes = 0, asked = 0;
    for (size_t i = 0; i < held * 37; ++i) {
      bool held_here = i % 37 == 0;
      if (held_here) {
        ASSERT_TRUE(filter.may_hold(node_address(i))) << i;
      } else {
        ++asked;
        false_yes += filter.may_hold(node_address(i));
      }
    }
    EXPECT_LT(double(false_yes) / double(asked), 0.01) << false_yes << " of " << asked;
  }
}

// A map past the filter's bound (268 million addresses would ask for 1 GB): 64 MB, and still no false "no".
TEST(PointerFilter, AMapPastTheBoundGets64MBAndIsStillHeld) {
  PointerFilter filter(size_t(1) << 28);
  EXPECT_EQ(filter.bytes(), size_t(64) << 20);
  for (size_t i = 0; i < 1000; ++i) filter.add(node_address(i * 1'000'003));
  for (size_t i = 0; i < 1000; ++i) ASSERT_TRUE(filter.may_hold(node_address(i * 1'000'003))) << i;
}

TEST(PointerFilter, AnEmptyFilterHoldsNothing) {
  PointerFilter filter(0);
  for (size_t i = 0; i < 100'000; ++i) ASSERT_FALSE(filter.may_hold(node_address(i)));
}

}  // namespace
}  // namespace umbra
