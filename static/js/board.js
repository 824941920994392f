// A board wider than the screen scrolls inside its box with rank and model fixed at its left: when the
// sorted column starts off-screen, scroll it in beside them, so a row's rank, model and value read together.
(function () {
  const table = document.getElementById("leaderboard");
  const sorted = table && table.querySelector("thead th.sorted");
  const model = table && table.querySelector("thead th:nth-child(2)");
  if (!sorted || !model) return;
  const wrap = table.parentElement;
  const origin = wrap.getBoundingClientRect().left - wrap.scrollLeft;
  const fixed = model.getBoundingClientRect().right - origin;
  const left = sorted.getBoundingClientRect().left - origin;
  if (left + sorted.offsetWidth > wrap.clientWidth) wrap.scrollLeft = left - fixed;
})();
