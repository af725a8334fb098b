#include "transport/ssh_master.h"


#include "posix/clock.h"
#include "posix/fd.h"
#include "posix/pipe.h"
#include "posix/unix_socket.h"

namespace muster::transport {
namespace {

void put_u32(std::string& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xFF));
}

void put_string(std::string& out, std::string_view text) {
  put_u32(out, static_cast<uint32_t>(text.size()));
  out.append(text);
}

uint32_t get_u32(std::string_view bytes, size_t at) {
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

std::string framed(const std::string& body) {
  std::string out;
  put_u32(out, static_cast<uint32_t>(body.size()));
  return out + body;
}

}  // namespace

std::string mux_hello() {
  std::string body;
  put_u32(body, kMuxHello);
  put_u32(body, kMuxVersion);
  return framed(body);
}

std::string mux_new_session(uint32_t request_id, std::string_view command) {
  std::string body;
  put_u32(body, kMuxNewSession);
  put_u32(body, request_id);
  put_string(body, "");          // reserved
  put_u32(body, 0);              // want tty: never (a tty would turn \n into \r\n in the frames)
  put_u32(body, 0);              // X11 forwarding
  put_u32(body, 0);              // agent forwarding
  put_u32(body, 0);              // subsystem
  put_u32(body, 0xFFFFFFFFu);    // no escape character
  put_string(body, "");          // terminal type
  put_string(body, command);
  return framed(body);
}

std::optional<MuxReply> take_mux_reply(std::string& buffer) {
  if (buffer.size() < 4) return std::nullopt;
  uint32_t length = get_u32(buffer, 0);
  if (buffer.size() < 4 + static_cast<size_t>(length)) return std::nullopt;
  std::string_view body = std::string_view(buffer).substr(4, length);
  MuxReply reply;
  if (body.size() >= 4) reply.type = get_u32(body, 0);
  bool refusal = reply.type == kMuxFailure || reply.type == kMuxPermissionDenied;
  if (refusal && body.size() >= 12) {
    uint32_t size = get_u32(body, 8);
    reply.reason = std::string(body.substr(12, size));  // substr clamps a length past the end
  }
  if (reply.type == kMuxExitMessage && body.size() >= 12) reply.value = get_u32(body, 8);
  buffer.erase(0, 4 + static_cast<size_t>(length));
  return reply;
}

std::optional<AgentProcess> open_master_session(const std::string& control_path, const std::string& command) {
  auto control = posix::connect_unix(control_path);
  if (!control || !posix::peer_is_same_user(control->get())) return std::nullopt;
  auto in = posix::make_pipe();
  auto out = posix::make_pipe();
  auto err = posix::make_pipe();
  if (!in || !out || !err) return std::nullopt;
  // A few KB into an empty socket buffer: one write, never short in practice; anything else falls back.
  std::string request = mux_hello() + mux_new_session(1, command);
  auto written = posix::write_some(control->get(), request);
  if (!written || written->bytes != request.size()) return std::nullopt;
  for (int fd : {in->read.get(), out->write.get(), err->write.get()}) {
    if (!posix::send_fd(control->get(), fd)) return std::nullopt;
  }
  AgentProcess process;
  process.to_agent = std::move(in->write);
  process.from_agent = std::move(out->read);
  process.agent_stderr = std::move(err->read);
  process.master_control = std::move(*control);
  return process;  // the session's ends of the pipes close here: the master holds them now
}

std::string master_refusal(int control, int wait_ms) {
  std::string buffer;
  int64_t deadline = posix::monotonic_ms() + wait_ms;
  while (true) {
    while (auto reply = take_mux_reply(buffer)) {
      if (reply->type == kMuxFailure || reply->type == kMuxPermissionDenied) return reply->reason;
      if (reply->type == kMuxExitMessage) return "";  // it ran, and ended: nothing was refused
    }
    int64_t left = deadline - posix::monotonic_ms();
    if (left <= 0) return "";
    auto ready = posix::wait_readable(control, static_cast<int>(left));
    if (!ready || !*ready) return "";
    char chunk[4096];
    auto got = posix::read_some(control, chunk);
    if (!got || got->eof) return "";
    buffer.append(chunk, got->bytes);
  }
}

}  // namespace muster::transport
