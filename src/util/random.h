// Unpredictable identifiers: the nonces of agent preambles, job ids, file-name tokens. Read from
// std::random_device (the kernel's getrandom), never from a seeded generator.
#pragma once

#include <string>
#include <string_view>

namespace muster {

// `digits` lowercase hex digits.
std::string random_hex(int digits);

// A job id that sorts by start time and is unique: "20261125-093012-3fa9c1" (UTC time + 24 random bits).
std::string new_job_id();

// Why `id` cannot name a job ("" when it can): a job id becomes a file name (the registry's <id>.json), a
// directory name and a container name, so it is 1-128 characters of [A-Za-z0-9._-] that do not start with '.'
// or '-' (`--job-id ../x` would leave the registry).
std::string job_id_problem(std::string_view id);

}  // namespace muster
