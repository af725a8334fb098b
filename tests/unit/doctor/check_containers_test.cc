// doctor --container-image: the container findings from recorded node facts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "doctor/checks/checks.h"

namespace muster::doctor {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kNames = {"node1", "node2", "node3"};
const std::string kImage = "localhost/muster-test:torch";
const std::string kId = "6fb54dcf059e0cf553dc905ee45dd5d1d85bb4c4e125c521a88a76443ed4d513";

std::vector<NodeFacts> cluster_with_image() {
  std::vector<NodeFacts> facts(3);
  for (std::size_t i = 0; i < facts.size(); ++i) {
    facts[i].hostname = kNames[i];
    facts[i].python.version = "3.11.2";
    facts[i].python.packages = {{"torch", "1.13.0a0"}};
    facts[i].container = {kImage, "podman", "podman version 4.3.1", kId, false, false, false, ""};
  }
  return facts;
}

std::vector<Finding> container_findings(const std::vector<NodeFacts>& facts) {
  std::vector<Finding> all = run_checks(kNames, facts, CheckOptions{}), out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out), [](const Finding& f) { return f.check == "containers"; });
  return out;
}

TEST(CheckContainers, SameImageEverywhere) {
  auto findings = container_findings(cluster_with_image());
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::ok);
  EXPECT_EQ(findings[0].message, "localhost/muster-test:torch is 6fb54dcf059e on all 3 nodes");
}

TEST(CheckContainers, NoContainerFindingsWithoutAnImage) {
  auto facts = cluster_with_image();
  for (auto& node : facts) node.container = {};
  EXPECT_TRUE(container_findings(facts).empty());
}

TEST(CheckContainers, NamesTheNodesLackingTheImageAndThoseWhereItDiffers) {
  auto facts = cluster_with_image();
  facts[1].container.image_id.clear();
  facts[1].python.error = "the image is not on this node";
  facts[2].container.image_id = "35ea2d55f528b9463d605a5967d221274327a449f5ed3e89b3cf1c79bcad1521";
  auto findings = container_findings(facts);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].severity, Severity::error);
  EXPECT_EQ(findings[0].node, "node2");
  EXPECT_EQ(findings[0].message, "localhost/muster-test:torch is not on node2");
  EXPECT_EQ(findings[0].fix, "muster image push localhost/muster-test:torch -w node2");
  EXPECT_EQ(findings[1].node, "node3");
  EXPECT_EQ(findings[1].message, "localhost/muster-test:torch differs: node3 has 35ea2d55f528, node1 has 6fb54dcf059e");
  EXPECT_THAT(findings[1].fix, HasSubstr("muster image push localhost/muster-test:torch -w node3"));
  // The python of a node without the image is not reported a second time.
  auto all = run_checks(kNames, facts, CheckOptions{});
  for (const auto& f : all) EXPECT_FALSE(f.check == "versions" && f.node == "node2") << f.message;
}

TEST(CheckContainers, MissingRuntime) {
  auto facts = cluster_with_image();
  facts[0].container.runtime.clear();
  facts[0].container.image_id.clear();
  facts[0].container.error = "neither podman nor docker is installed (not in PATH)";
  auto findings = container_findings(facts);
  ASSERT_GE(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::error);
  EXPECT_THAT(findings[0].message, HasSubstr("no container runtime on node1"));
  EXPECT_THAT(findings[0].fix, HasSubstr("apt-get install podman"));
}

TEST(CheckContainers, GpusWithoutTheRuntimeSupport) {
  auto facts = cluster_with_image();
  facts[0].container.gpu_devices = true;  // podman without a CDI spec
  facts[1].container.gpu_devices = true;
  facts[1].container.gpu_cdi = true;
  facts[2].container.runtime = "docker";
  facts[2].container.gpu_devices = true;  // docker without the toolkit
  auto findings = container_findings(facts);
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[1].node, "node1");
  EXPECT_THAT(findings[1].message, HasSubstr("node1 has NVIDIA GPUs, but podman passes GPUs through CDI"));
  EXPECT_THAT(findings[1].fix, HasSubstr("nvidia-ctk cdi generate"));
  EXPECT_EQ(findings[2].node, "node3");
  EXPECT_THAT(findings[2].fix, HasSubstr("nvidia-ctk runtime configure --runtime=docker"));
}

TEST(CheckContainers, VersionsSayTheyWereReadInsideTheImage) {
  auto all = run_checks(kNames, cluster_with_image(), CheckOptions{});
  auto versions = std::find_if(all.begin(), all.end(), [](const Finding& f) { return f.check == "versions"; });
  ASSERT_NE(versions, all.end());
  EXPECT_THAT(versions->message, HasSubstr("(python inside localhost/muster-test:torch)"));
}

}  // namespace
}  // namespace muster::doctor
