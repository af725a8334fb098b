// sync's direct data path over real loopback TCP on a real EventLoop: the handshake, records in order over several
// streams, sendfile in plaintext, a wrong secret refused, a tampered record caught, a cut link told from an end.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>

#include <gtest/gtest.h>

#include "posix/clock.h"
#include "posix/event_loop.h"
#include "posix/file.h"
#include "protocol/codec.h"
#include "sync/data_crypto.h"
#include "sync/data_handshake.h"
#include "sync/data_inbound.h"
#include "sync/data_outbound.h"
#include "temp_tree.h"

namespace muster::sync {
namespace {

std::unique_ptr<posix::EventLoop> make_loop() {
  auto loop = posix::EventLoop::create();
  EXPECT_TRUE(loop);
  return std::move(*loop);
}

DataLinkParams params(DataCipher cipher, uint32_t streams, std::string secret = std::string(32, 's')) {
  DataLinkParams p;
  p.session = 7;
  p.cipher = cipher;
  p.streams = streams;
  p.secret = std::move(secret);
  p.timeout_ms = 5000;
  return p;
}

// Runs the loop until `done` or 10 s.
bool pump(posix::EventLoop& loop, const std::function<bool()>& done) {
  int64_t deadline = posix::monotonic_ms() + 10'000;
  while (!done()) {
    if (posix::monotonic_ms() > deadline) return false;
    if (!loop.run_once(50)) return false;
  }
  return true;
}

// What an inbound link handed on, and how it ended.
struct Received {
  std::vector<std::string> frames;  // type byte + payload
  std::string failure;
  bool linked = false, ended = false;
  DataInbound::Callbacks callbacks() {
    return {[this](uint8_t type, std::string_view payload) { frames.push_back(char(type) + std::string(payload)); },
            [this] { linked = true; }, [this](const std::string& why) { failure = why; }, [this] { ended = true; }};
  }
};

std::string frame_of(uint32_t file, size_t size) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 131 + file) & 0xff);
  return protocol::encode(protocol::HeadMessage{protocol::SyncData{1, file, protocol::SyncCodec::raw,
                                                                   static_cast<uint32_t>(size), bytes}});
}

std::string as_received(const std::string& frame) { return frame.substr(4); }

TEST(DataCrypto, ARecordOpensOnlyAsItWasSealed) {
  for (auto cipher : {DataCipher::aes128_gcm, DataCipher::chacha20_poly1305}) {
    std::string key(32, 'k');
    auto sealer = RecordSealer::create(cipher, key);
    ASSERT_TRUE(sealer);
    std::string plain = "the bytes of a record", sealed(plain.size(), '\0');
    char tag[kTagBytes];
    sealer->begin(5);
    sealer->seal(plain, sealed.data());
    sealer->finish(tag);
    EXPECT_NE(sealed, plain);
    auto fresh = [&] { return std::move(*RecordOpener::create(cipher, key)); };
    std::string copy = sealed;
    EXPECT_TRUE(fresh().open(5, copy.data(), copy.size(), std::string_view(tag, kTagBytes)));
    EXPECT_EQ(copy, plain);
    copy = sealed;
    copy[3] ^= 1;  // tampered
    EXPECT_FALSE(fresh().open(5, copy.data(), copy.size(), std::string_view(tag, kTagBytes)));
    copy = sealed;  // another place in the sequence
    EXPECT_FALSE(fresh().open(6, copy.data(), copy.size(), std::string_view(tag, kTagBytes)));
    copy = sealed;  // another key
    auto other = RecordOpener::create(cipher, std::string(32, 'o'));
    EXPECT_FALSE(other->open(5, copy.data(), copy.size(), std::string_view(tag, kTagBytes)));
  }
}

