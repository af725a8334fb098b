#include "util/block_queue.h"

#include <cstring>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace muster {
namespace {

// A FIFO against a plain string: appends and in-place writes of every size (some larger than a block, some
// reserving more than they use), drained a front block at a time in random pieces, with the queue backing up
// by several blocks and emptying again.
TEST(BlockQueue, KeepsOrderAgainstAModel) {
  std::mt19937 rng(7);
  BlockQueue queue;
  std::string model;  // what is queued, in order
  size_t serial = 0;
  auto piece = [&](size_t n) {
    std::string bytes(n, '\0');
    for (auto& c : bytes) c = static_cast<char>('a' + (serial++ % 26));
    return bytes;
  };
  for (int round = 0; round < 3000; ++round) {
    size_t n = std::uniform_int_distribution<size_t>(0, round % 50 == 0 ? 3 * BlockQueue::kBlockBytes : 70000)(rng);
    std::string bytes = piece(n);
    if (rng() % 2) {
      size_t extra = rng() % 2 ? 0 : 65536;
      auto space = queue.reserve_back(n + extra);
      ASSERT_EQ(space.size(), n + extra);
      std::memcpy(space.data(), bytes.data(), n);
      queue.commit_back(n);
    } else {
      queue.append(bytes);
    }
    model += bytes;
    ASSERT_EQ(queue.size(), model.size());
    // Drain some: more when the queue is long, everything now and then.
    size_t want = rng() % 7 == 0 ? model.size() : std::uniform_int_distribution<size_t>(0, model.size())(rng) / 2;
    while (want > 0 && !queue.empty()) {
      std::string_view front = queue.pending();
      ASSERT_FALSE(front.empty());
      ASSERT_EQ(front, std::string_view(model).substr(0, front.size()));
      size_t take = std::min({want, front.size(), std::uniform_int_distribution<size_t>(1, front.size())(rng)});
      queue.consumed(take);
      model.erase(0, take);
      want -= take;
    }
    ASSERT_EQ(queue.size(), model.size());
    ASSERT_EQ(queue.empty(), model.empty());
  }
}

// Queued bytes stay where they are until consumed (nothing is moved to make room), and pending() is never empty
// while something is queued.
TEST(BlockQueue, NeverMovesQueuedBytes) {
  BlockQueue queue;
  queue.append(std::string(1000, 'x'));
  const char* first = queue.pending().data();
  for (int i = 0; i < 40; ++i) {
    queue.append(std::string(100000, static_cast<char>('a' + i % 26)));
    ASSERT_EQ(queue.pending().data(), first);
  }
  queue.consumed(999);
  EXPECT_EQ(queue.pending().data(), first + 999);
  EXPECT_EQ(queue.pending().substr(0, 2), "xa");
  while (!queue.empty()) {
    ASSERT_FALSE(queue.pending().empty());
    queue.consumed(queue.pending().size());
  }
  EXPECT_TRUE(queue.pending().empty());
  EXPECT_EQ(queue.size(), 0u);
}

}  // namespace
}  // namespace muster
