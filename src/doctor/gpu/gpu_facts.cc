#include "doctor/gpu/gpu_facts.h"

#include "doctor/json_fields.h"

namespace muster::doctor {

void to_json(nlohmann::json& json, const NvLinkState& link) { write_fields(json, link); }
void from_json(const nlohmann::json& json, NvLinkState& link) { read_fields(json, link); }
void to_json(nlohmann::json& json, const GpuHealth& gpu) { write_fields(json, gpu); }
void from_json(const nlohmann::json& json, GpuHealth& gpu) { read_fields(json, gpu); }
void to_json(nlohmann::json& json, const GpuProcess& process) { write_fields(json, process); }
void from_json(const nlohmann::json& json, GpuProcess& process) { read_fields(json, process); }
void to_json(nlohmann::json& json, const IbPort& port) { write_fields(json, port); }
void from_json(const nlohmann::json& json, IbPort& port) { read_fields(json, port); }
void to_json(nlohmann::json& json, const XidRecord& xid) { write_fields(json, xid); }
void from_json(const nlohmann::json& json, XidRecord& xid) { read_fields(json, xid); }
void to_json(nlohmann::json& json, const GpuNodeFacts& facts) { write_fields(json, facts); }
void from_json(const nlohmann::json& json, GpuNodeFacts& facts) { read_fields(json, facts); }

}  // namespace muster::doctor
