#include "doctor/ssh/pairs.h"

#include <gtest/gtest.h>

namespace muster::doctor {
namespace {

const std::string kKeyA = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIPjqJIQQAI+TORMzuT/TxgpyIv1Z99r8q16GKmy0/ke";  // node1's user key
const std::string kKeyB = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJdQstIPgI5PZz7qG4+PlTaleR/UOk6eFv+PzZmozPPv";  // node2's user key
const std::string kHostB = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILVfAecAwcAaiEXvKzvteeUmfoC70/R3aBdkV9q5yS7b";  // node2's sshd host key
const std::string kOther = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGipE4Ntz97W2oTc3oL4TCSZKxdDvBiK3fc+fgyE8Oul";
// What `ssh-keygen -lf` prints for kHostB.
const std::string kHostBPrint = "SHA256:AmWKiJLBwCpBelwrOZrqfZ+mqaVA0g2B9G2ffhHjVrk";

// node1's report on node2 (a healthy pair) as the node script prints it.
std::string from_report(const std::string& known_line, const std::string& id_line = "id node2 " + kKeyA + " root@node1") {
  return "me root\n"
         "ak " + kKeyB + " root@node2\n"
         "peer node2 10.0.0.12 22 root ask yes no\n" +
         (known_line.empty() ? "" : "kh node2 " + known_line + "\n") + id_line + "\n"
         "reach node2 SSH-2.0-OpenSSH_9.2p1 Debian-2\n"
         "ring ok\n";
}
std::string to_report(const std::string& authorized = "ak " + kKeyA + " root@node1") {
  return "me root\n" + authorized + "\n";
}

PairJudgement judge(const std::string& from, const std::string& to, std::vector<std::string> served = {kHostBPrint}) {
  return judge_pair("node1", parse_ssh_view(from), "node2", parse_ssh_view(to), served);
}

TEST(SshPairs, PlainKnownHostsAndAuthorizedKeyIsOk) {
  auto judged = judge(from_report("node2,10.0.0.12 " + kHostB), to_report());
  EXPECT_EQ(judged.verdict, PairVerdict::ok) << judged.reason;
}

TEST(SshPairs, HashedKnownHostsEntryIsOk) {
  // The node prints its known_hosts file once; the head finds the hashed entry for node2 (made by ssh-keygen -H).
  std::string report = "me root\n"
                       "peer node2 node2 22 root ask yes no\n"
                       "khf node2 /root/.ssh/known_hosts\n"
                       "khl /root/.ssh/known_hosts |1|wLw6Glu1oI4SZxUem7I6FJCg/Aw=|KklM+IygoA2/O39SibhPs8cJQD8= " + kOther + "\n"
                       "khl /root/.ssh/known_hosts |1|G8vxMOEM8dmrsrmVJCx+/Kz1UCk=|cskK/5UMtq7WVN8caa5CfERNFZM= " + kHostB + "\n"
                       "id node2 " + kKeyA + "\n"
                       "reach node2 SSH-2.0-OpenSSH_9.2p1\n";
  auto judged = judge(report, to_report());
  EXPECT_EQ(judged.verdict, PairVerdict::ok) << judged.reason;
  // The same file, consulted for another name: no entry.
  report.replace(report.find("peer node2 node2"), 16, "peer node2 node9");
  EXPECT_EQ(judge(report, to_report()).verdict, PairVerdict::fails);
}

TEST(SshPairs, PlainKnownHostsFileWithWildcardsAndAlias) {
  std::string report = "me root\n"
                       "peer node2 10.0.0.12 2222 root ask yes no\n"
                       "khf node2 /etc/ssh/ssh_known_hosts\n"
                       "khl /etc/ssh/ssh_known_hosts [10.0.0.*]:2222 " + kHostB + "\n"
                       "id node2 " + kKeyA + "\n"
                       "reach node2 SSH-2.0-OpenSSH_9.2p1\n";
  EXPECT_EQ(judge(report, to_report()).verdict, PairVerdict::ok);
  report += "alias node2 gpu2\n";  // HostKeyAlias: looked up as gpu2, which no line names
  EXPECT_EQ(judge(report, to_report()).verdict, PairVerdict::fails);
}

TEST(SshPairs, MissingKnownHostsEntryFails) {
  auto judged = judge(from_report(""), to_report());
  EXPECT_EQ(judged.verdict, PairVerdict::fails);
  EXPECT_NE(judged.reason.find("node1's known_hosts has no key for node2"), std::string::npos) << judged.reason;
}

TEST(SshPairs, MissingKnownHostsEntryIsFineWithAcceptNew) {
  std::string report = from_report("");
  report.replace(report.find(" ask "), 5, " accept-new ");
  EXPECT_EQ(judge(report, to_report()).verdict, PairVerdict::ok);
}

TEST(SshPairs, WrongHostKeyFails) {
  auto judged = judge(from_report("node2 " + kOther), to_report());
  EXPECT_EQ(judged.verdict, PairVerdict::fails);
  EXPECT_NE(judged.reason.find("another host key for node2"), std::string::npos) << judged.reason;
}

TEST(SshPairs, RevokedHostKeyFails) {
  auto judged = judge(from_report("@revoked node2 " + kHostB), to_report());
  EXPECT_EQ(judged.verdict, PairVerdict::fails);
  EXPECT_NE(judged.reason.find("@revoked"), std::string::npos) << judged.reason;
}

TEST(SshPairs, UnknownServedKeysAreUnsureNeverOk) {
  EXPECT_EQ(judge(from_report("node2 " + kHostB), to_report(), {}).verdict, PairVerdict::unsure);
}

TEST(SshPairs, KeyNotAuthorizedFails) {
  auto judged = judge(from_report("node2 " + kHostB), to_report("ak " + kOther + " someone"));
  EXPECT_EQ(judged.verdict, PairVerdict::fails);
  EXPECT_NE(judged.reason.find("none of them in node2:~/.ssh/authorized_keys"), std::string::npos) << judged.reason;
}

TEST(SshPairs, AuthorizedKeyWithOptionsIsRecognized) {
  auto ok = judge(from_report("node2 " + kHostB),
                  to_report("ak no-pty,environment=\"A=b c\" " + kKeyA + " root@node1"));
  EXPECT_EQ(ok.verdict, PairVerdict::ok) << ok.reason;
  auto restricted = judge(from_report("node2 " + kHostB),
                          to_report("ak from=\"10.9.9.9\" " + kKeyA + " root@node1"));
  EXPECT_EQ(restricted.verdict, PairVerdict::unsure);
}

TEST(SshPairs, AgentKeysCountUnlessIdentitiesOnly) {
  std::string report = from_report("node2 " + kHostB, "") + "agent " + kKeyA + " from-agent\n";
  EXPECT_EQ(judge(report, to_report()).verdict, PairVerdict::fails);  // IdentitiesOnly yes
  report.replace(report.find(" ask yes "), 9, " ask no ");
  EXPECT_EQ(judge(report, to_report()).verdict, PairVerdict::ok);
}

TEST(SshPairs, UnreadableIdentityIsUnsure) {
  auto judged = judge(from_report("node2 " + kHostB, "idx node2"), to_report());
  EXPECT_EQ(judged.verdict, PairVerdict::unsure);
}

TEST(SshPairs, OtherUserIsUnsure) {
  auto judged = judge(from_report("node2 " + kHostB), "me alice\nak " + kKeyA + "\n");
  EXPECT_EQ(judged.verdict, PairVerdict::unsure);
}

TEST(SshPairs, NoBannerFails) {
  std::string report = from_report("node2 " + kHostB);
  const std::string banner = "reach node2 SSH-2.0-OpenSSH_9.2p1 Debian-2";
  report.replace(report.find(banner), banner.size(), "noreach node2 connection failed");
  auto judged = judge(report, to_report());
  EXPECT_EQ(judged.verdict, PairVerdict::fails);
  EXPECT_NE(judged.reason.find("cannot reach node2's sshd at 10.0.0.12 port 22 (connection failed)"),
            std::string::npos)
      << judged.reason;
}

// Mesh mode: node1 linked to node2's probe listener at 10.0.0.12; the ring's handshake into node2 came from a node
// that resolved node2 to `ring_line`.
PairJudgement judge_mesh(const std::string& link_line, const std::string& ring_line) {
  std::string from = from_report("node2,10.0.0.12 " + kHostB);
  const std::string banner = "reach node2 SSH-2.0-OpenSSH_9.2p1 Debian-2";
  from.replace(from.find(banner), banner.size(), link_line);
  auto ring = parse_ssh_view(ring_line);
  auto peer = ring.peers.find("node2");
  return judge_pair("node1", parse_ssh_view(from), "node2", parse_ssh_view(to_report()), {kHostBPrint},
                    peer == ring.peers.end() ? nullptr : &peer->second);
}

TEST(SshPairs, MeshLinkIsReachableWhereTheRingProvedTheSshd) {
  auto judged = judge_mesh("link node2 10.0.0.12", "peer node2 node2 22 root ask no no\nlink node2 10.0.0.12\n");
  EXPECT_EQ(judged.verdict, PairVerdict::ok) << judged.reason;
}

TEST(SshPairs, MeshLinkToAnotherAddressOrPortThanTheRingsIsUnsure) {
  auto other_address = judge_mesh("link node2 10.0.0.12", "peer node2 node2 22 root ask no no\nlink node2 10.9.0.12\n");
  EXPECT_EQ(other_address.verdict, PairVerdict::unsure);
  EXPECT_NE(other_address.reason.find("where no ring handshake went"), std::string::npos) << other_address.reason;
  auto other_port = judge_mesh("link node2 10.0.0.12", "peer node2 node2 2222 root ask no no\nlink node2 10.0.0.12\n");
  EXPECT_EQ(other_port.verdict, PairVerdict::unsure);
  EXPECT_EQ(judge_mesh("link node2 10.0.0.12", "").verdict, PairVerdict::unsure);
}

TEST(SshPairs, MeshLinkThatFailedFails) {
  auto judged = judge_mesh("nolink node2 connection failed: No route to host",
                           "peer node2 node2 22 root ask no no\nlink node2 10.0.0.12\n");
  EXPECT_EQ(judged.verdict, PairVerdict::fails);
  EXPECT_NE(judged.reason.find("node1 cannot reach node2 at 10.0.0.12 (connection failed: No route to host)"),
            std::string::npos) << judged.reason;
}

TEST(SshPairs, ParsesTheMeshLines) {
  auto view = parse_ssh_view("nolisten cannot listen on TCP port 20001: Address already in use\n"
                             "link node2 10.0.0.12\nnolink node3 connection failed: x\nserved 2 1\n");
  EXPECT_EQ(view.listen_error, "cannot listen on TCP port 20001: Address already in use");
  EXPECT_TRUE(view.peers["node2"].linked);
  EXPECT_EQ(view.peers["node2"].link_address, "10.0.0.12");
  EXPECT_FALSE(view.peers["node3"].linked);
  EXPECT_EQ(view.peers["node3"].link_error, "connection failed: x");
}

TEST(SshPairs, UnreportedPeerIsUnsure) {
  EXPECT_EQ(judge("me root\n", to_report()).verdict, PairVerdict::unsure);
  EXPECT_EQ(judge("me root\npeer node2 error\n", to_report()).verdict, PairVerdict::unsure);
}

TEST(SshPairs, ParsesRingAndServedHostKeys) {
  auto view = parse_ssh_view("hostkey 10.0.0.12 " + kHostB + "\nring fail\n");
  ASSERT_EQ(view.next_host_keys.size(), 1u);
  EXPECT_EQ(view.next_host_keys[0], kHostBPrint);
  EXPECT_EQ(view.ring_ok, 0);
  // The ring's ssh -v line; a failed first attempt then a working retry is ok.
  view = parse_ssh_view("hostfp ssh-ed25519 " + kHostBPrint + "\nring ok\nring fail\n");
  EXPECT_EQ(view.next_host_keys, std::vector<std::string>{kHostBPrint});
  EXPECT_EQ(view.ring_ok, 1);
}

TEST(SshPairs, FingerprintAsSshKeygenPrintsIt) {
  EXPECT_EQ(key_fingerprint(kHostB), kHostBPrint);
  EXPECT_EQ(key_fingerprint("ssh-ed25519 not-base64!"), "");
}

TEST(SshPairs, KeyOfLine) {
  EXPECT_EQ(key_of_line(kKeyA + " comment with words"), kKeyA);
  EXPECT_EQ(key_of_line("command=\"echo ssh-rsa x\" " + kKeyA), kKeyA);
  EXPECT_EQ(key_of_line("# a comment"), "");
  EXPECT_EQ(key_of_line("ssh-ed25519"), "");
}

}  // namespace
}  // namespace muster::doctor
