#include "doctor/node/node_facts.h"

#include "doctor/json_fields.h"

namespace muster::doctor {

void to_json(nlohmann::json& json, const Gpu& gpu) { write_fields(json, gpu); }
void from_json(const nlohmann::json& json, Gpu& gpu) { read_fields(json, gpu); }
void to_json(nlohmann::json& json, const PythonFacts& python) { write_fields(json, python); }
void from_json(const nlohmann::json& json, PythonFacts& python) { read_fields(json, python); }
void to_json(nlohmann::json& json, const Interface& interface) { write_fields(json, interface); }
void from_json(const nlohmann::json& json, Interface& interface) { read_fields(json, interface); }
void to_json(nlohmann::json& json, const PathFacts& path) { write_fields(json, path); }
void from_json(const nlohmann::json& json, PathFacts& path) { read_fields(json, path); }
void to_json(nlohmann::json& json, const CacheDir& cache) { write_fields(json, cache); }
void from_json(const nlohmann::json& json, CacheDir& cache) { read_fields(json, cache); }
void to_json(nlohmann::json& json, const ContainerFacts& container) { write_fields(json, container); }
void from_json(const nlohmann::json& json, ContainerFacts& container) { read_fields(json, container); }
void to_json(nlohmann::json& json, const NodeFacts& facts) { write_fields(json, facts); }
void from_json(const nlohmann::json& json, NodeFacts& facts) { read_fields(json, facts); }

}  // namespace muster::doctor