TEST(DataHandshake, EachSideProvesTheSecretAndBothDeriveOneKey) {
  std::string secret(32, 'a'), wrong(32, 'b'), nonce_l(32, 'l');
  DataHello hello;
  hello.cipher = DataCipher::aes128_gcm;
  hello.stream = 2;
  hello.session = 9;
  hello.nonce = std::string(32, 'c');
  std::string bytes = encode_hello(hello);
  ASSERT_EQ(bytes.size(), kHelloBytes);
  auto decoded = decode_hello(bytes);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->stream, 2);
  EXPECT_EQ(decoded->session, 9u);
  EXPECT_FALSE(decode_hello("SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u1\r\n12345678"));
  std::string challenge = make_challenge(secret, bytes, nonce_l);
  auto proof = answer_challenge(secret, bytes, challenge);
  ASSERT_TRUE(proof);
  EXPECT_TRUE(check_proof(secret, bytes, nonce_l, *proof));
  // A connector without the secret cannot check the listener, nor prove itself; a listener without it neither.
  EXPECT_FALSE(answer_challenge(wrong, bytes, challenge));
  EXPECT_FALSE(check_proof(secret, bytes, nonce_l, hmac_sha256(wrong, {"connector", bytes, nonce_l})));
  EXPECT_FALSE(answer_challenge(secret, bytes, make_challenge(wrong, bytes, nonce_l)));
  EXPECT_EQ(stream_key(secret, bytes, nonce_l).size(), 32u);
  EXPECT_NE(stream_key(secret, bytes, nonce_l), stream_key(secret, bytes, std::string(32, 'm')));
}

void send_in_order(DataCipher cipher, uint32_t streams) {
  auto loop = make_loop();
  Received got;
  auto in = DataInbound::listen(*loop, params(cipher, streams), got.callbacks());
  ASSERT_TRUE(in);
  std::string link_error = "not yet";
  auto out = DataOutbound::connect(*loop, "127.0.0.1", (*in)->port(), params(cipher, streams),
                                   [&](const std::string& error) { link_error = error; }, nullptr);
  ASSERT_TRUE(pump(*loop, [&] { return link_error != "not yet" && got.linked; })) << link_error;
  ASSERT_EQ(link_error, "");
  std::vector<std::string> sent;
  for (uint32_t i = 0; i < 120; ++i) {
    sent.push_back(frame_of(i, (i % 7 == 0) ? 300'000 : (i * 977) % 70'000 + 1));
    std::string_view frame = sent.back();
    out->queue_frame(frame.substr(0, 9), frame.substr(9));
    if (i % 5 == 0) out->flush();
  }
  out->finish();
  ASSERT_TRUE(pump(*loop, [&] { return got.ended || !got.failure.empty(); })) << got.frames.size();
  EXPECT_EQ(got.failure, "");
  ASSERT_EQ(got.frames.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) EXPECT_EQ(got.frames[i], as_received(sent[i])) << "frame " << i;
  EXPECT_TRUE(out->finished());
}

TEST(DataLink, FramesArriveInTheSendersOrderOverOneStream) { send_in_order(DataCipher::aes128_gcm, 1); }
TEST(DataLink, FramesArriveInTheSendersOrderOverSeveralStreams) { send_in_order(DataCipher::aes128_gcm, 4); }
TEST(DataLink, ChaChaAndPlaintextToo) {
  send_in_order(DataCipher::chacha20_poly1305, 2);
  send_in_order(DataCipher::plain, 3);
}

