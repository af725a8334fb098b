#include "doctor/bandwidth/model.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include <fmt/format.h>

namespace muster::doctor {
namespace {

bool parse_number(std::string_view text, double& value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

Result<LinkSample> parse_ok_fields(std::string_view fields) {
  LinkSample sample;
  sample.ok = true;
  bool has_mbps = false;
  std::istringstream words{std::string(fields)};
  for (std::string word; words >> word;) {
    size_t eq = word.find('=');
    if (eq == std::string::npos) continue;
    std::string key = word.substr(0, eq);
    double value = 0;
    if (!parse_number(std::string_view(word).substr(eq + 1), value)) {
      return make_error(ErrorKind::parse, "bad value in '{}'", word);
    }
    if (key == "mbps") sample.mbps = value, has_mbps = true;
    if (key == "bytes") sample.bytes = static_cast<int64_t>(value);
    if (key == "seconds") sample.seconds = value;
    if (key == "rtt_us") sample.rtt_us = value;
  }
  if (!has_mbps) return make_error(ErrorKind::parse, "no mbps= in '{}'", fields);
  return sample;
}

}  // namespace

const char* bandwidth_mode_name(BandwidthMode mode) { return mode == BandwidthMode::ring ? "ring" : "pairs"; }

Result<BandwidthMode> parse_bandwidth_mode(std::string_view text) {
  if (text == "ring") return BandwidthMode::ring;
  if (text == "pairs") return BandwidthMode::pairs;
  return make_error(ErrorKind::usage, "unknown bandwidth mode '{}' (ring or pairs)", text);
}

std::vector<std::vector<Link>> bandwidth_rounds(std::size_t nodes, BandwidthMode mode) {
  std::vector<std::vector<Link>> rounds;
  if (nodes < 2) return rounds;
  if (mode == BandwidthMode::ring) {
    rounds.emplace_back();
    for (std::size_t i = 0; i < nodes; ++i) rounds[0].push_back({i, (i + 1) % nodes});
    if (nodes == 2) rounds[0] = {{0, 1}, {1, 0}};
    return rounds;
  }
  // Circle method: slot 0 stays, the others rotate; an odd count gets a "bye" slot (index == nodes).
  std::size_t slots = nodes + nodes % 2;
  std::vector<std::size_t> circle(slots);
  for (std::size_t i = 0; i < slots; ++i) circle[i] = i;
  for (std::size_t round = 0; round + 1 < slots; ++round) {
    std::vector<Link> links;
    for (std::size_t i = 0; i < slots / 2; ++i) {
      std::size_t a = circle[i], b = circle[slots - 1 - i];
      if (a >= nodes || b >= nodes) continue;
      links.push_back({a, b});
      links.push_back({b, a});
    }
    rounds.push_back(std::move(links));
    std::rotate(circle.begin() + 1, circle.end() - 1, circle.end());
  }
  return rounds;
}

Result<LinkSample> parse_link_sample(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\n')) line.remove_suffix(1);
  if (line.substr(0, 3) != "bw ") return make_error(ErrorKind::parse, "not a `bw` line: '{}'", line);
  line.remove_prefix(3);
  if (line.substr(0, 6) == "error ") {
    LinkSample sample;
    sample.error = std::string(line.substr(6));
    return sample;
  }
  if (line.substr(0, 3) != "ok " && line != "ok") return make_error(ErrorKind::parse, "unknown `bw {}`", line);
  return parse_ok_fields(line.substr(2));
}

std::vector<LinkSample> parse_link_samples(std::string_view output) {
  std::vector<LinkSample> samples;
  while (!output.empty()) {
    size_t end = output.find('\n');
    std::string_view line = output.substr(0, end);
    if (line.substr(0, 3) == "bw ") {
      auto sample = parse_link_sample(line);
      samples.push_back(sample ? *sample : LinkSample{.error = sample.error().message});
    }
    if (end == std::string_view::npos) break;
    output.remove_prefix(end + 1);
  }
  return samples;
}

std::string format_rate(double mbps) {
  if (mbps >= 10'000) return fmt::format("{:.2f} Gbit/s", mbps / 1000);
  if (mbps >= 100) return fmt::format("{:.0f} Mbit/s", mbps);
  if (mbps >= 10) return fmt::format("{:.1f} Mbit/s", mbps);
  return fmt::format("{:.2f} Mbit/s", mbps);
}

std::string format_link_sample(const LinkSample& sample) {
  if (!sample.ok) return "bw error " + sample.error;
  return fmt::format("bw ok mbps={:.2f} bytes={} seconds={:.3f} rtt_us={:.0f}", sample.mbps, sample.bytes,
                     sample.seconds, sample.rtt_us);
}

NodeInterface interface_holding(const NodeFacts& facts, const std::string& address) {
  for (const auto& interface : facts.interfaces) {
    if (interface.address == address) return {interface.name, interface.speed_mbps, interface.physical};
  }
  return {};
}

}  // namespace muster::doctor
