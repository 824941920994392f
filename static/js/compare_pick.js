// The leaderboard's compare boxes: a comparison takes exactly two entries, so once two are ticked the
// others are disabled (and say why) until one is unticked. Without JavaScript more than two reach the
// compare page, which lists them to choose a pair.
(function () {
  const form = document.getElementById("compare-form");
  if (!form) return;
  const boxes = Array.from(form.querySelectorAll('input[name="pick"]'));
  function update() {
    const full = boxes.filter((b) => b.checked).length >= 2;
    for (const box of boxes) {
      box.disabled = full && !box.checked;
      box.closest("label").title = box.disabled ? "two entries are ticked: untick one to pick another"
        : "pick two entries, then “Compare”";
    }
  }
  form.addEventListener("change", update);
  update();
})();
