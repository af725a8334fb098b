#include "doctor/run_doctor.h"

#include <cstdlib>

#include <fmt/core.h>

#include "doctor/bandwidth/table.h"
#include "doctor/checks/report.h"
#include "posix/signals.h"
#include "posix/terminal.h"

namespace muster::doctor {

Result<int> run_doctor(const DoctorOptions& options) {
  posix::SignalBlock signals;
  std::vector<std::string> names;
  auto pool = head::connect_pool(options.connect, names);
  if (!pool) return pool.error();
  for (const auto& note : (*pool)->notes()) fmt::print(stderr, "muster doctor: {}\n", note);
  ExamineOptions examine_options = options.examine;
  examine_options.job_env = default_job_cache_env();
  auto examination = examine(**pool, names, examine_options);
  (*pool)->shutdown(3000);
  if (!examination) return examination.error();
  const auto& findings = examination->findings;
  if (options.json) {
    auto report = report_json(findings, names);
    if (examination->bandwidth) report["bandwidth"] = bandwidth_json(names, *examination->bandwidth);
    if (examination->ssh) report["ssh"] = ssh_check_json(names, *examination->ssh);
    if (!examination->gpu.empty()) {
      auto& nodes = report["gpu"]["nodes"] = nlohmann::json::array();
      for (size_t i = 0; i < names.size() && i < examination->gpu.size(); ++i) {
        nodes.push_back({{"name", names[i]}, {"facts", examination->gpu[i]}});
      }
    }
    fmt::print("{}\n", report.dump(2));
  } else {
    bool color = posix::is_terminal(1) && std::getenv("NO_COLOR") == nullptr;
    fmt::print("{}", format_report(findings, names, color));
  }
  return exit_code(findings);
}

}  // namespace muster::doctor
