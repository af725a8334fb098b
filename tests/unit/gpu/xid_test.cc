// The XID catalogue: every code the issue names is known, with a meaning and a concrete fix, and whose fault it is
// matches what NVIDIA documents (the program's for 13/31/43/45, the GPU's or node's for memory, bus, link and
// firmware errors).
#include "gpu/xid.h"

#include <gtest/gtest.h>

#include <string>

namespace muster::gpu {
namespace {

TEST(Xid, EveryCodeOfTheIssueIsKnownWithMeaningAndFix) {
  for (int code : {13, 31, 43, 45, 48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120}) {
    XidInfo info = xid_info(code);
    EXPECT_EQ(info.code, code);
    EXPECT_NE(info.fault, XidFault::unknown) << code;
    EXPECT_GT(std::string(info.name).size(), 5u) << code;
    EXPECT_GT(std::string(info.meaning).size(), 40u) << code;
    EXPECT_GT(std::string(info.fix).size(), 20u) << code;
  }
}

TEST(Xid, WhoseFaultEachCodeIs) {
  for (int code : {13, 31, 43, 45}) EXPECT_EQ(xid_info(code).fault, XidFault::workload) << code;
  for (int code : {48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120, 154}) {
    EXPECT_EQ(xid_info(code).fault, XidFault::node) << code;
  }
}

TEST(Xid, WhatStopsTheWorkOnTheGpu) {
  for (int code : {48, 61, 62, 64, 74, 79, 94, 95, 119, 120, 154}) EXPECT_TRUE(xid_info(code).stops_work) << code;
  // A recorded remap and a high corrected-error rate leave the GPU running: the job goes on.
  for (int code : {13, 31, 43, 45, 63, 92}) EXPECT_FALSE(xid_info(code).stops_work) << code;
}

TEST(Xid, EccEventsAreMarked) {
  for (int code : {48, 63, 64, 92, 94, 95}) EXPECT_TRUE(xid_info(code).ecc) << code;
  for (int code : {13, 31, 79, 74}) EXPECT_FALSE(xid_info(code).ecc) << code;
}

TEST(Xid, TheFixesSayWhatToRun) {
  EXPECT_NE(std::string(xid_info(79).fix).find("reboot"), std::string::npos);
  EXPECT_NE(std::string(xid_info(48).fix).find("nvidia-smi -r"), std::string::npos);
  EXPECT_NE(std::string(xid_info(95).fix).find("nvidia-smi -r"), std::string::npos);
  EXPECT_NE(std::string(xid_info(64).fix).find("RMA"), std::string::npos);
  EXPECT_NE(std::string(xid_info(74).fix).find("nvlink"), std::string::npos);
  EXPECT_NE(std::string(xid_info(31).fix).find("CUDA_LAUNCH_BLOCKING=1"), std::string::npos);
}

TEST(Xid, AnUnknownCodePointsToNvidiasList) {
  XidInfo info = xid_info(999);
  EXPECT_EQ(info.code, 999);
  EXPECT_EQ(info.fault, XidFault::unknown);
  EXPECT_FALSE(info.stops_work);
  EXPECT_NE(std::string(info.fix).find("xid-errors"), std::string::npos);
}

TEST(Xid, KnownCodesAreSorted) {
  auto codes = known_xids();
  EXPECT_TRUE(std::is_sorted(codes.begin(), codes.end()));
  EXPECT_EQ(codes.size(), 17u);
}

}  // namespace
}  // namespace muster::gpu
