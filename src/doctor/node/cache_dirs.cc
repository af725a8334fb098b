#include "doctor/node/cache_dirs.h"

namespace muster::doctor {
namespace {

std::string value_of(const std::map<std::string, std::string>& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

}  // namespace

const std::vector<std::string>& cache_variables() {
  static const std::vector<std::string> names = {
      "XDG_CACHE_HOME", "HF_HOME", "HF_DATASETS_CACHE", "HF_HUB_CACHE", "TRANSFORMERS_CACHE", "HUGGINGFACE_HUB_CACHE",
      "TORCH_HOME", "TORCH_EXTENSIONS_DIR", "TRITON_CACHE_DIR"};
  return names;
}

bool propagated_by_default(const std::string& name) {
  for (const char* prefix : {"HF_", "TRANSFORMERS_", "TORCH_", "HUGGINGFACE_"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::vector<CacheDir> job_cache_dirs(const std::map<std::string, std::string>& env, const std::string& home) {
  std::vector<CacheDir> out;
  // Each: the variable, or `fallback` (the library's default) when it is unset.
  auto add = [&](const std::string& name, const std::string& fallback) -> const std::string& {
    std::string value = value_of(env, name);
    out.push_back(CacheDir{name, value.empty() ? fallback : value, !value.empty(), ""});
    return out.back().path;
  };
  std::string xdg = add("XDG_CACHE_HOME", home + "/.cache");
  std::string hf_home = add("HF_HOME", xdg + "/huggingface");
  add("HF_DATASETS_CACHE", hf_home + "/datasets");
  // The hub cache: HF_HUB_CACHE, else the older names transformers and huggingface_hub still honour.
  std::string hub = value_of(env, "HF_HUB_CACHE");
  for (const char* older : {"HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE"}) {
    if (hub.empty() && !value_of(env, older).empty()) {
      add(older, "");
      hub = out.back().path;
    }
  }
  if (value_of(env, "HF_HUB_CACHE").empty() && !hub.empty()) {
    // named by an older variable: reported under that name above
  } else {
    add("HF_HUB_CACHE", hf_home + "/hub");
  }
  add("TORCH_HOME", xdg + "/torch");
  add("TORCH_EXTENSIONS_DIR", xdg + "/torch_extensions");
  add("TRITON_CACHE_DIR", home + "/.triton/cache");
  return out;
}

}  // namespace muster::doctor
