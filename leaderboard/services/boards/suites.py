"""A suite's board: its tasks side by side (CMI-Bench), each task's headline column as its own board shows it.

Read off the model index (``model_index``: every board as the viewer sees it), so each cell is the task board's
own value and rank. Tasks have unlike metrics and scales (accuracy, R², WER, F-measure, BLEU), so the suite
averages no values: a model's suite rank orders the mean of its task ranks, over models ranked on every task that
has a ranked row; a model missing a task holds no suite rank and says how many tasks it covers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from leaderboard.services.boards.model_index import BoardRef, Model, ModelResult, model_index_build
from scoring.specs import SUITES, Suite, suite_members

MISSING_RULE = ("Suite rank: the mean of a model's ranks on the tasks, over the models ranked on every task that has "
                "a ranked row (a lower mean is better); a model missing a task holds no suite rank. Values are "
                "never averaged across tasks: their metrics and scales differ.")


@dataclass
class SuiteTask:
    board: BoardRef
    task: str  # the task's own name (``GTZAN genre``)
    benchmark_title: str

    def as_json(self) -> dict[str, Any]:
        return {**self.board.as_json(), "task": self.task, "benchmark_title": self.benchmark_title}


@dataclass
class SuiteRow:
    model: Model
    cells: list[ModelResult | None]
    mean_rank: float | None = None
    covered: int = 0
    rank: int | None = None

    def as_json(self, tasks: list[SuiteTask]) -> dict[str, Any]:
        return {"model": self.model.name, "slug": self.model.slug, "url": self.model.url, "rank": self.rank,
                "mean_task_rank": self.mean_rank, "tasks_covered": self.covered,
                "tasks": {t.board.key: None if c is None else {
                    "rank": c.rank, "value": None if c.main is None else c.main.value, "source": c.source,
                    "model_name": c.model_name, "statistically_tied": c.tied}
                    for t, c in zip(tasks, self.cells, strict=True)}}


@dataclass
class SuiteBoard:
    suite: Suite
    tasks: list[SuiteTask]
    rows: list[SuiteRow] = field(default_factory=list)
    ranked_tasks: int = 0  # tasks with at least one ranked row: the ones a suite rank needs

    def as_json(self) -> dict[str, Any]:
        return {"suite": self.suite.name, "title": self.suite.title, "ranking": MISSING_RULE,
                "ranked_tasks": self.ranked_tasks, "tasks": [t.as_json() for t in self.tasks],
                "rows": [r.as_json(self.tasks) for r in self.rows]}


def suite_board_build(name: str, user: Any) -> SuiteBoard | None:
    """The suite ``name`` as ``user`` sees its tasks' boards; None for no such suite."""
    suite = SUITES.get(name)
    if suite is None:
        return None
    index = model_index_build(user)
    order = {spec.name: position for position, spec in enumerate(suite_members(name))}
    members = {spec.name: spec for spec in suite_members(name)}
    boards = sorted((b for b in index.boards if b.benchmark in order), key=lambda b: (order[b.benchmark], b.split))
    tasks = [SuiteTask(b, members[b.benchmark].short_title, members[b.benchmark].title) for b in boards]
    board = SuiteBoard(suite, tasks)
    for model in index.models:
        cells = [_ranked_first(model, t.board.key) for t in tasks]
        if any(c is not None for c in cells):
            board.rows.append(SuiteRow(model, cells))
    ranked = [i for i, _ in enumerate(tasks) if any(_rank(r.cells[i]) for r in board.rows)]
    board.ranked_tasks = len(ranked)
    _suite_ranks(board.rows, ranked)
    return board


def _ranked_first(model: Model, board_key: str) -> ModelResult | None:
    """The model's best-ranked row on a task board (a model with several configurations has several)."""
    rows = [r for r in model.results if r.board.key == board_key]
    return min(rows, key=lambda r: (r.rank is None, r.rank or 0), default=None)


def _rank(cell: ModelResult | None) -> int | None:
    return None if cell is None else cell.rank


def _suite_ranks(rows: list[SuiteRow], ranked: list[int]) -> None:
    for row in rows:
        ranks = [rank for i in ranked if (rank := _rank(row.cells[i]))]
        row.covered = len(ranks)
        row.mean_rank = round(sum(ranks) / len(ranks), 4) if ranks else None
    complete = sorted((r for r in rows if ranked and r.covered == len(ranked)), key=lambda r: r.mean_rank or 0)
    for position, row in enumerate(complete, start=1):
        above = complete[position - 2] if position > 1 else None
        row.rank = above.rank if above is not None and above.mean_rank == row.mean_rank else position
    rows.sort(key=lambda r: (r.rank is None, r.rank or 0, -r.covered, r.mean_rank or 0, r.model.name.casefold()))
