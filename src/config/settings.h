// What a config file says, once read: settings (a command section, a key, the values as a command line would
// spell them) each with the file and line it came from. Plain data, shared by reading (toml_reader.h),
// checking (check.h), applying (apply.h) and showing (explain.h).
#pragma once

#include <string>
#include <vector>

namespace muster::config {

struct Source {
  std::string file;  // as found: /home/u/proj/muster.toml
  int line = 0;
  std::string text() const;  // "file:line"
};

enum class ValueType { string, integer, number, boolean };

struct Setting {
  std::vector<std::string> section;  // {} top level, {"launch"}, {"gen", "sbatch"}
  std::string key;                   // an option's long name: "nproc-per-node"
  std::vector<std::string> values;   // as on the command line: "8", "node[1-4]", "true"
  ValueType type = ValueType::string;  // of the value, or of the list's elements
  bool is_list = false;
  Source source;

  std::string section_name() const;  // "launch", "gen.sbatch", "" at the top level
  std::string display() const;       // "[launch] nproc-per-node" or "nproc-per-node"
};

struct Table {  // a [section] header, so an unknown command is reported even when its table is empty
  std::vector<std::string> section;
  Source source;
};

struct ConfigFile {
  std::string path;
  std::string role;  // "project" (muster.toml) or "user" (~/.config/muster/config.toml)
  std::vector<Setting> settings;
  std::vector<Table> tables;
  std::string digest;   // SHA-256 of the content read (trust.h)
  bool allowed = true;  // a project file: whether `muster config allow` recorded this content (trust.h)
  std::string directory() const;  // relative paths in the file are relative to this
};

// The files in force, highest precedence first: the project's muster.toml, then the user's config.
struct ConfigSet {
  std::vector<ConfigFile> files;
  std::string project_searched_from;  // the directory the muster.toml search started in
  std::string user_path;              // where the user's file is looked for
  std::vector<std::string> warnings;  // files found and ignored, and why
  bool empty() const { return files.empty(); }
};

}  // namespace muster::config
