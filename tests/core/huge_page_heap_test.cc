// The heap is marked for transparent huge pages where Linux gives them on
// request, and left alone when the user says KVROUTE_HUGE_PAGES=0.
#include "sim/core/huge_page_heap.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace kvroute::sim {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizedMalloc = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitizedMalloc = true;
#else
constexpr bool kSanitizedMalloc = false;
#endif
#else
constexpr bool kSanitizedMalloc = false;
#endif

bool HugePagesOnRequest() {
  std::ifstream setting("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(setting, modes);
  return modes.find("[madvise]") != std::string::npos;
}

TEST(HugePageHeapTest, MarksTheHeapWhereHugePagesAreGivenOnRequest) {
  if (kSanitizedMalloc) GTEST_SKIP() << "the sanitizer's malloc has no heap to mark";
  if (!HugePagesOnRequest()) {
    EXPECT_FALSE(BackHeapWithHugePages(64 << 20));
    GTEST_SKIP() << "transparent huge pages are not in 'madvise' mode here";
  }
  ASSERT_TRUE(BackHeapWithHugePages(64 << 20));
  EXPECT_TRUE(HeapMarkedForHugePages());
  // What the heap then holds is ordinary memory.
  std::string text(1 << 20, 'k');
  EXPECT_EQ(text[(1 << 20) - 1], 'k');
}

TEST(HugePageHeapTest, KvrouteHugePagesZeroLeavesTheHeapAlone) {
  ASSERT_EQ(setenv("KVROUTE_HUGE_PAGES", "0", 1), 0);
  EXPECT_FALSE(BackHeapWithHugePages(64 << 20));
  unsetenv("KVROUTE_HUGE_PAGES");
}

}  // namespace
}  // namespace kvroute::sim
