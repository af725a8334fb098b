#include "config/init_file.h"

#include <filesystem>

#include <fmt/core.h>

#include "config/check.h"
#include "config/config_files.h"
#include "config/starter.h"
#include "config/toml_reader.h"
#include "config/trust.h"
#include "posix/file.h"

namespace muster::config {

Result<void> write_starter(const InitOptions& options, const std::vector<cli_spec::CommandSpec>& commands) {
  namespace fs = std::filesystem;
  std::string output = options.user ? default_locations().user_path : options.output;
  if (output.empty()) output = kProjectFileName;
  fs::path target = fs::absolute(output).lexically_normal();
  if (posix::path_exists(target.string()) && !options.force) {
    return make_error(ErrorKind::usage, "{} exists; --force replaces it", target.string());
  }
  StarterInput input{options.init_app, options.own_keys, options.command_line, target.parent_path().string(),
                     fs::current_path().string()};
  std::string text = render_starter(input, commands);
  auto reread = parse_config_text(text, target.string(), "project");
  if (!reread) return reread.error();
  if (auto checked = check_config_file(*reread, commands); !checked) return checked.error();
  std::error_code error;
  fs::create_directories(target.parent_path(), error);
  if (auto written = posix::write_file_atomic(target.string(), text, 0644); !written) return written.error();
  if (!options.user) {  // the user's own choices, typed to init: allowed as written (trust.h)
    if (auto allowed = record_allow(default_allow_dir(), target.string(), content_digest(text)); !allowed) {
      return allowed.error();
    }
  }
  fmt::print("wrote {} ({} settings); `muster config` shows what each command takes from it\n", target.string(),
             reread->settings.size());
  return {};
}

}  // namespace muster::config
