#include "doctor/gpu/gpu_facts.h"

namespace muster::doctor {
namespace {

template <typename T>
void write_fields(nlohmann::json& json, const T& value) {
  json = nlohmann::json::object();
  auto put = [&](const auto& field, const char* key) { json[key] = field; };
  T::fields(value, put);
}

// A key that is missing or null leaves its field at its default.
template <typename T>
void read_fields(const nlohmann::json& json, T& value) {
  auto get = [&](auto& field, const char* key) {
    auto found = json.find(key);
    if (found != json.end() && !found->is_null()) found->get_to(field);
  };
  T::fields(value, get);
}

}  // namespace

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
