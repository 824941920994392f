// Live status and progress bar for a submission page; the page reads fine without it.
(function () {
  const box = document.getElementById("status");
  if (!box) return;
  const active = ["uploaded", "validating", "queued", "scoring", "aggregating"];
  if (!active.includes(box.dataset.status)) return;
  const bar = document.getElementById("progress");
  const text = document.getElementById("progress-text");
  const label = document.getElementById("status-label");
  const detail = document.getElementById("status-detail");
  const stage = document.getElementById("stage-detail");
  const eta = document.getElementById("eta");
  const place = document.getElementById("queue-place");
  function etaText(seconds) {  // the same words as the page without JavaScript
    if (seconds === null || seconds === undefined) return "";
    const minutes = Math.floor(seconds / 60);
    return minutes ? `about ${minutes} min ${seconds % 60} s left` : `about ${seconds} s left`;
  }
  async function poll() {
    try {
      const response = await fetch(box.dataset.statusUrl, { headers: { Accept: "application/json" } });
      if (response.ok) {
        const data = await response.json();
        bar.value = data.progress.percent;
        text.textContent = `${data.progress.done} / ${data.progress.total} items scored`;
        label.textContent = data.status.charAt(0).toUpperCase() + data.status.slice(1);
        label.className = "state " + data.status;
        detail.textContent = data.status_detail;
        // as the page without JavaScript: the stage's detail unless it repeats the status detail
        stage.textContent = data.stage_detail && data.stage_detail !== data.status_detail ? data.stage_detail : "";
        eta.textContent = etaText(data.eta_seconds);
        if (place) place.textContent = data.queue ? data.queue.text.charAt(0).toUpperCase() + data.queue.text.slice(1) + "." : "";
        if (stage.textContent && eta.textContent) stage.append(" · ", eta);
        else stage.append(eta);
        box.dataset.status = data.status;
        if (!active.includes(data.status)) {
          window.location.reload();
          return;
        }
      }
    } catch (error) { /* the next poll retries */ }
    window.setTimeout(poll, 1000);
  }
  window.setTimeout(poll, 500);
})();
