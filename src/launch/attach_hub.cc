#include "launch/attach_hub.h"

#include <fmt/format.h>

namespace muster::launch {
namespace {

nlohmann::json source_event(const char* kind, const logs::Source& source) {
  return {{"e", kind}, {"r", source.rank},   {"lr", source.local_rank}, {"nr", source.node_rank},
          {"n", source.node}, {"s", source.stream}};
}

}  // namespace

AttachHub::AttachHub(JobControl& control, nlohmann::json hello, size_t max_backlog)
    : control_(control), hello_(std::move(hello)), max_backlog_(max_backlog) {
  hello_["ok"] = true;
}

std::string AttachHub::encode(const nlohmann::json& event) const {
  // Worker output may hold bytes that are not UTF-8; JSON cannot: they become U+FFFD on the attached screen
  // (the rank logs keep them).
  return event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void AttachHub::attach(int client) {
  control_.send_line(client, encode(hello_));
  for (size_t i = 0; i < recent_count_; ++i) {
    const Recent& entry = recent_[(recent_next_ + kReplayLines - recent_count_ + i) % kReplayLines];
    control_.send_line(client, encode(entry.notice ? notice_event(entry.text) : line_event(entry.source, entry.text)));
  }
  if (ended_) {  // attached while the head was saying goodbye: the end at once
    control_.send_line(client, encode({{"e", "end"}, {"code", *ended_}}));
    control_.close_when_flushed(client);
    return;
  }
  clients_.insert(client);
}

void AttachHub::forget(int client) { clients_.erase(client); }

// Every line and notice is kept, as it came, for a client that attaches later; JSON only when one does. This runs
// for every line of every rank (a million a second is what the head carries), so nothing here allocates once the
// ring's strings have grown: the Recent slots are reused.
void AttachHub::remember(bool notice, const logs::Source* source, std::string_view text) {
  if (recent_.empty()) recent_.resize(kReplayLines);
  Recent& slot = recent_[recent_next_];
  slot.notice = notice;
  if (source) {
    slot.source.rank = source->rank;
    slot.source.local_rank = source->local_rank;
    slot.source.node_rank = source->node_rank;
    slot.source.node.assign(source->node);
    slot.source.stream = source->stream;
  }
  slot.text.assign(text);
  recent_next_ = (recent_next_ + 1) % kReplayLines;
  if (recent_count_ < kReplayLines) ++recent_count_;
}

nlohmann::json AttachHub::line_event(const logs::Source& source, std::string_view text) {
  auto event = source_event("line", source);
  event["t"] = text;
  return event;
}

nlohmann::json AttachHub::notice_event(std::string_view text) { return {{"e", "notice"}, {"t", text}}; }

void AttachHub::send(const nlohmann::json& event) {
  std::string line = encode(event);
  std::vector<int> gone, dropped;
  for (int client : clients_) {
    control_.send_line(client, line);
    if (!control_.alive(client)) gone.push_back(client);  // its fd is closed: forget it before the number is reused
    else if (control_.pending_bytes(client) > max_backlog_) dropped.push_back(client);
  }
  for (int client : gone) clients_.erase(client);
  for (int client : dropped) {
    clients_.erase(client);
    std::string why = fmt::format("muster: this attach fell more than {} MiB behind the job and was dropped; the job "
                                  "goes on (muster attach to see it again, muster logs for every line)",
                                  max_backlog_ >> 20);
    control_.discard_unsent(client);  // it gets the rest of the line it is reading, then why it was dropped
    control_.send_line(client, encode({{"e", "dropped"}, {"t", why}}));
    control_.close_when_flushed(client);
    notices_.push_back(fmt::format("an attached client fell more than {} MiB behind and was dropped (the job goes on)",
                                   max_backlog_ >> 20));
  }
}

void AttachHub::line(const logs::Source& source, std::string_view text) {
  remember(false, &source, text);
  if (!clients_.empty()) send(line_event(source, text));
}

void AttachHub::progress(const logs::Source& source, std::string_view text, int64_t) {
  if (clients_.empty()) return;
  auto event = source_event("progress", source);
  event["t"] = text;
  send(event);
}

void AttachHub::end_of_stream(const logs::Source& source) {
  if (clients_.empty()) return;
  send(source_event("eos", source));
}

void AttachHub::notice(std::string_view text) {
  remember(true, nullptr, text);
  if (!clients_.empty()) send(notice_event(text));
}

void AttachHub::end(int exit_code) {
  ended_ = exit_code;
  std::string line = encode({{"e", "end"}, {"code", exit_code}});
  for (int client : clients_) {
    control_.send_line(client, line);
    control_.close_when_flushed(client);
  }
  clients_.clear();
}

}  // namespace muster::launch
