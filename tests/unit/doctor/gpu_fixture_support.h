// Test support: a node's GpuNodeFacts made from a fixture directory (tests/gpu/fixtures/<state>: written from
// NVIDIA's documented formats, none recorded; see its README) the way `muster node gpu` makes them from what
// nvidia-smi prints: the query asked with muster's fields (a field the fixture lacks is refused as a driver that
// does not know it refuses it, and the query asked again as gather_gpu does), then the same parsers; the kernel
// log read with posix::kernel_log_lines from the fixture's kmsg file.
#pragma once

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "doctor/gpu/gpu_facts.h"
#include "doctor/gpu/smi_output.h"
#include "gpu/kernel_events.h"
#include "posix/kernel_log.h"
#include "util/text.h"

namespace muster::doctor::test {

// "a, b, c" -> {"a", "b", "c"}
inline std::vector<std::string> split_csv(std::string_view line) {
  std::vector<std::string> values;
  for (;;) {
    size_t comma = line.find(',');
    values.emplace_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) return values;
    line.remove_prefix(comma + 1);
  }
}

inline std::string fixture_path(const std::string& path) { return std::string(MUSTER_GPU_FIXTURES) + "/" + path; }

inline std::string fixture_text(const std::string& path) {
  std::ifstream in(fixture_path(path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// What `nvidia-smi --query-...=<fields> --format=csv,noheader,nounits` prints for the fixture's table `file`;
// `refused` gets the first field the table lacks (the output is then nvidia-smi's complaint).
inline std::string smi_query(const std::string& state, const std::string& file, const std::vector<std::string>& fields,
                             std::string* refused = nullptr) {
  std::string text = fixture_text(state + "/" + file);
  auto lines = split_lines(text);
  if (lines.empty()) return "This query is not supported on this system.\n";
  std::vector<std::string> header;
  header = split_csv(lines[0]);
  std::string out;
  for (const auto& field : fields) {
    if (std::find(header.begin(), header.end(), field) == header.end()) {
      if (refused) *refused = field;
      return "Field \"" + field + "\" is not a valid field to query.\n";
    }
  }
  for (size_t row = 1; row < lines.size(); ++row) {
    auto values = split_csv(lines[row]);
    std::vector<std::string> picked;
    for (const auto& field : fields) {
      picked.emplace_back(values[std::find(header.begin(), header.end(), field) - header.begin()]);
    }
    out += join(picked, ", ") + "\n";
  }
  return out;
}

inline GpuNodeFacts gpu_facts_from_fixture(const std::string& state, int64_t uptime_ms = 5'000'000) {
  GpuNodeFacts facts;
  facts.gpu_devices = true;
  facts.has_nvidia_smi = true;
  facts.uptime_ms = uptime_ms;
  std::vector<std::string> fields = health_query_fields();
  std::string out;
  for (int retry = 0; retry < 6; ++retry) {
    std::string refused;
    out = smi_query(state, "query-gpu.csv", fields, &refused);
    if (refused.empty()) break;
    auto said = refused_field(out);
    if (!said || !next_query_fields(fields, *said)) break;
    facts.unknown_fields.push_back(*said);
  }
  facts.gpus = parse_health_query(out, fields);
  facts.processes = parse_compute_apps(
      smi_query(state, "compute-apps.csv", {"gpu_uuid", "pid", "used_memory", "process_name"}));
  std::string refused;
  std::string remapped = smi_query(state, "remapped-rows.csv",
                                   {"gpu_uuid", "remapped_rows.uncorrectable", "remapped_rows.pending",
                                    "remapped_rows.failure"},
                                   &refused);
  if (refused.empty()) merge_remapped_rows(remapped, facts.gpus);
  merge_nvlink_status(fixture_text(state + "/nvlink-status.txt"), facts.gpus);
  merge_nvlink_errors(fixture_text(state + "/nvlink-errors.txt"), facts.gpus);
  auto lines = posix::kernel_log_lines("NVRM", 0, 4096, fixture_path(state + "/kmsg"));
  if (lines) {
    for (const auto& line : *lines) {
      if (auto event = gpu::parse_gpu_kernel_line(line.text)) {
        event->monotonic_ms = line.monotonic_ms;
        facts.xids.push_back(XidRecord{*event});
      }
    }
  }
  return facts;
}

}  // namespace muster::doctor::test
