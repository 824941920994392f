"""Constants and data plans shared by the browser tests (tests/browser)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = REPO / "artifacts" / "screenshots"
# No internet on the test machines: nothing in the background may try to reach it.
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1366, "height": 900}

# The page's width against the viewport, every element outside it, and the scroll boxes of tables.
OVERFLOW = """() => {
    const width = document.documentElement.clientWidth;
    const outside = [];
    for (const el of document.body.querySelectorAll('*')) {
        // wide tables scroll inside .table-wrap; a chart's own SVG parts are clipped by the chart box
        if (el.closest('.table-wrap, .skip, .visually-hidden') || el.closest('svg, .js-plotly-plot *')) continue;
        const box = el.getBoundingClientRect();
        if (box.width > 0 && (box.right > width + 1 || box.left < -1)) {
            const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + '.' + el.className;
            outside.push(`${name} ${Math.round(box.left)}..${Math.round(box.right)}`);
        }
    }
    const wraps = [...document.querySelectorAll('.table-wrap')].map(w => ({
        client: w.clientWidth, scroll: w.scrollWidth, right: w.getBoundingClientRect().right}));
    return {width, scrollWidth: document.documentElement.scrollWidth, outside: outside.slice(0, 20), wraps};
}"""


# Per-item prediction patterns over the 4 candidates, as (hit@1, tau-b) against the gold order:
#   perfect (1, 1); top_only: best right, the other three reversed (1, 0);
#   swapped: best two swapped, the rest right (0, 2/3); reversed (0, -1).
PATTERNS: dict[str, Callable[[list[str]], list[str]]] = {
    "perfect": lambda gold: gold,
    "top_only": lambda gold: [gold[0], *reversed(gold[1:])],
    "swapped": lambda gold: [gold[1], gold[0], *gold[2:]],
    "reversed": lambda gold: list(reversed(gold)),
}


@dataclass(frozen=True)
class EntryPlan:
    """A model whose predictions follow ``mix`` (pattern -> share of items)."""

    model_name: str
    settings: dict[str, str]
    mix: dict[str, float]


# Hit@1 order A > C > D > B; Kendall tau-b order D > B > C > A (the reverse).
BOARD_PLAN = (
    EntryPlan("Ranker A", {"input": "summary", "modality": "audio"}, {"top_only": 1.0}),
    EntryPlan("Ranker B", {"input": "full_dialogue", "modality": "audio"}, {"swapped": 1.0}),
    EntryPlan("Ranker C", {"input": "summary", "modality": "caption"}, {"perfect": 0.75, "reversed": 0.25}),
    EntryPlan("Ranker D", {"input": "full_dialogue", "modality": "caption"}, {"perfect": 0.25, "swapped": 0.75}),
)


def planned_predictions(references: list[dict[str, Any]], mix: dict[str, float]) -> list[dict[str, Any]]:
    counts = {name: round(share * len(references)) for name, share in mix.items()}
    names = [name for name, n in counts.items() for _ in range(n)]
    names += [names[-1]] * (len(references) - len(names))
    out = []
    for ref, pattern in zip(references, names):
        order = PATTERNS[pattern](ref["gold_ranking"])
        out.append({"id": ref["id"], "scores": {c: 4 - order.index(c) for c in ref["candidates"]}})
    return out

# Pairs of visible elements among ``selector``'s matches whose boxes overlap (text drawn over text), and
# elements whose content spills out of their own box.
OVERLAPS = """(selector) => {
    const shown = [...document.querySelectorAll(selector)].filter(el => {
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.height > 0 && !el.closest('.visually-hidden');
    });
    const overlapping = [];
    for (let i = 0; i < shown.length; i++) {
        for (let j = i + 1; j < shown.length; j++) {
            if (shown[i].contains(shown[j]) || shown[j].contains(shown[i])) continue;
            const a = shown[i].getBoundingClientRect(), b = shown[j].getBoundingClientRect();
            const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (x > 1 && y > 1) overlapping.push(`${shown[i].textContent.trim()} / ${shown[j].textContent.trim()}`);
        }
    }
    const spilling = shown
        .filter(el => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === 'visible')
        .map(el => el.textContent.trim().slice(0, 60));
    return {overlapping, spilling};
}"""
