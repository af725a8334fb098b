#include "protocol/codec.h"

#include <string>
#include <vector>

#include <tuple>

#include <gtest/gtest.h>

#include "protocol/frame_reader.h"
#include "protocol/wire.h"

namespace muster::protocol {
namespace {

using namespace std::string_literals;

const std::string kBinary = "\0\xFF\x01\n\r\x80 end"s;

std::vector<AgentMessage> sample_agent_messages() {
  return {
      Hello{},
      Hello{1, "0.1.0", "node-7", 4242, {"doctor", "sync", ""}, "10.0.0.1 22", {"10.0.0.1", "fe80::1"}},
      Hello{0xFFFFFFFFu, kBinary, "", 0, {kBinary}, kBinary, {}},
      WorkerStarted{0, 0},
      WorkerStarted{0xFFFFFFFFu, 123456},
      Output{3, Stream::out, "hello\n"},
      Output{4, Stream::err, kBinary},
      Output{5, Stream::out, ""},
      Output{6, Stream::err, std::string(kMaxOutputChunk, '\xFF')},
      WorkerExited{1, ExitHow::exited, 0, ""},
      WorkerExited{2, ExitHow::signaled, 9, "killed"},
      WorkerExited{3, ExitHow::failed_to_start, -1, "no such file: " + kBinary},
      Heartbeat{0, 0},
      Heartbeat{UINT64_MAX, INT64_MIN},
      PortReply{1, 29500, ""},
      PortReply{2, 0, "no free port"},
      AgentError{""},
      AgentError{kBinary},
      SyncManifest{},
      SyncManifest{7, true, kBinary, "cannot read /data: Permission denied"},
      SyncAck{1, 2, SyncAckState::progress, 1u << 20, ""},
      SyncAck{1, 3, SyncAckState::done, 0, ""},
      SyncAck{1, 4, SyncAckState::failed, 5, "hash mismatch"},
      SyncStepDone{1, SyncStep::prepare, ""},
      SyncStepDone{2, SyncStep::commit, "cannot remove x"},
      Relayed{1, "frame"},
      Relayed{7, kBinary},
      NodeLost{},
      NodeLost{12, "relay to node12: no heartbeat for 5003 ms", "ssh: connect to host node12 port 22: No route to host"},
      WorkerStack{},
      WorkerStack{3, 7, StackKind::python, "", "Thread 0x1 (most recent call first):\n"},
      WorkerStack{3, 8, StackKind::native, "native: eu-stack", kBinary},
      WorkerProgress{9},
      WorkerNote{2, "oom-kill", "Killed process 12 (python3)"},
      SyncDigest{},
      SyncDigest{1, 10000, std::string(16, '\xAB'), ""},
      SyncDigest{2, 0, "", "cannot open /data: Permission denied"},
      AttemptCleared{},
      AttemptCleared{3},
      SyncAck{1, 5, SyncAckState::corrupt, 7, "content hash does not match"},
      SyncDataReady{},
      SyncDataReady{4, 40123, ""},
      SyncDataReady{4, 0, "cannot listen on a TCP port: Too many open files"},
      SyncDataLinked{4, 3, ""},
      SyncDataLinked{4, 3, "cannot open TCP to 10.0.0.3:40123: Connection refused"},
      SyncDataLost{4, "a record on the data link failed authentication"},
      Telemetry{},
      Telemetry{1700000000000, 1003, {1, 2, 3}, 2, {0, 5, 1, 7}, 3, {0, 99, 1}, {"net eth0", kBinary}},
      GpuFault{},
      GpuFault{79, "0000:3b:00", "GPU 3 (0000:3b:00) XID 79 (GPU has fallen off the bus): ...", true},
  };
}

std::vector<HeadMessage> sample_head_messages() {
  return {
      SpawnWorker{},
      SpawnWorker{7, {"python", "-c", "print(1)"}, {"PATH=/usr/bin", "RANK=7", "EMPTY="}, "/home/u", "", 0},
      SpawnWorker{0, {kBinary, ""}, {std::string(100000, 'e')}, kBinary, kBinary, 0xFFFFFFFFu},
      Signal{},
      Signal{3, 15},
      Signal{kAllWorkers, -2},
      Signal{kAllWorkers, 10, 4},
      Terminate{0},
      Terminate{2000},
      Terminate{2000, 7},
      Ping{0},
      Ping{UINT64_MAX},
      PickPort{9},
      Shutdown{},
      HeadHeartbeat{5, 1700000000000},
      HeadHeartbeat{0, -1},
      SyncOpen{},
      SyncOpen{3, "/data/code", {"rule1", kBinary}, kSyncDryRun, 0750},
      SyncPrepare{3, {"a/b", "a"}, kBinary},
      SyncFile{3, 9, "dir/file.bin", 300u << 20, 0755, -5, UINT64_MAX},
      SyncData{3, 9, SyncCodec::zstd, 1u << 20, kBinary},
      SyncData{3, 9, SyncCodec::raw, 0, ""},
      SyncData{3, 9, SyncCodec::hole, 1u << 26, ""},
      SyncCommit{3, kBinary, "", "x"},
      RelayOpen{{"node2", "u@node3"}, {"node2", "node3"}, 10, 0, {1, 2}, {0, 1}, kRelaySsh},
      RelayOpen{{"vnode5"}, {"vnode5"}, 3, 4, {5}, {4}, kRelayLocal},
      RelayOpen{},
      Relay{"\x05", kBinary},
      SpawnWorker{1, {"python3"}, {}, "/", "20261125-010203-abcdef", kFeatureDiagnostics | kFeatureFlightRecorder},
      SpawnWorker{2, {"python3"}, {}, "/", "job", 0, 5},
      DumpStacks{},
      DumpStacks{4, 2},
      SyncOpen{3, "/data/code", {}, kSyncDryRun | kSyncDigestFirst},
      SyncSendManifest{},
      SyncSendManifest{3},
      SyncDataListen{},
      SyncDataListen{4, 1, 3, kBinary, 20000},
      SyncDataConnect{},
      SyncDataConnect{4, 2, 1, kBinary, 10000, {3, 5}, {"10.0.0.3", "fd00::5"}, {40123, 40999}},
      SyncDataDrop{4, 3},
      TelemetryStart{},
      TelemetryStart{500, "^step \\d+", kTelemetryTqdm},
  };
}

// Splits one encoded frame with FrameReader, checking it is exactly one frame.
Frame single_frame(const std::string& bytes) {
  FrameReader reader;
  reader.feed(bytes);
  auto frame = reader.next();
  EXPECT_TRUE(frame.has_value()) << frame.error().message;
  EXPECT_TRUE(frame->has_value());
  EXPECT_EQ(reader.buffered(), 0u);
  return frame->value_or(Frame{});
}

TEST(Codec, EveryAgentMessageRoundTrips) {
  for (const auto& message : sample_agent_messages()) {
    Frame frame = single_frame(encode(message));
    EXPECT_EQ(frame.type, static_cast<uint8_t>(type_of(message)));
    auto decoded = decode_agent(frame.type, frame.payload);
    ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
    ASSERT_TRUE(decoded->has_value());
    EXPECT_EQ(**decoded, message) << type_name(type_of(message));
  }
}

TEST(Codec, EveryHeadMessageRoundTrips) {
  for (const auto& message : sample_head_messages()) {
    Frame frame = single_frame(encode(message));
    EXPECT_EQ(frame.type, static_cast<uint8_t>(type_of(message)));
    auto decoded = decode_head(frame.type, frame.payload);
    ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
    ASSERT_TRUE(decoded->has_value());
    EXPECT_EQ(**decoded, message) << type_name(type_of(message));
  }
}

TEST(Codec, TelemetryRecordsMustBeWhole) {
  auto encoded = encode(AgentMessage{Telemetry{1, 1000, {}, 3, {1, 2, 3, 4}, 0, {}, {}}});
  Frame frame = single_frame(encoded);
  auto decoded = decode_agent(frame.type, frame.payload);
  ASSERT_FALSE(decoded.has_value());
  EXPECT_NE(decoded.error().message.find("whole number"), std::string::npos) << decoded.error().message;
  frame = single_frame(encode(HeadMessage{TelemetryStart{10, "", 0}}));
  EXPECT_FALSE(decode_head(frame.type, frame.payload).has_value());
}

TEST(Codec, LargeOutputRoundTrips) {
  std::string bytes(kMaxFrame - 1 - 4 - 1 - 4, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 131);
  AgentMessage message = Output{1, Stream::out, bytes};
  std::string encoded = encode(message);
  EXPECT_EQ(encoded.size(), 4 + size_t{kMaxFrame});
  Frame frame = single_frame(encoded);
  auto decoded = decode_agent(frame.type, frame.payload);
  ASSERT_TRUE(decoded.has_value() && decoded->has_value());
  EXPECT_EQ(**decoded, message);
}

// The exact bytes, written by hand from docs/agent-protocol.md, so the format cannot drift silently.
TEST(Codec, ExactByteLayout) {
  EXPECT_EQ(encode(AgentMessage{WorkerStarted{3, 0x01020304}}),
            "\x09\0\0\0"           // length: type + 8
            "\x02"                 // WorkerStarted
            "\x03\0\0\0"           // worker
            "\x04\x03\x02\x01"s);  // pid
  EXPECT_EQ(encode(AgentMessage{Output{7, Stream::err, "hi"}}), "\x0C\0\0\0\x03\x07\0\0\0\x02\x02\0\0\0hi"s);
  EXPECT_EQ(encode(AgentMessage{WorkerExited{1, ExitHow::signaled, -9, "x"}}),
            "\x0F\0\0\0\x04\x01\0\0\0\x01\xF7\xFF\xFF\xFF\x01\0\0\0x"s);
  EXPECT_EQ(encode(AgentMessage{Heartbeat{1, -2}}),
            "\x11\0\0\0\x05\x01\0\0\0\0\0\0\0\xFE\xFF\xFF\xFF\xFF\xFF\xFF\xFF"s);
  EXPECT_EQ(encode(AgentMessage{Hello{1, "v", "h", 2, {"c"}, "", {"a", "b"}, 0x1000, 29500}}),
            "\x36\0\0\0\x01"                       // length 54, Hello
            "\x01\0\0\0"                           // protocol
            "\x01\0\0\0v\x01\0\0\0h"               // version, hostname
            "\x02\0\0\0"                           // pid
            "\x01\0\0\0\x01\0\0\0c"                // capabilities
            "\0\0\0\0"                             // ssh_addr
            "\x02\0\0\0\x01\0\0\0a\x01\0\0\0b"   // addresses
            "\0\x10\0\0"                             // max_open_files
            "\x3C\x73\0\0"s);                        // free_port
  EXPECT_EQ(encode(HeadMessage{SpawnWorker{2, {"sh"}, {}, "/", "j", kFeatureDiagnostics, 3}}),
            "\x25\0\0\0\x40\x02\0\0\0\x01\0\0\0\x02\0\0\0sh\0\0\0\0\x01\0\0\0/"
            "\x01\0\0\0j\x01\0\0\0\x03\0\0\0"s);  // ... features, attempt
  EXPECT_EQ(encode(HeadMessage{Signal{kAllWorkers, 15, 2}}),
            "\x0D\0\0\0\x41\xFF\xFF\xFF\xFF\x0F\0\0\0\x02\0\0\0"s);  // worker, signal, attempt
  EXPECT_EQ(encode(HeadMessage{Terminate{2000, 1}}), "\x09\0\0\0\x42\xD0\x07\0\0\x01\0\0\0"s);
  EXPECT_EQ(encode(AgentMessage{AttemptCleared{4}}), "\x05\0\0\0\x10\x04\0\0\0"s);
  EXPECT_EQ(encode(HeadMessage{Shutdown{}}), "\x01\0\0\0\x45"s);
  EXPECT_EQ(encode(HeadMessage{PickPort{0x0A0B0C0D}}), "\x05\0\0\0\x44\x0D\x0C\x0B\x0A"s);
  EXPECT_EQ(encode(AgentMessage{SyncAck{1, 2, SyncAckState::done, 3, ""}}),
            "\x16\0\0\0\x09\x01\0\0\0\x02\0\0\0\x01\x03\0\0\0\0\0\0\0\0\0\0\0"s);
  EXPECT_EQ(encode(HeadMessage{SyncData{1, 2, SyncCodec::zstd, 4, "z"}}),
            "\x13\0\0\0\x4A\x01\0\0\0\x02\0\0\0\x01\x04\0\0\0\x01\0\0\0z"s);
}

TEST(Codec, HeartbeatsShareAnEncodingButNotATypeByte) {
  std::string agent = encode(AgentMessage{Heartbeat{42, 1700000000123}});
  std::string head = encode(HeadMessage{HeadHeartbeat{42, 1700000000123}});
  EXPECT_EQ(agent[4], 5);
  EXPECT_EQ(head[4], 70);
  EXPECT_EQ(agent.substr(5), head.substr(5));
  EXPECT_EQ(agent.substr(0, 4), head.substr(0, 4));
}

TEST(Codec, TruncatedPayloadIsAnErrorAtEveryCutPoint) {
  for (const auto& message : sample_agent_messages()) {
    Frame frame = single_frame(encode(message));
    if (frame.payload.size() > 4096) continue;  // the cut-point walk is quadratic
    for (size_t cut = 0; cut < frame.payload.size(); ++cut) {
      auto decoded = decode_agent(frame.type, std::string_view(frame.payload).substr(0, cut));
      ASSERT_FALSE(decoded.has_value()) << type_name(type_of(message)) << " cut at " << cut;
      EXPECT_EQ(decoded.error().kind, ErrorKind::protocol);
    }
  }
  for (const auto& message : sample_head_messages()) {
    Frame frame = single_frame(encode(message));
    if (frame.payload.size() > 4096) continue;
    for (size_t cut = 0; cut < frame.payload.size(); ++cut) {
      auto decoded = decode_head(frame.type, std::string_view(frame.payload).substr(0, cut));
      ASSERT_FALSE(decoded.has_value()) << type_name(type_of(message)) << " cut at " << cut;
      EXPECT_EQ(decoded.error().kind, ErrorKind::protocol);
    }
  }
}

TEST(Codec, ErrorNamesTheMessageAndField) {
  auto decoded = decode_agent(static_cast<uint8_t>(Type::output), "\x01\0\0\0\x01\x09\0\0\0abc"s);
  ASSERT_FALSE(decoded.has_value());
  EXPECT_NE(decoded.error().message.find("Output"), std::string::npos) << decoded.error().message;
  EXPECT_NE(decoded.error().message.find("'bytes'"), std::string::npos) << decoded.error().message;
}

TEST(Codec, TrailingBytesAreIgnored) {
  Frame frame = single_frame(encode(AgentMessage{PortReply{1, 2, "e"}}));
  auto decoded = decode_agent(frame.type, frame.payload + "future fields\0\xFF"s);
  ASSERT_TRUE(decoded.has_value() && decoded->has_value());
  EXPECT_EQ(**decoded, AgentMessage(PortReply{1, 2, "e"}));

  auto shutdown = decode_head(static_cast<uint8_t>(Type::shutdown), "\x01\x02\x03"s);
  ASSERT_TRUE(shutdown.has_value() && shutdown->has_value());
  EXPECT_EQ(**shutdown, HeadMessage(Shutdown{}));
}

TEST(Codec, HostileListCountIsAnError) {
  std::string payload;
  WireWriter w(payload);
  w.u32(1);            // worker
  w.u32(0xFFFFFFFFu);  // argv count
  auto decoded = decode_head(static_cast<uint8_t>(Type::spawn_worker), payload);
  ASSERT_FALSE(decoded.has_value());
  EXPECT_NE(decoded.error().message.find("argv"), std::string::npos) << decoded.error().message;

  payload.clear();
  w.u32(1);  // protocol
  w.str("v");
  w.str("h");
  w.u32(2);           // pid
  w.u32(0x10000000);  // capabilities count
  w.str("c");
  auto hello = decode_agent(static_cast<uint8_t>(Type::hello), payload);
  ASSERT_FALSE(hello.has_value());
  EXPECT_NE(hello.error().message.find("capabilities"), std::string::npos) << hello.error().message;
}

TEST(Codec, OutOfRangeEnumsAreErrors) {
  for (uint8_t stream : {0, 3, 255}) {
    std::string payload = "\x01\0\0\0"s + static_cast<char>(stream) + "\0\0\0\0"s;
    EXPECT_FALSE(decode_agent(static_cast<uint8_t>(Type::output), payload).has_value()) << int{stream};
  }
  for (uint8_t how : {3, 255}) {
    std::string payload = "\x01\0\0\0"s + static_cast<char>(how) + "\0\0\0\0\0\0\0\0"s;
    EXPECT_FALSE(decode_agent(static_cast<uint8_t>(Type::worker_exited), payload).has_value()) << int{how};
  }
  for (uint8_t state : {4, 255}) {
    std::string payload = "\x01\0\0\0\x01\0\0\0"s + static_cast<char>(state) + std::string(12, '\0');
    EXPECT_FALSE(decode_agent(static_cast<uint8_t>(Type::sync_ack), payload).has_value()) << int{state};
  }
  for (uint8_t codec : {3, 255}) {
    std::string payload = "\x01\0\0\0\x01\0\0\0"s + static_cast<char>(codec) + std::string(8, '\0');
    EXPECT_FALSE(decode_head(static_cast<uint8_t>(Type::sync_data), payload).has_value()) << int{codec};
  }
}

TEST(Codec, TypesOutsideTheDirectionDecodeToNothing) {
  for (int type : {0, 62, 63, 64, 70, 71, 127, 128, 255}) {
    auto decoded = decode_agent(static_cast<uint8_t>(type), "garbage");
    ASSERT_TRUE(decoded.has_value()) << type;
    EXPECT_FALSE(decoded->has_value()) << type;
  }
  for (int type : {0, 1, 5, 7, 8, 63, 84, 127, 128, 255}) {
    auto decoded = decode_head(static_cast<uint8_t>(type), "");
    ASSERT_TRUE(decoded.has_value()) << type;
    EXPECT_FALSE(decoded->has_value()) << type;
  }
}

TEST(Codec, ASyncDataHeaderAndItsBytesAreExactlyTheEncodedSyncData) {
  for (const std::string& bytes : {std::string(), kBinary, std::string(262144, 'q')}) {
    std::string whole = encode(HeadMessage{SyncData{3, 9, SyncCodec::zstd, 1u << 18, bytes}});
    EXPECT_EQ(encode_sync_data_header(3, 9, SyncCodec::zstd, 1u << 18, bytes.size()) + bytes, whole);
    Frame frame = single_frame(whole);
    auto view = decode_sync_data(frame.payload);
    ASSERT_TRUE(view.has_value()) << view.error().message;
    EXPECT_EQ(view->file, 9u);
    EXPECT_EQ(view->codec, SyncCodec::zstd);
    EXPECT_EQ(view->raw_size, 1u << 18);
    EXPECT_EQ(view->bytes, bytes);
  }
  EXPECT_FALSE(decode_sync_data("\x01\0\0\0\x01\0\0\0\x07"s + std::string(8, '\0')).has_value());  // codec 7
  EXPECT_FALSE(decode_sync_data("\x01\0\0").has_value());
}

TEST(Codec, NestedFramesDecodeOnlyWhenTheirLengthIsExact) {
  std::string frame = encode(HeadMessage{Ping{5}});
  auto decoded = decode_head_frame(frame);
  ASSERT_TRUE(decoded.has_value() && decoded->has_value());
  EXPECT_EQ(**decoded, HeadMessage{Ping{5}});
  EXPECT_FALSE(decode_head_frame(frame.substr(0, frame.size() - 1)).has_value());
  EXPECT_FALSE(decode_head_frame(frame + "x").has_value());
  EXPECT_FALSE(decode_head_frame("").has_value());
  auto agent = decode_agent_frame(encode(AgentMessage{Relayed{2, frame}}));
  ASSERT_TRUE(agent.has_value() && agent->has_value());
  EXPECT_EQ(std::get<Relayed>(**agent).frame, frame);
}

TEST(Codec, RelayHeaderAndFrameAreExactlyTheEncodedRelay) {
  for (const std::string& inner : {encode(HeadMessage{Ping{5}}), std::string(), kBinary, std::string(70000, 'z')}) {
    for (const std::string& hops : {"\x01"s, "\x06\x80"s, std::string()}) {
      EXPECT_EQ(encode_relay_header(hops, inner.size()) + inner, encode(HeadMessage{Relay{hops, inner}}))
          << hops.size() << " hop bytes, " << inner.size() << " frame bytes";
    }
  }
}

TEST(Codec, RelayViewsPointIntoThePayload) {
  std::string frame = encode(HeadMessage{Relay{"\x05", kBinary}});
  std::string_view payload = std::string_view(frame).substr(5);
  auto view = decode_relay(payload);
  ASSERT_TRUE(view.has_value()) << view.error().message;
  EXPECT_EQ(view->hops, "\x05");
  EXPECT_EQ(view->frame, kBinary);
  EXPECT_GE(view->frame.data(), payload.data());
  EXPECT_LE(view->frame.data() + view->frame.size(), payload.data() + payload.size());
  for (size_t cut = 0; cut < payload.size(); ++cut) {
    auto truncated = decode_relay(payload.substr(0, cut));
    ASSERT_FALSE(truncated.has_value()) << cut;
    EXPECT_NE(truncated.error().message.find("malformed Relay frame"), std::string::npos) << truncated.error().message;
  }
}

TEST(Codec, TypeNames) {
  EXPECT_STREQ(type_name(Type::hello), "Hello");
  EXPECT_STREQ(type_name(Type::head_heartbeat), "HeadHeartbeat");
  EXPECT_STREQ(type_name(static_cast<Type>(99)), "unknown");
}

}  // namespace

// The agent writes Output frames as a header plus bytes read in place: the same bytes as encode().
TEST(Codec, OutputHeaderIsTheStartOfAnEncodedOutput) {
  for (const auto& [worker, stream, bytes] : {std::tuple{3u, Stream::out, std::string("hello\n")},
                                               std::tuple{0xFFFFFFFEu, Stream::err, std::string(kMaxOutputChunk, 'x')},
                                               std::tuple{7u, Stream::out, std::string()}}) {
    std::string frame(kOutputHeaderSize, '\0');
    encode_output_header(worker, stream, bytes.size(), frame.data());
    frame += bytes;
    EXPECT_EQ(frame, encode(AgentMessage{Output{worker, stream, bytes}}));
  }
}

}  // namespace muster::protocol