TEST(DataLink, PlaintextSendsFileBytesWithSendfileAndPadsAFileThatShrank) {
  testing::TempTree tree;
  std::string content(700'000, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>(i * 7);
  tree.write("f", content);
  auto loop = make_loop();
  Received got;
  auto in = DataInbound::listen(*loop, params(DataCipher::plain, 2), got.callbacks());
  ASSERT_TRUE(in);
  std::string link_error = "not yet";
  auto out = DataOutbound::connect(*loop, "127.0.0.1", (*in)->port(), params(DataCipher::plain, 2),
                                   [&](const std::string& error) { link_error = error; }, nullptr);
  ASSERT_TRUE(pump(*loop, [&] { return link_error == "" && got.linked; }));
  auto fd = posix::open_read(tree.path("f"), true);
  ASSERT_TRUE(fd);
  auto file = std::make_shared<posix::Fd>(std::move(*fd));
  for (uint64_t at = 0; at < content.size(); at += 262'144) {
    size_t n = std::min<size_t>(262'144, content.size() - at);
    out->queue_file_frame(protocol::encode_sync_data_header(1, 3, protocol::SyncCodec::raw, n, n), file, at, n);
  }
  out->queue_file_frame(protocol::encode_sync_data_header(1, 4, protocol::SyncCodec::raw, 100, 100), file,
                        content.size() - 40, 100);  // 60 bytes past the end: zeros
  out->finish();
  ASSERT_TRUE(pump(*loop, [&] { return got.ended || !got.failure.empty(); }));
  ASSERT_EQ(got.failure, "");
  ASSERT_EQ(got.frames.size(), 4u);
  std::string joined;
  for (size_t i = 0; i < 3; ++i) {
    auto view = protocol::decode_sync_data(std::string_view(got.frames[i]).substr(1));
    ASSERT_TRUE(view);
    joined += view->bytes;
  }
  EXPECT_EQ(joined, content);
  auto last = protocol::decode_sync_data(std::string_view(got.frames[3]).substr(1));
  ASSERT_TRUE(last);
  EXPECT_EQ(last->bytes, content.substr(content.size() - 40) + std::string(60, '\0'));
}

TEST(DataLink, AConnectionWithAWrongSecretIsRefusedAndTheRightOneStillGetsIn) {
  auto loop = make_loop();
  Received got;
  auto in = DataInbound::listen(*loop, params(DataCipher::aes128_gcm, 1, std::string(32, 'r')), got.callbacks());
  ASSERT_TRUE(in);
  std::string wrong_error = "not yet";
  auto wrong = DataOutbound::connect(*loop, "127.0.0.1", (*in)->port(),
                                     params(DataCipher::aes128_gcm, 1, std::string(32, 'w')),
                                     [&](const std::string& error) { wrong_error = error; }, nullptr);
  ASSERT_TRUE(pump(*loop, [&] { return wrong_error != "not yet" && (*in)->refused() == 1; }));
  EXPECT_NE(wrong_error.find("did not prove the session's secret"), std::string::npos) << wrong_error;
  EXPECT_FALSE(got.linked);
  // Not muster at all: refused too, and the listener keeps waiting.
  int raw = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>((*in)->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(raw, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  std::string junk = "GET / HTTP/1.0\r\n\r\n" + std::string(40, 'x');
  ASSERT_EQ(::write(raw, junk.data(), junk.size()), static_cast<ssize_t>(junk.size()));
  ASSERT_TRUE(pump(*loop, [&] { return (*in)->refused() == 2; }));
  ::close(raw);
  std::string right_error = "not yet";
  auto right = DataOutbound::connect(*loop, "127.0.0.1", (*in)->port(),
                                     params(DataCipher::aes128_gcm, 1, std::string(32, 'r')),
                                     [&](const std::string& error) { right_error = error; }, nullptr);
  ASSERT_TRUE(pump(*loop, [&] { return right_error == "" && got.linked; })) << right_error;
  EXPECT_EQ(got.failure, "");
}

// A client that runs the real handshake, then writes whatever records it likes.
struct RawSender {
  int fd = -1;
  std::string key;
  explicit RawSender(int port) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  }
  ~RawSender() { ::close(fd); }
  // Step by step, so the loop can serve the listener between them.
  std::string hello;
  void send_hello() {
    DataHello h;
    h.cipher = DataCipher::aes128_gcm;
    h.session = 7;
    h.nonce = std::string(32, 'n');
    hello = encode_hello(h);
    ASSERT_EQ(::write(fd, hello.data(), hello.size()), static_cast<ssize_t>(hello.size()));
  }
  void answer(const std::string& secret) {
    std::string challenge(kChallengeBytes, '\0');
    ASSERT_EQ(::read(fd, challenge.data(), challenge.size()), static_cast<ssize_t>(challenge.size()));
    auto proof = answer_challenge(secret, hello, challenge);
    ASSERT_TRUE(proof);
    key = stream_key(secret, hello, challenge.substr(8, kNonceBytes));
    ASSERT_EQ(::write(fd, proof->data(), proof->size()), static_cast<ssize_t>(proof->size()));
  }
  std::string record(RecordSealer& sealer, uint64_t sequence, const std::string& frames) {
    std::string out(kRecordHeader + frames.size() + kTagBytes, '\0');
    put_record_header(out.data(), static_cast<uint32_t>(frames.size()), sequence);
    sealer.begin(sequence);
    sealer.seal(frames, out.data() + kRecordHeader);
    sealer.finish(out.data() + kRecordHeader + frames.size());
    return out;
  }
};

TEST(DataLink, ATamperedRecordFailsAuthenticationAndEndsTheLink) {
  auto loop = make_loop();
  Received got;
  std::string secret(32, 's');
  auto in = DataInbound::listen(*loop, params(DataCipher::aes128_gcm, 1, secret), got.callbacks());
  ASSERT_TRUE(in);
  RawSender raw((*in)->port());
  raw.send_hello();
  ASSERT_TRUE(loop->run_once(1000));  // the listener accepts
  ASSERT_TRUE(pump(*loop, [&] {
    int available = 0;
    return ::recv(raw.fd, &available, 1, MSG_PEEK | MSG_DONTWAIT) == 1;
  }));
  raw.answer(secret);
  ASSERT_TRUE(pump(*loop, [&] { return got.linked; }));
  auto sealer = RecordSealer::create(DataCipher::aes128_gcm, raw.key);
  ASSERT_TRUE(sealer);
  std::string good = raw.record(*sealer, 0, frame_of(1, 1000));
  std::string bad = raw.record(*sealer, 1, frame_of(2, 1000));
  bad[kRecordHeader + 500] ^= 0x20;  // one bit flipped in transit
  ASSERT_EQ(::write(raw.fd, good.data(), good.size()), static_cast<ssize_t>(good.size()));
  ASSERT_EQ(::write(raw.fd, bad.data(), bad.size()), static_cast<ssize_t>(bad.size()));
  ASSERT_TRUE(pump(*loop, [&] { return !got.failure.empty(); }));
  EXPECT_NE(got.failure.find("failed authentication"), std::string::npos) << got.failure;
  ASSERT_EQ(got.frames.size(), 1u);  // the intact record before it, nothing of the tampered one
  EXPECT_EQ(got.frames[0], as_received(frame_of(1, 1000)));
}

TEST(DataLink, ALinkCutBeforeItsEndIsAFailureNotAnEnd) {
  auto loop = make_loop();
  Received got;
  auto in = DataInbound::listen(*loop, params(DataCipher::aes128_gcm, 2), got.callbacks());
  ASSERT_TRUE(in);
  std::string link_error = "not yet";
  auto out = DataOutbound::connect(*loop, "127.0.0.1", (*in)->port(), params(DataCipher::aes128_gcm, 2),
                                   [&](const std::string& error) { link_error = error; }, nullptr);
  ASSERT_TRUE(pump(*loop, [&] { return link_error == "" && got.linked; }));
  std::string frame = frame_of(1, 5000);
  out->queue_frame(frame);
  out->flush();
  ASSERT_TRUE(pump(*loop, [&] { return got.frames.size() == 1; }));
  out.reset();  // the sending agent died: its sockets close without an end record
  ASSERT_TRUE(pump(*loop, [&] { return !got.failure.empty(); }));
  EXPECT_NE(got.failure.find("before its end"), std::string::npos) << got.failure;
  EXPECT_FALSE(got.ended);
}

TEST(DataLink, NobodyListeningIsSaidPlainly) {
  auto loop = make_loop();
  int port;
  {
    Received got;
    auto in = DataInbound::listen(*loop, params(DataCipher::aes128_gcm, 1), got.callbacks());
    ASSERT_TRUE(in);
    port = (*in)->port();
  }  // closed: the port refuses
  std::string link_error = "not yet";
  auto out = DataOutbound::connect(*loop, "127.0.0.1", port, params(DataCipher::aes128_gcm, 1),
                                   [&](const std::string& error) { link_error = error; }, nullptr);
  ASSERT_TRUE(pump(*loop, [&] { return link_error != "not yet"; }));
  EXPECT_NE(link_error.find("cannot open TCP to 127.0.0.1:" + std::to_string(port)), std::string::npos) << link_error;
  EXPECT_NE(link_error.find("refused"), std::string::npos) << link_error;
}

}  // namespace
}  // namespace muster::sync
