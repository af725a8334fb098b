#include "cluster/slurm_job_status.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

namespace muster::cluster {
namespace {

// The value of ` name=` in a `scontrol -o` line, up to the next space; nullopt when absent.
std::optional<std::string_view> field(std::string_view text, std::string_view name) {
  for (size_t at = 0; (at = text.find(name, at)) != std::string_view::npos; at += name.size()) {
    bool starts_word = at == 0 || text[at - 1] == ' ' || text[at - 1] == '\n';
    if (!starts_word || at + name.size() >= text.size() || text[at + name.size()] != '=') continue;
    std::string_view value = text.substr(at + name.size() + 1);
    return value.substr(0, value.find_first_of(" \n"));
  }
  return std::nullopt;
}

bool parse_int(std::string_view text, int& value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

Result<SlurmJobStatus> parse_scontrol_job(std::string_view text) {
  auto state = field(text, "JobState");
  auto exit = field(text, "ExitCode");
  if (!state || state->empty() || !exit) {
    return make_error(ErrorKind::parse, "scontrol show job: no JobState/ExitCode in '{}'",
                      text.substr(0, std::min<size_t>(text.size(), 200)));
  }
  SlurmJobStatus status;
  status.state = std::string(*state);
  status.reason = std::string(field(text, "Reason").value_or(""));
  status.nodes = std::string(field(text, "NodeList").value_or(""));
  auto colon = exit->find(':');
  if (colon == std::string_view::npos || !parse_int(exit->substr(0, colon), status.exit_code) ||
      !parse_int(exit->substr(colon + 1), status.signal)) {
    return make_error(ErrorKind::parse, "scontrol show job: ExitCode '{}' is not <code>:<signal>", *exit);
  }
  return status;
}

bool job_finished(const SlurmJobStatus& status) {
  static constexpr std::array<std::string_view, 9> kLive = {
      "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "REQUEUE_HOLD", "RESIZING",
      "STAGE_OUT"};
  return std::find(kLive.begin(), kLive.end(), status.state) == kLive.end();
}

int job_exit_code(const SlurmJobStatus& status) {
  if (status.signal != 0) return 128 + status.signal;
  if (status.exit_code != 0) return status.exit_code;
  return status.state == "COMPLETED" ? 0 : 1;
}

}  // namespace muster::cluster
