#include "telemetry/report_html.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

namespace muster::telemetry {

std::string_view report_script();  // report_assets.cc (generated)
std::string_view report_style();

namespace {

nlohmann::json value(float v) {
  if (std::isnan(v) || std::isinf(v)) return nullptr;
  double rounded = std::stod(fmt::format("{:.4g}", v));
  return rounded;
}

// The times of `series` (seconds since the start) and the given columns, each as an array.
nlohmann::json columns_of(const Series& full, std::initializer_list<std::pair<const char*, size_t>> wanted) {
  Series series = full.thinned(kReportPoints);
  nlohmann::json out;
  nlohmann::json t = nlohmann::json::array();
  for (size_t i = 0; i < series.size(); ++i) t.push_back(series.time(i));
  out["t"] = std::move(t);
  out["res"] = series.resolution_s();
  for (const auto& [name, column] : wanted) {
    nlohmann::json values = nlohmann::json::array();
    for (size_t i = 0; i < series.size(); ++i) values.push_back(value(series.value(i, column)));
    out[name] = std::move(values);
  }
  return out;
}

// A column that is a sum of two others (NaN when both are).
void add_sum(nlohmann::json& out, const Series& full, const char* name, size_t a, size_t b) {
  Series series = full.thinned(kReportPoints);
  nlohmann::json values = nlohmann::json::array();
  for (size_t i = 0; i < series.size(); ++i) {
    float x = series.value(i, a), y = series.value(i, b);
    values.push_back(std::isnan(x) && std::isnan(y) ? nlohmann::json(nullptr)
                                                    : value((std::isnan(x) ? 0 : x) + (std::isnan(y) ? 0 : y)));
  }
  out[name] = std::move(values);
}

std::string escape_html(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

nlohmann::json report_data(const Store& store, const nlohmann::json& summary) {
  nlohmann::json data;
  data["job"] = summary.value("job_id", "");
  data["summary"] = summary;
  data["start_unix_ms"] = store.start_ms();
  uint32_t duration = 1;
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& [rank, series] : store.ranks()) {
    nlohmann::json r = columns_of(series, {{"step_ms", r_step_p50_ms}, {"compute_ms", r_compute_ms},
                                           {"wait_ms", r_wait_ms}, {"steps", r_steps}});
    // steps per second: the steps a point holds over the time it covers
    nlohmann::json rate = nlohmann::json::array();
    for (size_t i = 0; i < r["steps"].size(); ++i) {
      const auto& steps = r["steps"][i];
      rate.push_back(steps.is_number() ? value(static_cast<float>(steps.get<double>() / r["res"].get<double>()))
                                       : nlohmann::json(nullptr));
    }
    r["steps_per_s"] = std::move(rate);
    r["rank"] = rank;
    auto node = store.rank_nodes().find(rank);
    r["node"] = node == store.rank_nodes().end() ? "" : node->second;
    if (series.size() > 0) duration = std::max(duration, series.time(series.size() - 1) + series.resolution_s());
    ranks.push_back(std::move(r));
  }
  data["ranks"] = std::move(ranks);
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& [name, series] : store.nodes()) {
    nlohmann::json n = columns_of(series, {{"cpu_busy", n_cpu_busy}, {"steal", n_cpu_steal}, {"other_cpu", n_other_cpu},
                                           {"mem_used_gib", n_mem_used_gib}, {"load1", n_load1},
                                           {"swap_used_gib", n_swap_used_gib}});
    add_sum(n, series, "net_mbs", n_net_rx_mbs, n_net_tx_mbs);
    add_sum(n, series, "disk_mbs", n_disk_read_mbs, n_disk_write_mbs);
    n["node"] = name;
    if (series.size() > 0) duration = std::max(duration, series.time(series.size() - 1) + series.resolution_s());
    nodes.push_back(std::move(n));
  }
  data["nodes"] = std::move(nodes);
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& [key, series] : store.gpus()) {
    nlohmann::json g = columns_of(series, {{"util", g_util}, {"sm_mhz", g_sm_mhz}, {"power_w", g_power_w},
                                           {"temp_c", g_temp_c}, {"mem_used_gib", g_mem_used_gib}});
    g["node"] = key.first;
    g["index"] = key.second;
    gpus.push_back(std::move(g));
  }
  data["gpus"] = std::move(gpus);
  nlohmann::json events = nlohmann::json::array();
  std::vector<Event> ordered = store.events();
  std::stable_sort(ordered.begin(), ordered.end(), [](const Event& a, const Event& b) { return a.unix_ms < b.unix_ms; });
  for (const auto& e : ordered) {
    double t = e.unix_ms <= store.start_ms() ? 0 : (e.unix_ms - store.start_ms()) / 1000.0;
    duration = std::max(duration, static_cast<uint32_t>(std::ceil(t)));
    nlohmann::json event{{"t_s", t}, {"kind", e.kind}, {"text", e.text}};
    if (e.rank >= 0) event["rank"] = e.rank;
    if (!e.node.empty()) event["node"] = e.node;
    events.push_back(std::move(event));
  }
  data["events"] = std::move(events);
  data["duration_s"] = duration;
  data["stragglers"] = summary.value("stragglers", nlohmann::json::array());
  return data;
}

std::string render_report(const Store& store, const nlohmann::json& summary) {
  nlohmann::json data = report_data(store, summary);
  std::string json = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // Inside <script>, "</script" or "<!--" would change how the page parses: '<' only occurs in JSON strings, where
  // "\u003c" means the same.
  std::string safe;
  safe.reserve(json.size());
  for (char c : json) {
    if (c == '<') safe += "\\u003c";
    else safe += c;
  }
  std::string job = escape_html(summary.value("job_id", ""));
  std::string line = escape_html(summary.value("headline", ""));
  std::string html;
  html += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  html += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
          "style-src 'unsafe-inline'\">\n";
  html += fmt::format("<title>muster report: {}</title>\n<style>\n{}</style>\n</head>\n<body>\n", job, report_style());
  html += fmt::format("<h1>muster run report: job {}</h1>\n<div class=\"summary\" id=\"summary\">{}</div>\n", job, line);
  html += "<script type=\"application/json\" id=\"muster-data\">" + safe + "</script>\n";
  html += "<script>\n" + std::string(report_script()) + "</script>\n</body></html>\n";
  return html;
}

}  // namespace muster::telemetry
