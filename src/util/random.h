// Unpredictable identifiers: the nonces of agent preambles, job ids, file-name tokens. Read from
// std::random_device (the kernel's getrandom), never from a seeded generator.
#pragma once

#include <string>

namespace muster {

// `digits` lowercase hex digits.
std::string random_hex(int digits);

// A job id that sorts by start time and is unique: "20261125-093012-3fa9c1" (UTC time + 24 random bits).
std::string new_job_id();

}  // namespace muster
