// The field on a leaderboard: the interval plot and the best value over time, drawn with plotly
// from the page's own numbers (#field-plots-data). Without JavaScript (or plotly) the tables stay.
(function () {
  const section = document.getElementById("field-plots");
  const source = document.getElementById("field-plots-data");
  if (!section || !source) return;
  const data = JSON.parse(source.textContent);
  const column = data.column;
  const layout = (extra) => Object.assign({ margin: { l: 60, b: 110, t: 10, r: 10 }, showlegend: true,
    legend: { orientation: "h", y: -0.35 } }, extra);
  const options = { responsive: true, displayModeBar: false };
  const DAY = 24 * 3600 * 1000;

  // The value axis: around the values drawn, padded, never past the column's own range (a 0-1 metric is
  // never drawn on 0-2). Without known bounds plotly's own range.
  function valueAxis(values) {
    const bounds = column.bounds;
    const shown = values.filter((v) => typeof v === "number");
    if (!bounds || !shown.length) return { title: { text: column.label }, automargin: true };
    const low = Math.min(...shown), high = Math.max(...shown);
    const width = bounds[1] - bounds[0];
    const pad = Math.max((high - low) * 0.15, width * 0.05);
    const span = Math.min(width, high - low + 2 * pad);  // a value at a bound is not alone on a sliver
    const start = Math.min(Math.max(bounds[0], low - pad), bounds[1] - span);
    return { title: { text: column.label + (column.unit ? " (" + column.unit + ")" : "") }, automargin: true,
      range: [start, Math.min(bounds[1], Math.max(start + span, high + pad))] };
  }

  function intervals(Plotly) {
    const el = document.getElementById("plot-intervals");
    const labels = data.entries.map((e) => (e.rank ? e.rank + (e.tied ? "≈" : "") : "–") + ". " + e.model);
    const traces = [{
      type: "scatter", mode: "markers", name: "entries on this site", cliponaxis: false,
      x: labels, y: data.entries.map((e) => e.value),
      error_y: { type: "data", symmetric: false,
        array: data.entries.map((e) => (e.high === null ? 0 : e.high - e.value)),
        arrayminus: data.entries.map((e) => (e.low === null ? 0 : e.value - e.low)) },
      hovertemplate: "%{x}: %{y}<extra></extra>",
    }];
    // the papers' values: measured as this column is (ranked with the entries) or under another protocol
    // (drawn apart, hollow and grey, with the difference: never among the ranked points)
    const same = data.published.filter((p) => p.lane !== "other_protocol");
    const other = data.published.filter((p) => p.lane === "other_protocol");
    if (same.length) {
      traces.push({ type: "scatter", mode: "markers", name: "published, this column's protocol (not re-scored)",
        marker: { symbol: "diamond", size: 9 },
        x: same.map((p) => (p.rank ? p.rank + ". " : "") + "paper: " + p.model), y: same.map((p) => p.value),
        text: same.map((p) => "printed " + p.printed + " (" + p.printed_unit + ")"),
        hovertemplate: "%{x}: %{y} — %{text}<extra></extra>" });
    }
    if (other.length) {
      traces.push({ type: "scatter", mode: "markers", name: "published under another protocol (not ranked)",
        marker: { symbol: "diamond-open", size: 9, color: "#888" },
        x: other.map((p) => "reference: " + p.model), y: other.map((p) => p.value),
        text: other.map((p) => p.differs), hovertemplate: "%{x}: %{y} — %{text}<extra></extra>" });
    }
    const values = [...data.entries.flatMap((e) => [e.value, e.low, e.high]), ...data.published.map((p) => p.value)];
    return Plotly.newPlot(el, traces, layout({ xaxis: { tickangle: -40, automargin: true, type: "category" },
      yaxis: valueAxis(values) }), options)
      .then(() => el.setAttribute("data-rendered", "true"));
  }

  function overTime(Plotly) {
    const el = document.getElementById("plot-time");
    const steps = data.best_over_time;
    const traces = [{ type: "scatter", mode: "lines+markers", line: { shape: "hv" }, name: "best on this site",
      cliponaxis: false,
      x: steps.map((s) => s.date), y: steps.map((s) => s.value), text: steps.map((s) => s.model),
      hovertemplate: "%{x}: %{text} %{y}<extra></extra>" }];
    const dated = data.published.filter((p) => p.year && p.lane !== "other_protocol");  // like with like
    if (dated.length) {
      traces.push({ type: "scatter", mode: "markers", name: "published (paper's year)",
        marker: { symbol: "diamond", size: 9 }, x: dated.map((p) => p.year + "-07-01"),
        y: dated.map((p) => p.value), text: dated.map((p) => p.model + " (" + p.year + ")"),
        hovertemplate: "%{text}: %{y}<extra></extra>" });
    }
    // submission times (UTC), ticks in days: entries of one day are a day wide, not a millisecond axis
    const xaxis = { type: "date", automargin: true, tickformat: "%Y-%m-%d", hoverformat: "%Y-%m-%d %H:%M" };
    if (data.time_range) {
      xaxis.range = data.time_range;
      xaxis.dtick = DAY;
    }
    const values = [...steps.map((s) => s.value), ...dated.map((p) => p.value)];
    return Plotly.newPlot(el, traces, layout({ xaxis: xaxis, yaxis: valueAxis(values) }), options)
      .then(() => el.setAttribute("data-rendered", "true"));
  }

  function draw() {
    const Plotly = window.Plotly;
    if (!Plotly) return;
    Promise.all([intervals(Plotly), overTime(Plotly)]).then(() => {
      section.querySelectorAll("details.plot-table").forEach((d) => d.removeAttribute("open"));
      section.setAttribute("data-rendered", "true");
    });
  }

  // plotly (about 1.4 MB) is fetched once the section comes onto the screen: the tables read first
  function whenNear(el, start) {
    if (!("IntersectionObserver" in window)) return start();
    const watch = new IntersectionObserver((seen) => {
      if (seen.some((e) => e.isIntersecting)) { watch.disconnect(); start(); }
    }, { rootMargin: "0px" });
    watch.observe(el);
  }

  whenNear(section, () => {
    if (window.Plotly) {
      draw();
    } else if (window.plotlyLoading) {  // heatmaps.js asked first: the bundle is fetched once
      window.plotlyLoading.then(draw);
    } else if (section.dataset.plotlySrc) {
      window.plotlyLoading = new Promise((resolve, reject) => {
        const script = document.createElement("script");
        script.src = section.dataset.plotlySrc;
        script.onload = () => resolve(window.Plotly);
        script.onerror = () => reject(new Error("plotly did not load"));
        document.head.appendChild(script);
      });
      window.plotlyLoading.then(draw);
    }
  });
})();
