#include "doctor/gpu/gpu_op.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace muster::doctor {

Result<int> GpuOp::run(const GpuOp& op) {
  auto facts = gather_gpu(op.gather);
  fmt::print("{}\n", nlohmann::json(facts).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return 0;
}

}  // namespace muster::doctor
