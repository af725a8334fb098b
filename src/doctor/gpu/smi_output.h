// What nvidia-smi's query interface prints for the --gpu check, parsed (pure; unit-tested on the fixtures in
// tests/gpu/fixtures). The gatherer (gpu/gather_gpu.h) runs:
//   nvidia-smi --query-gpu=<health_query_fields()> --format=csv,noheader,nounits
//   nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory,process_name --format=csv,noheader,nounits
//   nvidia-smi --query-remapped-rows=gpu_uuid,remapped_rows.uncorrectable,remapped_rows.pending,
//              remapped_rows.failure --format=csv,noheader,nounits
//   nvidia-smi nvlink --status            nvidia-smi nvlink --errorcounters
// Drivers rename and add query fields: a field a driver does not know makes the whole query fail with
// `Field "x" is not a valid field to query.`, so the gatherer asks again with that field's other name, or
// without it (next_query_fields), a bounded number of times.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/gpu/gpu_facts.h"

namespace muster::doctor {

// The --query-gpu fields, in the order asked; `name` last (a GPU's name may hold a comma).
std::vector<std::string> health_query_fields();

// The field nvidia-smi refused (`Field "x" is not a valid field to query.`), nullopt when the output does not say.
std::optional<std::string> refused_field(std::string_view output);
// `fields` without `refused`, or with its newer name where it has one (clocks_throttle_reasons.active ->
// clocks_event_reasons.active); false when `refused` is not in `fields` (asking again would not help).
bool next_query_fields(std::vector<std::string>& fields, const std::string& refused);

// The --query-gpu output for `fields` (noheader, nounits): one GpuHealth per line. "[N/A]", "N/A" and
// "[Not Supported]" leave a field unknown. A line with more values than fields keeps the surplus in the last field
// (the name's commas).
std::vector<GpuHealth> parse_health_query(std::string_view text, const std::vector<std::string>& fields);

std::vector<GpuProcess> parse_compute_apps(std::string_view text);

// --query-remapped-rows merged into `gpus` by UUID.
void merge_remapped_rows(std::string_view text, std::vector<GpuHealth>& gpus);

// `nvidia-smi nvlink --status` ("GPU 0: ... (UUID: GPU-...)" then "Link 3: 26.562 GB/s" or "Link 3: <inactive>")
// and `--errorcounters` ("Link 3: Replay Errors: 0", "Link 3: Recovery Errors: 0", "Link 3: CRC Errors: 0"; older
// drivers: "CRC Flit Error", "CRC Data Error"), merged into `gpus` by the index in the "GPU n:" line.
void merge_nvlink_status(std::string_view text, std::vector<GpuHealth>& gpus);
void merge_nvlink_errors(std::string_view text, std::vector<GpuHealth>& gpus);

}  // namespace muster::doctor
