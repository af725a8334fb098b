// The run functions of the subcommands, one source file each (cmd_<name>.cc).
#pragma once

#include <string>
#include <vector>

namespace muster::cli {

int run_launch(const std::vector<std::string>& args);
int run_exec(const std::vector<std::string>& args);
int run_submit(const std::vector<std::string>& args);
int run_plan(const std::vector<std::string>& args);
int run_doctor(const std::vector<std::string>& args);
int run_sync(const std::vector<std::string>& args);
int run_stack(const std::vector<std::string>& args);
int run_why(const std::vector<std::string>& args);
int run_top(const std::vector<std::string>& args);
int run_report(const std::vector<std::string>& args);
int run_image(const std::vector<std::string>& args);
int run_ps(const std::vector<std::string>& args);
int run_attach(const std::vector<std::string>& args);
int run_logs(const std::vector<std::string>& args);
int run_stop(const std::vector<std::string>& args);
int run_gen(const std::vector<std::string>& args);
int run_setup(const std::vector<std::string>& args);
int run_version(const std::vector<std::string>& args);
int run_config(const std::vector<std::string>& args);
int run_init(const std::vector<std::string>& args);
int run_generate(const std::vector<std::string>& args);
int run_agent(const std::vector<std::string>& args);
int run_node(const std::vector<std::string>& args);

}  // namespace muster::cli
