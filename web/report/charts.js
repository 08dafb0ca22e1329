(function () {
  "use strict";
  var body = document.body;
  var drawn = 0;
  // One colour per series, the same in every chart: the contestants by their index in the
  // results, then any "contestant via loader" series. Past the palette, hues a golden angle apart.
  var PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
                 "#17becf", "#7f7f7f", "#bcbd22", "#000075", "#911eb4", "#469990", "#f032e6",
                 "#9a6324", "#808000", "#4363d8", "#800000"];
  // The percentile axis: each "nine" one step (p50 at -log10(0.5)), max one step past p99.99.
  var NINES = [
    {key: "p50", x: Math.log10(2), label: "p50"}, {key: "p90", x: 1, label: "p90"},
    {key: "p99", x: 2, label: "p99"}, {key: "p99.9", x: 3, label: "p99.9"},
    {key: "p99.99", x: 4, label: "p99.99"}, {key: "max", x: 5, label: "max"}];

  function orBlank(format) {  // axis labels: uPlot passes null for a tick it leaves out
    return function (u, values) {
      return values.map(function (v) { return v == null ? "" : format(v); });
    };
  }
  function finite(v) { return typeof v === "number" && isFinite(v); }
  function positive(v) { return finite(v) && v > 0 ? v : null; }
  function grouped(v) { return Math.round(v).toLocaleString("en-US"); }
  function ms(us) {
    var v = us / 1000;
    if (v >= 100) return grouped(v);
    return v >= 10 ? v.toFixed(1) : v >= 0.1 ? v.toFixed(2) : v.toPrecision(1);
  }

  var data = JSON.parse(document.getElementById("ringside-data").textContent);
  var rank = {};
  data.contestants.forEach(function (c, i) { rank[c.name] = i; });
  var colourIndex = {};
  data.contestants.forEach(function (c, i) { colourIndex[c.name] = i; });
  function colour(label) {
    if (!(label in colourIndex)) colourIndex[label] = Object.keys(colourIndex).length;
    var i = colourIndex[label];
    if (i < PALETTE.length) return PALETTE[i];
    return "hsl(" + Math.round((i * 137.508) % 360) + ", 70%, 38%)";
  }
  function translucent(c, alpha) {  // a palette colour or an hsl() one, see-through
    return c.charAt(0) === "#" ? c + alpha.hex : c.replace("hsl(", "hsla(").replace(")", ", " + alpha.share + ")");
  }
  var BAND = {hex: "33", share: 0.2}, BAR = {hex: "cc", share: 0.8};
  function isBaseline(label) { return label.split(" via ")[0] === data.baseline; }
  function interval(iv, lowFallback, highFallback) {  // an interval, else the rounds' min-max
    if (iv && finite(iv.low) && finite(iv.high)) return [iv.low, iv.high];
    return finite(lowFallback) && finite(highFallback) ? [lowFallback, highFallback] : null;
  }
  function rpsInterval(p) {
    return interval(p.requests_per_s_interval, p.requests_per_s_min, p.requests_per_s_max);
  }
  function cpuInterval(p) {
    var values = (p.rounds || []).map(function (r) { return r.server_cpu_us_per_request; })
        .filter(finite);
    return interval(p.cpu_us_per_request_interval,
                    values.length ? Math.min.apply(null, values) : null,
                    values.length ? Math.max.apply(null, values) : null);
  }
  function idleKib(name) {
    var found = data.contestants.filter(function (c) { return c.name === name; })[0];
    return found ? found.rss_idle_kib : null;
  }

  function measured(workload) {
    return data.points.filter(function (p) { return p.workload === workload && !p.failure; });
  }
  // A series per contestant; per contestant and loader when the workload compares loaders.
  function seriesNames(points) {
    var loaders = {};
    points.forEach(function (p) { loaders[p.loader] = true; });
    var several = Object.keys(loaders).length > 1;
    var names = [];
    points.forEach(function (p) {
      var name = several ? p.contestant + " via " + p.loader : p.contestant;
      if (names.indexOf(name) < 0) names.push(name);
    });
    names.sort(function (a, b) {
      return (rank[a.split(" via ")[0]] || 0) - (rank[b.split(" via ")[0]] || 0);
    });
    return {names: names, label: function (p) {
      return several ? p.contestant + " via " + p.loader : p.contestant;
    }};
  }
  function groupKey(p) { return p.mode === "open" ? "open " + p.rate : "closed " + p.connections; }
  function groupLabel(p) {
    return p.mode === "open" ? "open " + grouped(p.rate) + "/s" : "c=" + grouped(p.connections);
  }
  // Point groups in the tables' order: closed levels ascending, then open rates.
  function groupsOf(points) {
    var groups = [];
    points.forEach(function (p) {
      var key = groupKey(p);
      var g = groups.filter(function (x) { return x.key === key; })[0];
      if (!g) {
        var open = p.mode === "open";
        g = {key: key, open: open, level: open ? p.rate : p.connections, label: groupLabel(p),
             points: []};
        groups.push(g);
      }
      g.points.push(p);
    });
    groups.sort(function (a, b) {
      return a.open !== b.open ? (a.open ? 1 : -1) : a.level - b.level;
    });
    return groups;
  }

  function chartWidth(container) {
    var space = container.clientWidth || 800;
    return space >= 1100 ? Math.floor(space / 2) - 20 : Math.max(320, Math.min(900, space - 20));
  }
  // Each chart records its series' labels and colours (data-series), for readers and the tests;
  // series marked `hidden` (an interval's edges) stay out of the legend.
  function addChart(container, kind, title, options, columns) {
    var figure = document.createElement("figure");
    figure.className = "chart";
    figure.dataset.kind = kind;
    container.appendChild(figure);
    options.title = title;
    options.width = chartWidth(container);
    options.height = 280;
    options.legend = {live: true};
    var u = new uPlot(options, columns, figure);
    var rows = figure.querySelectorAll(".u-legend .u-series");
    var shown = [];
    options.series.forEach(function (s, i) {
      if (s.hidden && rows[i]) rows[i].style.display = "none";
      if (i > 0 && !s.hidden) shown.push({label: s.label, stroke: s.stroke, width: s.width});
    });
    figure.dataset.series = JSON.stringify(shown);
    drawn += 1;
    return u;
  }
  function lineSeries(name, format) {
    return {label: name, stroke: colour(name), width: isBaseline(name) ? 4 : 2, spanGaps: false,
            points: {show: true, size: isBaseline(name) ? 9 : 7},
            value: function (u, v, si, i) { return v == null ? "–" : format(v, i); }};
  }

  function throughputChart(container, workload, points) {
    var closed = points.filter(function (p) {
      return p.mode === "closed" && finite(p.median.requests_per_s);
    });
    if (!closed.length) return;
    var xs = [];
    closed.forEach(function (p) { if (xs.indexOf(p.connections) < 0) xs.push(p.connections); });
    xs.sort(function (a, b) { return a - b; });
    var s = seriesNames(closed);
    var columns = [xs];
    var series = [{label: "connections", value: function (u, v) {
      return v == null ? "–" : grouped(v);
    }}];
    var edges = [];  // each series' interval: low and high, drawn thin and dashed, a band between
    s.names.forEach(function (name) {
      var at = xs.map(function (c) {
        return closed.filter(function (q) { return q.connections === c && s.label(q) === name; })[0];
      });
      var spans = at.map(function (p) { return p ? rpsInterval(p) : null; });
      columns.push(at.map(function (p) { return p ? p.median.requests_per_s : null; }));
      series.push(lineSeries(name, function (v, i) {
        var span = i == null ? null : spans[i];
        return grouped(v) + (span ? " [" + grouped(span[0]) + "–" + grouped(span[1]) + "]" : "");
      }));
      edges.push({name: name, low: spans.map(function (x) { return x ? x[0] : null; }),
                  high: spans.map(function (x) { return x ? x[1] : null; })});
    });
    var bands = [];
    edges.forEach(function (e) {
      var c = colour(e.name);
      columns.push(e.high, e.low);
      series.push({label: e.name + " high", stroke: c, width: 1, dash: [4, 3], hidden: true,
                   points: {show: false}, spanGaps: false},
                  {label: e.name + " low", stroke: c, width: 1, dash: [4, 3], hidden: true,
                   points: {show: false}, spanGaps: false});
      bands.push({series: [series.length - 2, series.length - 1], fill: translucent(c, BAND)});
    });
    var title = workload + ": requests/s against connections (closed model; band: interval)";
    addChart(container, "throughput", title, {
      scales: {x: {time: false, distr: 3, log: 10},
               y: {range: function (u, min, max) { return [0, max * 1.1]; }}},
      axes: [{label: "connections", splits: function () { return xs; }, values: orBlank(grouped)},
             {label: "requests/s", size: 70, values: orBlank(grouped)}],
      bands: bands, series: series}, columns);
  }

  function spectrumChart(container, workload, group) {
    var points = group.points.filter(function (p) {
      return NINES.some(function (n) { return positive(p.median.latency_us[n.key]) !== null; });
    });
    if (!points.length) return;
    var s = seriesNames(points);
    var columns = [NINES.map(function (n) { return n.x; })];
    var series = [{label: "percentile", value: function (u, v) {
      var n = NINES.filter(function (m) { return m.x === v; })[0];
      return n ? n.label : "";
    }}];
    s.names.forEach(function (name) {
      var p = points.filter(function (q) { return s.label(q) === name; })[0];
      columns.push(NINES.map(function (n) {
        var v = positive(p.median.latency_us[n.key]);
        return v === null ? null : v / 1000;
      }));
      series.push(lineSeries(name, function (v) { return ms(v * 1000) + " ms"; }));
    });
    var title = workload + ": latency by percentile at " + grouped(group.level) +
        (group.open ? " req/s offered (open model)" : " connections");
    addChart(container, "spectrum", title, {
      scales: {x: {time: false, range: [0, 5.3]}, y: {distr: 3, log: 10}},
      axes: [{label: "percentile",
              splits: function () { return NINES.map(function (n) { return n.x; }); },
              values: orBlank(function (x) {
                var n = NINES.filter(function (m) { return m.x === x; })[0];
                return n ? n.label : "";
              })},
             {label: "latency (ms)", size: 70,
              values: orBlank(function (x) { return ms(x * 1000); })}],
      series: series}, columns);
  }

  // Grouped bars: category i, series j at x = i + (j - (n - 1) / 2) * w; nulls keep each
  // series to its own slots, and uPlot sizes a bar from the smallest step between slots.
  // A series' interval at each of its bars (intervalOf may be null): a whisker with caps.
  function whiskers(names, spans) {
    return function (u) {
      var ctx = u.ctx;
      ctx.save();
      names.forEach(function (name, k) {
        if (!u.series[k + 1].show) return;
        ctx.strokeStyle = "#222";
        ctx.lineWidth = 1.5 * devicePixelRatio;
        spans[k].forEach(function (span, i) {
          if (!span) return;
          var x = u.valToPos(u.data[0][i], "x", true);
          var lo = u.valToPos(span[0], "y", true), hi = u.valToPos(span[1], "y", true);
          var cap = 4 * devicePixelRatio;
          ctx.beginPath();
          ctx.moveTo(x, lo); ctx.lineTo(x, hi);
          ctx.moveTo(x - cap, lo); ctx.lineTo(x + cap, lo);
          ctx.moveTo(x - cap, hi); ctx.lineTo(x + cap, hi);
          ctx.stroke();
        });
      });
      ctx.restore();
    };
  }

  function barChart(container, kind, title, yLabel, categories, names, valueOf, format,
                    intervalOf) {
    var n = names.length, w = 0.8 / n;
    var xs = [], columns = [], spans = [];
    names.forEach(function () { columns.push([]); spans.push([]); });
    var any = false;
    categories.forEach(function (category, i) {
      names.forEach(function (name, j) {
        xs.push(i + (j - (n - 1) / 2) * w);
        names.forEach(function (other, k) {
          var v = k === j ? valueOf(category, name) : null;
          if (finite(v)) any = true; else v = null;
          columns[k].push(v);
          spans[k].push(k === j && v !== null && intervalOf ? intervalOf(category, name) : null);
        });
      });
    });
    if (!any) return;
    var series = [{label: "point", value: function (u, v, si, i) {
      var category = i == null ? null : categories[Math.floor(i / n)];
      return category ? category.label : "–";
    }}];
    names.forEach(function (name, k) {
      var c = colour(name);
      series.push({label: name, stroke: c, fill: translucent(c, BAR),
                   width: isBaseline(name) ? 3 : 1, points: {show: false},
                   paths: uPlot.paths.bars({size: [0.9, 60], align: 0}),
                   value: function (u, v, si, i) {
                     if (v == null) return "–";
                     var span = i == null ? null : spans[k][i];
                     return format(v) + (span ? " [" + format(span[0]) + "–" + format(span[1]) + "]" : "");
                   }});
    });
    addChart(container, kind, title, {
      // The legend shows every series at the hovered category: series k's bar there is at index
      // category * n + k, wherever in the category the cursor is.
      cursor: {dataIdx: function (u, si, closest) {
        if (si === 0 || closest == null) return closest;
        return Math.floor(closest / n) * n + (si - 1);
      }},
      hooks: {draw: [whiskers(names, spans)]},
      scales: {x: {time: false, range: function () { return [-0.6, categories.length - 0.4]; }},
               y: {range: function (u, min, max) { return [0, (max || 1) * 1.15]; }}},
      axes: [{splits: function () { return categories.map(function (c, i) { return i; }); },
              values: function (u, v) { return v.map(function (x) {
                return Number.isInteger(x) && categories[x] ? categories[x].label : "";
              }); }},
             {label: yLabel, size: 70, values: orBlank(format)}],
      series: series}, [xs].concat(columns));
  }

  function cpuChart(container, workload, points) {
    var groups = groupsOf(points);
    var s = seriesNames(points);
    function pointOf(group, name) {
      return group.points.filter(function (q) { return s.label(q) === name; })[0];
    }
    barChart(container, "cpu", workload + ": server CPU per request (whiskers: interval)",
      "CPU µs per request", groups, s.names,
      function (group, name) {
        var p = pointOf(group, name);
        return p ? p.median.server_cpu_us_per_request : null;
      }, function (v) { return v.toFixed(v < 10 ? 1 : 0); },
      function (group, name) {
        var p = pointOf(group, name);
        return p ? cpuInterval(p) : null;
      });
  }

  function memoryChart(container, workload, points) {
    var groups = [{label: "idle", idle: true}].concat(groupsOf(points));
    var s = seriesNames(points);
    // MiB (KiB / 1024), as the tables write it (report_format.cpp, format_memory).
    barChart(container, "memory", workload + ": memory (RSS idle, then peak at each point)", "MiB",
      groups, s.names,
      function (group, name) {
        var kib;
        if (group.idle) {
          kib = idleKib(name.split(" via ")[0]);
        } else {
          var p = group.points.filter(function (q) { return s.label(q) === name; })[0];
          kib = p ? p.median.rss_peak_kib : null;
        }
        return finite(kib) ? kib / 1024 : null;
      }, function (v) { return v.toFixed(v < 10 ? 1 : 0); });
  }

  function drawWorkload(container) {
    var workload = container.dataset.workload;
    var points = measured(workload);
    var steps = [
      function () { throughputChart(container, workload, points); },
      function () {
        groupsOf(points).forEach(function (g) { spectrumChart(container, workload, g); });
      },
      function () { cpuChart(container, workload, points); },
      function () { memoryChart(container, workload, points); }];
    steps.forEach(function (step) {
      try { step(); } catch (e) { window.ringsideRecordError("chart: " + (e && e.stack || e)); }
    });
  }

  try {
    if (typeof uPlot === "undefined") {
      body.dataset.chartsMissing = "uPlot is not in this file";
    } else {
      var containers = document.querySelectorAll(".charts[data-workload]");
      Array.prototype.forEach.call(containers, drawWorkload);
    }
  } finally {
    body.dataset.chartsDrawn = String(drawn);
  }
})();
