// BufferPools: how runs share a session's buffer pools (exec/graph_runner.h).
#include "exec/graph_runner.h"

#include <gtest/gtest.h>

namespace vt {
namespace {

TEST(BufferPoolsTest, LoneCallerReusesOneWarmPool) {
  BufferPools pools;
  BufferPool* first = nullptr;
  {
    BufferPools::Lease a = pools.Acquire();
    first = a.get();
    a.get()->Put(a.get()->Get(256));  // a released intermediate stays pooled
  }
  BufferPools::Lease b = pools.Acquire();
  EXPECT_EQ(b.get(), first);
  EXPECT_EQ(b.get()->pooled_bytes(), 256u);
  EXPECT_EQ(pools.size(), 1u);
}

TEST(BufferPoolsTest, ConcurrentLeasesGetDistinctPools) {
  BufferPools pools;
  BufferPools::Lease a = pools.Acquire();
  BufferPools::Lease b = pools.Acquire();
  EXPECT_NE(a.get(), b.get());
  EXPECT_EQ(pools.size(), 2u);
}

TEST(BufferPoolsTest, BufferStillReferencedIsNotPooled) {
  BufferPool pool;
  std::shared_ptr<Storage> s = pool.Get(64);
  std::shared_ptr<Storage> held = s;  // e.g. an output the caller keeps
  pool.Put(std::move(s));
  EXPECT_EQ(pool.pooled_bytes(), 0u);
  EXPECT_NE(pool.Get(64), held);
}

TEST(BufferPoolsTest, SlotVectorIsReusedWithItsCapacityAndNoValues) {
  BufferPool pool;
  std::vector<Value> a = pool.TakeSlots(40);
  ASSERT_EQ(a.size(), 40u);
  std::shared_ptr<Storage> held = Storage::AllocateUninitialized(64);
  a[3] = Value(Tensor(DType::kFloat32, Layout::Contiguous({16}), held));
  const Value* data = a.data();
  pool.GiveSlots(std::move(a));
  EXPECT_EQ(held.use_count(), 1) << "giving the vector back releases its values";
  std::vector<Value> b = pool.TakeSlots(25);
  EXPECT_EQ(b.data(), data) << "the same allocation, no new one";
  ASSERT_EQ(b.size(), 25u);
  for (const Value& v : b) EXPECT_FALSE(v.is_tensor());
  std::vector<Value> c = pool.TakeSlots(7);  // none given back: a new vector
  EXPECT_NE(c.data(), data);
  EXPECT_EQ(c.size(), 7u);
}

}  // namespace
}  // namespace vt
