// JSON for the facts nodes send the head (`muster node facts`, `muster node gpu`): a struct that lists its fields
// once (`static void fields(Self&, Visit&)`, as protocol messages do) is written and read by that list. Reading is
// lenient: a key that is missing or null leaves its field at its default, so an older node's answer still reads.
#pragma once

#include <nlohmann/json.hpp>

namespace muster::doctor {

template <typename T>
void write_fields(nlohmann::json& json, const T& value) {
  json = nlohmann::json::object();
  auto put = [&](const auto& field, const char* key) { json[key] = field; };
  T::fields(value, put);
}

template <typename T>
void read_fields(const nlohmann::json& json, T& value) {
  auto get = [&](auto& field, const char* key) {
    auto found = json.find(key);
    if (found != json.end() && !found->is_null()) found->get_to(field);
  };
  T::fields(value, get);
}

}  // namespace muster::doctor
