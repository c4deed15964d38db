// Preble's TTFT overload detector (preble_overload.h; policies.md §5): a
// (node, replica) pair is overloaded when the mean TTFT of the window's
// second half is at least `factor` times the first half's; each answer follows
// the pair through adds, renames and erasures.
#include "policies/preble_overload.h"

#include <gtest/gtest.h>

namespace kvroute::policies {
namespace {

using sim::FromSeconds;

TEST(TtftOverloadDetectorTest, SecondHalfAtLeastTwiceTheFirstIsOverloaded) {
  TtftOverloadDetector detector(FromSeconds(180), 2);
  detector.Add(FromSeconds(10), 7, 0, 0.1);
  detector.Add(FromSeconds(150), 7, 0, 0.2);
  EXPECT_TRUE(detector.Overloaded(7, 0, FromSeconds(160)));   // halves split at 70 s
  EXPECT_FALSE(detector.Overloaded(7, 0, FromSeconds(200)));  // 10 s is out of the window
  EXPECT_FALSE(detector.Overloaded(7, 1, FromSeconds(160)));
  detector.Add(FromSeconds(151), 7, 0, 0.05);  // second-half mean 0.125 < 0.2
  EXPECT_FALSE(detector.Overloaded(7, 0, FromSeconds(160)));
  detector.Rename(7, 9, 0);
  EXPECT_FALSE(detector.Overloaded(7, 0, FromSeconds(160)));
}

// Each answer is about the pair as it is now, whatever was asked before it
// was added, renamed or erased.
TEST(TtftOverloadDetectorTest, AnswersFollowThePairsThroughAddsRenamesAndErasures) {
  TtftOverloadDetector detector(FromSeconds(180), 2);
  const sim::Time now = FromSeconds(160);
  EXPECT_FALSE(detector.Overloaded(7, 0, now));  // no such pair yet
  detector.Add(FromSeconds(10), 7, 0, 0.1);
  detector.Add(FromSeconds(150), 7, 0, 0.2);
  EXPECT_TRUE(detector.Overloaded(7, 0, now));
  EXPECT_FALSE(detector.Overloaded(9, 0, now));
  detector.Rename(7, 9, 0);
  EXPECT_TRUE(detector.Overloaded(9, 0, now));
  detector.Rename(9, 7, 0);
  EXPECT_FALSE(detector.Overloaded(9, 0, now));
  EXPECT_TRUE(detector.Overloaded(7, 0, now));
  detector.Erase(7, 0);
  EXPECT_FALSE(detector.Overloaded(7, 0, now));
  detector.Add(FromSeconds(10), 7, 1, 0.1);  // another replica's pair
  detector.Add(FromSeconds(150), 7, 1, 0.3);
  EXPECT_TRUE(detector.Overloaded(7, 1, now));
  EXPECT_FALSE(detector.Overloaded(7, 0, now));
}

TEST(TtftOverloadDetectorTest, ARenameReplacesTheTargetAndAnErasedPairStartsAfresh) {
  TtftOverloadDetector detector(FromSeconds(180), 2);
  detector.Add(FromSeconds(10), 7, 0, 0.1);
  detector.Add(FromSeconds(150), 7, 0, 0.2);
  detector.Add(FromSeconds(10), 9, 0, 0.1);
  detector.Rename(7, 9, 0);  // 9's own points are gone: 7's replace them
  EXPECT_TRUE(detector.Overloaded(9, 0, FromSeconds(160)));
  detector.Erase(9, 0);
  EXPECT_FALSE(detector.Overloaded(9, 0, FromSeconds(160)));
  // A new pair reuses the erased one's storage but none of its points.
  detector.Add(FromSeconds(150), 8, 0, 0.2);
  EXPECT_FALSE(detector.Overloaded(8, 0, FromSeconds(160)));  // no first half
  detector.Add(FromSeconds(155), 8, 0, 0.4);
  EXPECT_FALSE(detector.Overloaded(8, 0, FromSeconds(160)));
}

}  // namespace
}  // namespace kvroute::policies
