// The kinds of `muster gen` as data (gen_kinds.h): each declares its flags once, with names no other flag of the
// kind takes; the flags that need more than a copy become options (finish_request); the usage lists every kind.
#include "gen/gen_kinds.h"

#include <algorithm>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace muster::gen {
namespace {

// Records the names a kind declares.
class Names : public FlagVisitor {
 public:
  std::vector<std::string> all;
  void text(std::string&, const char* names, const char*) override { add(names); }
  void choice(std::string&, const char* names, const char*, std::vector<std::string>) override { add(names); }
  void texts(std::vector<std::string>&, const char* names, const char*, char) override { add(names); }
  void number(int&, const char* names, const char*, int, int) override { add(names); }
  void real(double&, const char* names, const char*, double, double) override { add(names); }
  void flag(bool&, const char* names, const char*) override { add(names); }

 private:
  void add(const std::string& names) {
    size_t start = 0;
    while (start <= names.size()) {
      size_t comma = names.find(',', start);
      all.push_back(names.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
};

TEST(GenKinds, EveryKindIsFoundByNameAndItsFlagsAreDistinct) {
  ASSERT_EQ(gen_kinds().size(), 9u);
  for (const auto& kind : gen_kinds()) {
    EXPECT_EQ(find_gen_kind(kind.name), &kind);
    Names names;
    GenRequest request;
    kind.flags(names, request);
    std::set<std::string> seen;
    for (const auto& name : names.all) {
      EXPECT_EQ(name.rfind("--", 0), 0u) << kind.name << ": " << name;
      EXPECT_TRUE(seen.insert(name).second) << kind.name << " declares " << name << " twice";
      EXPECT_FALSE(name == "--output" || name == "--node-rank") << kind.name << ": " << name << " is the CLI's";
    }
  }
  EXPECT_EQ(find_gen_kind("nope"), nullptr);
}

TEST(GenKinds, AKindsFlagsFillItsRequest) {
  Names names;
  GenRequest request;
  find_gen_kind("deepspeed")->flags(names, request);
  EXPECT_NE(std::find(names.all.begin(), names.all.end(), "--deepspeed-stage"), names.all.end());
  EXPECT_NE(std::find(names.all.begin(), names.all.end(), "--micro-batch"), names.all.end());
}

TEST(GenKinds, FinishRequestParsesAddressesAndNames) {
  GenRequest request;
  request.addresses = {"node1=10.0.0.1", "node2=10.0.0.2"};
  request.names = "node[1-2]";
  ASSERT_TRUE(finish_request(request, {"hosts", "-w", "10.0.0.[1-2]", "--names", "node[1-2]"}));
  EXPECT_EQ(request.options.network.addresses.at("node2"), "10.0.0.2");
  EXPECT_EQ(request.options.network.names, (std::vector<std::string>{"node1", "node2"}));
  EXPECT_EQ(request.options.command_line, "muster gen hosts -w '10.0.0.[1-2]' --names 'node[1-2]'");
}

TEST(GenKinds, ABadAddressIsAUsageErrorNamingIt) {
  GenRequest request;
  request.addresses = {"node1:10.0.0.1"};
  auto finished = finish_request(request, {"hosts"});
  ASSERT_FALSE(finished);
  EXPECT_EQ(finished.error().kind, ErrorKind::usage);
  EXPECT_NE(finished.error().message.find("'node1:10.0.0.1' is not NODE=IP"), std::string::npos);
}

TEST(GenKinds, UsageListsEveryKindAndAnUnknownOneGetsASuggestion) {
  std::string usage = gen_kinds_usage();
  for (const auto& kind : gen_kinds()) EXPECT_NE(usage.find(std::string("  ") + kind.name), std::string::npos);
  EXPECT_EQ(unknown_gen_kind("hostfil").rfind("muster gen: unknown kind 'hostfil', did you mean 'hostfile'?\n\n", 0),
            0u);
}

}  // namespace
}  // namespace muster::gen
