#include "doctor/bandwidth/probe.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "doctor/bandwidth/model.h"
#include "doctor/probe_token.h"
#include "posix/clock.h"
#include "posix/socket.h"
#include "posix/tcp_stream.h"

namespace muster::doctor {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kChunk = 256 * 1024;
constexpr int kMaxStrays = 64;  // connections without the token a round puts up with before it stops serving

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// The receiver's half of one connection: echo pings, then count the stream after the warm-up.
Result<void> serve_one(posix::Fd connection, double warmup, int64_t deadline) {
  std::vector<char> buffer(kChunk);
  bool streaming = false;
  Clock::time_point warm_end, first{}, last{};
  int64_t counted = 0;
  for (;;) {
    auto got = posix::read_until(connection.get(), buffer, deadline);
    if (!got) return got.error();
    auto now = Clock::now();
    if (*got == 0) break;
    size_t offset = 0;
    while (!streaming && offset < *got) {
      char byte = buffer[offset++];
      if (byte == 's') {
        streaming = true;
        warm_end = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(warmup));
      } else if (auto echoed = posix::write_until(connection.get(), "p", deadline); !echoed) {
        return echoed.error();
      }
    }
    if (!streaming || now < warm_end) continue;
    // The first read after the warm-up only starts the clock: its bytes may have queued before it.
    if (first == Clock::time_point{}) {
      first = now;
    } else {
      counted += static_cast<int64_t>(*got - offset);
    }
    last = now;
  }
  int64_t us = first == Clock::time_point{} ? 0 : static_cast<int64_t>(seconds_between(first, last) * 1e6);
  return posix::write_until(connection.get(), fmt::format("bytes={} us={}\n", counted, us), deadline);
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? -1 : values[values.size() / 2];
}

Result<double> ping_pongs(int fd, int count, int64_t deadline) {
  std::vector<double> rtts;
  char echo[1];
  for (int i = 0; i < count; ++i) {
    auto start = Clock::now();
    if (auto sent = posix::write_until(fd, "p", deadline); !sent) return sent.error();
    auto got = posix::read_until(fd, echo, deadline);
    if (!got) return got.error();
    if (*got == 0) return make_error(ErrorKind::protocol, "the receiver closed during the ping-pongs");
    rtts.push_back(seconds_between(start, Clock::now()) * 1e6);
  }
  return median_of(rtts);
}

// The receiver's answer "bytes=N us=M" into the sample.
Result<void> read_report(int fd, int64_t deadline, bool streamed, LinkSample& sample) {
  std::string text;
  char buffer[256];
  for (;;) {
    auto got = posix::read_until(fd, buffer, deadline);
    if (!got) return got.error();
    if (*got == 0) break;
    text.append(buffer, *got);
  }
  long long bytes = 0, us = 0;
  if (std::sscanf(text.c_str(), "bytes=%lld us=%lld", &bytes, &us) != 2 || (streamed && us <= 0)) {
    return make_error(ErrorKind::protocol, "the receiver reported '{}' (too short a stream?)", text);
  }
  sample.bytes = bytes;
  sample.seconds = static_cast<double>(us) / 1e6;
  sample.mbps = us > 0 ? static_cast<double>(bytes) * 8 / static_cast<double>(us) : 0;
  return {};
}

Result<LinkSample> send_one(const ProbeOptions& options, const ProbeOptions::Peer& peer, int64_t deadline) {
  // Every node of a round starts within a moment of the others: a listener not up after 5 s is not coming.
  auto connection = posix::connect_tcp_stream(peer.host, peer.port, std::min(posix::timeout_until(deadline), 5000));
  if (!connection) return connection.error();
  int fd = connection->get();
  if (auto presented = present_probe_token(fd, options.token, deadline); !presented) return presented.error();
  LinkSample sample;
  auto rtt = ping_pongs(fd, options.pings, deadline);
  if (!rtt) return rtt.error();
  sample.rtt_us = *rtt;
  if (auto sent = posix::write_until(fd, "s", deadline); !sent) return sent.error();
  std::string chunk(kChunk, 'x');
  auto stop = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(options.warmup + options.seconds));
  while (options.seconds > 0 && Clock::now() < stop) {
    if (auto sent = posix::write_until(fd, chunk, deadline); !sent) return sent.error();
  }
  posix::shutdown_write(fd);
  if (auto report = read_report(fd, deadline, options.seconds > 0, sample); !report) return report.error();
  sample.ok = true;
  return sample;
}

}  // namespace

Result<ProbeOptions::Peer> parse_probe_peer(std::string_view text) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return make_error(ErrorKind::usage, "--to {}: want HOST:PORT", text);
  }
  std::string_view digits = text.substr(colon + 1);
  int port = 0;
  auto [end, failed] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  bool whole = failed == std::errc() && end == digits.data() + digits.size() && !digits.empty();
  if (!whole || port < 1 || port > 65535) {
    return make_error(ErrorKind::usage, "--to {}: the port must be a number from 1 to 65535", text);
  }
  return ProbeOptions::Peer{std::string(text.substr(0, colon)), port};
}

Result<std::string> run_bandwidth_probe(const ProbeOptions& options) {
  int64_t deadline = posix::monotonic_ms() + options.timeout_ms;
  posix::Fd listener;
  if (options.listen_port > 0) {
    auto listening = posix::listen_tcp(options.listen_port);
    if (!listening) return listening.error();
    listener = std::move(*listening);
  }
  std::atomic<int> served{0};
  std::vector<std::jthread> servers;
  std::jthread acceptor([&] {
    int strays = 0;
    for (int peers = 0; peers < options.accept && listener.valid();) {
      auto connection = posix::accept_tcp_stream(listener.get(), posix::timeout_until(deadline));
      if (!connection) return;
      if (!accept_probe_token(connection->get(), options.token, deadline)) {  // closed, not counted
        if (++strays > kMaxStrays) return;
        continue;
      }
      ++peers;
      servers.emplace_back([&served, &options, deadline, fd = std::move(*connection)]() mutable {
        if (serve_one(std::move(fd), options.warmup, deadline)) ++served;
      });
    }
  });
  std::string out;
  for (const auto& peer : options.to) {
    auto sample = send_one(options, peer, deadline);
    out += format_link_sample(sample ? *sample : LinkSample{.error = sample.error().message}) + "\n";
  }
  acceptor.join();
  servers.clear();  // joins
  if (options.listen_port > 0) out += fmt::format("served {}\n", served.load());
  return out;
}

Result<std::string> pick_probe_port() {
  auto port = posix::pick_free_tcp_port("0.0.0.0");
  if (!port) return port.error();
  return fmt::format("port {}\n", *port);
}

Result<int> BandwidthProbeOp::run(const BandwidthProbeOp& op) {
  ProbeOptions probe = op.probe;
  for (const auto& text : op.to) {
    auto peer = parse_probe_peer(text);
    if (!peer) return peer.error();
    probe.to.push_back(std::move(*peer));
  }
  probe.token = probe_token_from_environment();
  auto out = op.pick_port ? pick_probe_port() : run_bandwidth_probe(probe);
  if (!out) return out.error();
  fmt::print("{}", *out);
  return 0;
}

}  // namespace muster::doctor
