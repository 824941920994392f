// Draws the agreement heatmaps with plotly, which is fetched only when the section comes onto the
// screen (the board's first view stays light) and only when there is something to draw. Colour scale "Cividis" (readable for colour-blind viewers); every cell shows
// its number; models are numbered in leaderboard order, full names on hover and in the tables.
(function () {
  const section = document.getElementById("heatmaps");
  if (!section || !window.fetch) return;
  const narrow = () => section.clientWidth < 560;

  function loadPlotly() {
    if (window.Plotly) return Promise.resolve(window.Plotly);
    if (window.plotlyLoading) return window.plotlyLoading;  // field.js may have asked first: fetch once
    return window.plotlyLoading = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = section.dataset.plotlySrc;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => reject(new Error("plotly did not load"));
      document.head.appendChild(script);
    });
  }

  function short(label, max) {
    return label.length > max ? label.slice(0, max - 1) + "…" : label;
  }

  function draw(plan) {
    const el = document.getElementById(plan.id);
    el.closest("figure").hidden = false;
    const n = plan.y.length;
    const cell = narrow() ? 30 : 44;
    const left = narrow() ? 90 : 150;
    const height = Math.max(220, n * cell + 110);
    const text = plan.z.map((row) => row.map((v) => (v === null ? "–" : v.toFixed(2))));
    return window.Plotly.newPlot(el, [{
      type: "heatmap", z: plan.z, x: plan.x, y: plan.y, zmin: plan.zmin, zmax: plan.zmax,
      colorscale: "Cividis", text: text, texttemplate: "%{text}", textfont: { size: narrow() ? 10 : 12 },
      customdata: plan.hover, hovertemplate: "%{customdata}<extra></extra>", xgap: 1, ygap: 1,
      colorbar: { title: { text: plan.title, side: "right" }, thickness: 10 },
    }], {
      height: height, margin: { l: left, b: 70, t: 10, r: 10 }, font: { size: narrow() ? 10 : 12 },
      xaxis: { tickangle: plan.x.length > 4 || narrow() ? -45 : 0, automargin: true, type: "category" },
      yaxis: { autorange: "reversed", automargin: true, type: "category" },
    }, { responsive: true, displayModeBar: false }).then(() => el.setAttribute("data-rendered", "true"));
  }

  function plans(data) {
    const out = [];
    const names = data.models || [];
    const numbered = names.map((m, i) => `${i + 1}. ${short(m, narrow() ? 12 : 22)}`);
    const agree = data.model_agreement || {};
    if (agree.matrix && agree.matrix.length) {
      const counts = agree.items || [];
      const numbers = names.map((m, i) => String(i + 1));  // the rows carry the names
      out.push({ id: "heatmap-models", z: agree.matrix, x: numbers, y: numbered, zmin: -1, zmax: 1,
        title: agree.metric ? "r" : "τb",
        hover: agree.matrix.map((row, a) => row.map((v, b) =>
          `${names[a]} × ${names[b]}: ${v === null ? "–" : v.toFixed(3)} (${(counts[a] || [])[b] || 0} items)`)) });
    }
    const metrics = data.metric_agreement || {};
    if (metrics.matrix && metrics.matrix.length) {
      const n = metrics.n_models;
      out.push({ id: "heatmap-metrics", z: metrics.matrix, x: metrics.metrics, y: metrics.metrics, zmin: -1, zmax: 1,
        title: `Spearman, n=${n}`,
        hover: metrics.matrix.map((row, a) => row.map((v, b) =>
          `${metrics.metrics[a]} × ${metrics.metrics[b]}: ${v === null ? "–" : v.toFixed(3)} (n = ${n} models)`)) });
    }
    const errors = data.error_types || {};
    if (errors.matrix && errors.matrix.length) {
      const rows = errors.models.map((m, i) => `${i + 1}. ${short(m, narrow() ? 12 : 22)}`);
      out.push({ id: "heatmap-errors", z: errors.matrix, x: errors.labels, y: rows, zmin: 0, zmax: 1, title: "share",
        hover: errors.matrix.map((row, a) => row.map((v, b) =>
          `${errors.models[a]}, ${errors.labels[b]}: ${v === null ? "–" : v.toFixed(3)}`)) });
    }
    return out;
  }

  function explainEmpty(drawn) {
    for (const id of ["heatmap-models", "heatmap-metrics"]) {
      if (!drawn.includes(id)) document.getElementById(id).textContent = "Not enough scored entries for this heatmap yet.";
    }
  }

  // A refused or failed request says so (with the API's reason); only an answer without enough
  // entries says "not enough scored entries".
  function failed(message) {
    const charts = section.querySelector(".charts");
    charts.textContent = `Heatmaps could not be loaded (${message}); the linked tables have the numbers.`;
    charts.setAttribute("role", "alert");
    charts.id = "heatmaps-failed";
  }

  function whenNear(el, start) {
    if (!("IntersectionObserver" in window)) return start();
    const watch = new IntersectionObserver((seen) => {
      if (seen.some((e) => e.isIntersecting)) { watch.disconnect(); start(); }
    }, { rootMargin: "0px" });
    watch.observe(el);
  }

  whenNear(section, () => fetch(section.dataset.heatmapUrl, { headers: { Accept: "application/json" } })
    .then((r) => r.json().catch(() => ({})).then((data) => {
      if (!r.ok) throw new Error(`HTTP ${r.status}${data.error && data.error.message ? ": " + data.error.message : ""}`);
      return data;
    }))
    .then((data) => {
      const todo = plans(data);
      explainEmpty(todo.map((p) => p.id));
      if (!todo.length) return null;
      return loadPlotly().then(() => Promise.all(todo.map(draw)));
    })
    .catch((error) => failed(error && error.message ? error.message : "no answer")));
})();
