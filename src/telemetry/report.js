// muster's run report: draws the charts of report.html from the data embedded in the page (no network, no library).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("muster-data").textContent);
  var NS = "http://www.w3.org/2000/svg";
  var EVENT_COLORS = { start: "#2f7d32", restart: "#c77700", exclude: "#8e24aa", stall: "#b42318",
                       straggler: "#d0342c", "straggler-end": "#9aa3b2", failure: "#b42318", end: "#1d2330" };
  var PALETTE = ["#3366cc", "#0099c6", "#109618", "#990099", "#dd4477", "#66aa00", "#316395", "#994499",
                 "#22aa99", "#aaaa11", "#6633cc", "#e67300", "#8b0707", "#651067", "#329262", "#5574a6"];
  var span = Math.max(1, data.duration_s || 1);
  var stragglers = {};
  (data.stragglers || []).forEach(function (s) { stragglers[s.rank] = true; });

  function el(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    if (parent) parent.appendChild(node);
    return node;
  }
  function clock(seconds) {
    var d = new Date(data.start_unix_ms + seconds * 1000);
    function two(n) { return (n < 10 ? "0" : "") + n; }
    return two(d.getHours()) + ":" + two(d.getMinutes()) + ":" + two(d.getSeconds());
  }
  function niceMax(v) {
    if (!(v > 0)) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v))), m = v / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function text(parent, x, y, content, attrs) {
    var t = el("text", Object.assign({ x: x, y: y }, attrs || {}), parent);
    t.textContent = content;
    return t;
  }

  // One chart: lines on the job's time axis, the events as vertical marks.
  function chart(container, title, unit, lines, options) {
    options = options || {};
    var W = 640, H = 210, L = 54, R = 12, T = 22, B = 30;
    var svg = el("svg", { viewBox: "0 0 " + W + " " + H, "class": "chart", "data-title": title }, container);
    text(svg, L, 14, title + (unit ? " (" + unit + ")" : ""), { "class": "title" });
    var max = 0;
    lines.forEach(function (line) { line.v.forEach(function (v) { if (v !== null && v > max) max = v; }); });
    max = options.max || niceMax(max * 1.05);
    function X(t) { return L + (W - L - R) * t / span; }
    function Y(v) { return H - B - (H - T - B) * Math.min(v, max) / max; }
    for (var i = 0; i <= 4; i++) {
      var v = max * i / 4, y = Y(v);
      el("line", { x1: L, x2: W - R, y1: y, y2: y, "class": i ? "grid" : "axis" }, svg);
      text(svg, L - 6, y + 4, +v.toPrecision(3), { "text-anchor": "end" });
    }
    for (var j = 0; j <= 5; j++) {
      var t = span * j / 5;
      text(svg, X(t), H - B + 16, clock(t), { "text-anchor": j === 0 ? "start" : j === 5 ? "end" : "middle" });
    }
    (data.events || []).forEach(function (e) {
      var x = X(e.t_s);
      var mark = el("line", { x1: x, x2: x, y1: T, y2: H - B, "class": "event", "data-kind": e.kind,
                              stroke: EVENT_COLORS[e.kind] || "#666" }, svg);
      el("title", {}, mark).textContent = clock(e.t_s) + " " + e.kind + ": " + e.text;
    });
    lines.forEach(function (line, k) {
      var d = "", pen = false;
      for (var i = 0; i < line.t.length; i++) {
        var v = line.v[i];
        if (v === null || v === undefined) { pen = false; continue; }
        d += (pen ? "L" : "M") + X(line.t[i]).toFixed(1) + " " + Y(v).toFixed(1);
        pen = true;
      }
      var attrs = { d: d, "class": "series" + (line.straggler ? " straggler" : ""),
                    stroke: line.color || PALETTE[k % PALETTE.length] };
      if (line.rank !== undefined) attrs["data-rank"] = line.rank;
      if (line.node !== undefined) attrs["data-node"] = line.node;
      var path = el("path", attrs, svg);
      el("title", {}, path).textContent = line.label;
    });
    return svg;
  }

  function legend(container, lines) {
    var div = document.createElement("div");
    div.className = "legend";
    lines.slice(0, 24).forEach(function (line, k) {
      var s = document.createElement("span");
      var i = document.createElement("i");
      i.style.background = line.color || PALETTE[k % PALETTE.length];
      s.appendChild(i);
      s.appendChild(document.createTextNode(line.label));
      div.appendChild(s);
    });
    if (lines.length > 24) div.appendChild(document.createTextNode("and " + (lines.length - 24) + " more"));
    container.appendChild(div);
  }

  function section(title, note) {
    var h = document.createElement("h2");
    h.textContent = title;
    document.body.appendChild(h);
    if (note) {
      var p = document.createElement("div");
      p.className = "note";
      p.textContent = note;
      document.body.appendChild(p);
    }
    var grid = document.createElement("div");
    grid.className = "charts";
    document.body.appendChild(grid);
    return grid;
  }

  function rankLines(field) {
    return (data.ranks || []).map(function (r, k) {
      var straggler = !!stragglers[r.rank];
      return { t: r.t, v: r[field], rank: r.rank, straggler: straggler,
               color: straggler ? "#d0342c" : PALETTE[k % PALETTE.length],
               label: "rank " + r.rank + " (" + r.node + ")" + (straggler ? " straggler" : "") };
    });
  }
  function nodeLines(list, field, key) {
    return list.map(function (n, k) {
      return { t: n.t, v: n[field], node: n.node, label: n.node + (key ? " " + key(n) : ""),
               color: PALETTE[k % PALETTE.length] };
    });
  }

  var steps = section("Step timing", "Step time: between the ends of two optimizer steps. Compute: step time minus " +
                      "the time the rank waited for the others in collectives; the straggler is the rank whose " +
                      "compute per step stands out. Dashed lines: the job's events.");
  if ((data.ranks || []).length) {
    var lines = rankLines("step_ms");
    chart(steps, "Step time per rank", "ms", lines);
    chart(steps, "Compute per step per rank", "ms", rankLines("compute_ms"));
    chart(steps, "Waiting per step per rank", "ms", rankLines("wait_ms"));
    chart(steps, "Steps per second per rank", "1/s", rankLines("steps_per_s"));
    legend(steps, lines);
  } else {
    steps.textContent = "No rank reported steps (no optimizer step, step marker, --step-pattern or tqdm bar).";
  }

  var nodes = section("Nodes", "One line per node, as its agent measured it every second.");
  var nodeList = data.nodes || [];
  chart(nodes, "CPU busy", "%", nodeLines(nodeList, "cpu_busy"), { max: 100 });
  chart(nodes, "CPU stolen and used outside the job", "% / % of a core", nodeLines(nodeList, "other_cpu"));
  chart(nodes, "Memory used", "GiB", nodeLines(nodeList, "mem_used_gib"));
  chart(nodes, "Network rx + tx, the job's interface", "MB/s", nodeLines(nodeList, "net_mbs"));
  chart(nodes, "Disk read + write", "MB/s", nodeLines(nodeList, "disk_mbs"));
  chart(nodes, "Load average", "", nodeLines(nodeList, "load1"));
  legend(nodes, nodeLines(nodeList, "cpu_busy"));

  if ((data.gpus || []).length) {
    var gpus = section("GPUs", "nvidia-smi's figures, one line per GPU.");
    var label = function (g) { return "GPU " + g.index; };
    chart(gpus, "GPU utilisation", "%", nodeLines(data.gpus, "util", label), { max: 100 });
    chart(gpus, "SM clock", "MHz", nodeLines(data.gpus, "sm_mhz", label));
    chart(gpus, "Power", "W", nodeLines(data.gpus, "power_w", label));
    chart(gpus, "Temperature", "C", nodeLines(data.gpus, "temp_c", label));
    legend(gpus, nodeLines(data.gpus, "util", label));
  }

  var events = section("Events");
  var table = document.createElement("table");
  table.id = "events";
  var head = table.insertRow();
  ["time", "event", "what"].forEach(function (h) {
    var th = document.createElement("th");
    th.textContent = h;
    head.appendChild(th);
  });
  (data.events || []).forEach(function (e) {
    var row = table.insertRow();
    row.className = e.kind;
    row.setAttribute("data-kind", e.kind);
    row.insertCell().textContent = clock(e.t_s);
    var kind = row.insertCell();
    kind.className = "kind";
    kind.style.color = EVENT_COLORS[e.kind] || "#666";
    kind.textContent = e.kind;
    row.insertCell().textContent = e.text;
  });
  events.appendChild(table);
  document.body.setAttribute("data-rendered", "yes");
})();
