// Block-style YAML text from a JSON value, for the YAML kinds (accelerate, compose, k8s). Renderers build an
// nlohmann value (nlohmann::json: keys sorted, as accelerate's yaml.safe_dump writes them;
// nlohmann::ordered_json: keys in insertion order, as people write compose files and manifests) and print it
// with to_yaml: maps as `key: value`, nested maps and lists indented by two spaces, lists as `- item`, empty
// containers as `[]` / `{}`.
//
// Strings are written plain when every YAML reader reads them back as the same string, and quoted otherwise:
// PyYAML (YAML 1.1: yes/no/on/off, 0o17, 1:20 sexagesimal, timestamps) and Go's YAML 1.2 readers used by
// docker compose and kubectl (1e5 is a float there) must all agree, so `no` becomes 'no', `1e5` becomes
// '1e5', `10.0.0.1` stays plain. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace muster::gen {

// `text` as a YAML scalar: plain when safe; else single-quoted; double-quoted with escapes when it holds
// control characters or bytes beyond ASCII (invalid UTF-8 becomes U+FFFD).
std::string yaml_scalar(std::string_view text);

// True when `text` written plain would be read as something other than this string by a YAML 1.1 or 1.2
// reader (a bool, null, number or timestamp).
bool yaml_resolves_to_non_string(std::string_view text);

// The document for an object (the top level must be one), each line ending in '\n'.
std::string to_yaml(const nlohmann::json& document);
std::string to_yaml(const nlohmann::ordered_json& document);

}  // namespace muster::gen
