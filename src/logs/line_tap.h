// Another place the head's split output goes besides its own terminal view: LogMux hands every Line, Progress
// and end of stream it routes to the view to a tap as well (launch's AttachHub: the live view of `muster attach`
// clients). A tap is passive and must never block or fail the mux: it queues or drops.
#pragma once

#include <cstdint>
#include <string_view>

#include "logs/source.h"

namespace muster::logs {

class LineTap {
 public:
  virtual ~LineTap() = default;
  virtual void line(const Source& source, std::string_view text) = 0;
  virtual void progress(const Source& source, std::string_view text, int64_t now_ms) = 0;
  virtual void end_of_stream(const Source& source) = 0;
};

}  // namespace muster::logs
