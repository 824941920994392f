"""Canaries in the gold of hidden-label splits, looked for in every response the site serves.

Four hidden-label splits, one per kind of label: Jamendo-MT-QA (comparative QA) and MusicQA
(generation), whose gold answers carry ``zq7canary<N>`` strings written nowhere else; MMAU (multiple
choice), whose gold answer is one of its public options, so a leak is that option written more often
than an option that is neither the gold nor one of Alice's answers; DialBGM (ranking), whose gold
ranking is a permutation of the public candidates, so a leak is the candidates written in gold order
(any separator, quotes or tags between them) or the gold best written more often than a candidate no
one picked. Alice has scored entries (answers that differ from the gold, marked ``zq7mine<N>`` where
the answer is free text) and an invalid one on each split.

Every URL pattern of the site is filled from these rows (a pattern without a filling rule fails
:func:`test_every_route_has_a_filling_rule`), requested as anonymous, as Bob and as Alice, and the
same-origin links of each HTML page are followed one level. No body, header or cookie may carry a
canary; Alice's answers reach Alice only. The same URLs serve a maintainer every canary: the
detectors work.
"""

from __future__ import annotations

import html
import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.contrib.contenttypes.models import ContentType
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.urls import URLResolver, get_resolver, resolve
from django.urls.exceptions import Resolver404
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from leaderboard.models import ReferenceItem, Split, Status, Submission
from leaderboard.services.boards.model_index import model_slug
from tests.helpers.datagen import marked_jamendo_references
from tests.helpers.fixtures import module_rows, rows_fresh, split_create, user_create
from tests.helpers.kit_sample import seeded
from tests.helpers.site import bertscore_off, on_commit_run, upload

pytestmark = pytest.mark.django_db

TEXT_CANARY = re.compile(r"zq7canary(\d+)(?!\d)")
MINE = re.compile(r"zq7mine(\d+)(?!\d)")
OPTION = re.compile(r"(?<![A-Za-z0-9])mcq(\d+)opt(\d)(?![A-Za-z0-9])")
CANDIDATE = re.compile(r"(?<![A-Za-z0-9])dcand(\d+)x(\d)(?![A-Za-z0-9])")
# what may stand between two items of a list however it is written: JSON, CSV, HTML (entities, tags)
GAP = r"(?:[^\w<&]|<[^>]{0,80}>|&#?\w{1,8};){1,40}?"
GOLD_ORDER = re.compile(r"dcand(\d+)x(\d)" + r"".join(GAP + r"dcand\1x(\d)" for _ in range(3)))
N_JAMENDO_PAIRS, N_MUSICQA, N_MMAU, N_DIALBGM = 4, 6, 12, 10


# --- the hidden references and Alice's answers ------------------------------------------------


class Numbered:
    """``<prefix><N>``, a new N at each call: ``zq7canary<N>`` for gold answers, ``zq7mine<N>`` for Alice's."""

    def __init__(self, prefix: str) -> None:
        self.prefix, self.count = prefix, itertools.count(1)

    def __call__(self) -> str:
        return f"{self.prefix}{next(self.count)}"


def jamendo_references(canary: Numbered) -> list[dict[str, Any]]:
    return marked_jamendo_references(N_JAMENDO_PAIRS, lambda qa_type, pair: canary())


def jamendo_answers(references: list[dict[str, Any]], mine: Numbered, variant: int) -> list[dict[str, Any]]:
    generic = {"yes_no": "No", "short_answer": "neither of them",
               "sentence": ("a calm piece with piano and bass", "two loud rock songs")[variant]}
    return [{"id": r["id"], "prediction": generic[r["qa_type"]] if r["qa_type"] != "sentence"
             else f"{mine()} {generic['sentence']}"} for r in references]


def musicqa_references(canary: Numbered) -> list[dict[str, Any]]:
    return [{"id": f"mqa-{i}", "question": f"Which instrument leads clip {i}?", "audio": f"clip{i}.wav",
             "answer": [f"{canary()} a bright brass fanfare", f"{canary()} brass over timpani"]}
            for i in range(N_MUSICQA)]


def musicqa_answers(references: list[dict[str, Any]], mine: Numbered, variant: int) -> list[dict[str, Any]]:
    text = ("a soft solo piano", "a muted string quartet")[variant]
    return [{"id": r["id"], "prediction": f"{mine()} {text}"} for r in references]


MMAU_TASKS = ("music", "sound", "speech")
MMAU_OPTIONS = 5


def mmau_roles(i: int) -> tuple[int, int, int, int]:
    """Item i's options by role: the gold, Alice's two answers (one per entry, both wrong) and a bystander
    no one picks. The option the starter kit's sample file draws for the item (seeded by its id) has none of these
    roles."""
    options = [f"mcq{i}opt{k}" for k in range(MMAU_OPTIONS)]
    drawn = options.index(seeded(f"mq-{i}").choice(options))
    free = [k for k in range(MMAU_OPTIONS) if k != drawn]
    gold = (3 * i) % 4
    return free[gold], free[(gold + 1) % 4], free[(gold + 2) % 4], free[(gold + 3) % 4]


def mmau_gold(i: int) -> int:
    return mmau_roles(i)[0]


def mmau_references() -> list[dict[str, Any]]:
    items = []
    for i in range(N_MMAU):
        options = [f"mcq{i}opt{k}" for k in range(MMAU_OPTIONS)]
        items.append({"id": f"mq-{i}", "question": f"Question {i}?", "options": options,
                      "answer": options[mmau_gold(i)],
                      "metadata": {"task": MMAU_TASKS[i % 3], "difficulty": ("easy", "medium", "hard")[i % 3],
                                   "sub-category": "Instrumentation" if i % 2 else "Temporal Reasoning"}})
    return items


def mmau_answers(references: list[dict[str, Any]], variant: int) -> list[dict[str, Any]]:
    return [{"id": r["id"], "prediction": r["options"][mmau_roles(i)[1 + variant]]} for i, r in enumerate(references)]


# a gold ranking is never the candidates' order or its reverse (Alice's two rankings), nor led by a candidate
# either of her entries ranks first
GOLD_ORDERS = [p for p in itertools.permutations(range(4)) if p[0] in (1, 2) and p not in ((0, 1, 2, 3), (3, 2, 1, 0))]


def dialbgm_order(i: int) -> tuple[int, ...]:
    return GOLD_ORDERS[(5 * i) % len(GOLD_ORDERS)]


def dialbgm_references() -> list[dict[str, Any]]:
    items = []
    for i in range(N_DIALBGM):
        candidates = [f"dcand{i}x{j}" for j in range(4)]
        items.append({"id": f"dlg-{i}", "dialogue": [f"A: line {i}", "B: reply"], "summary": f"Dialogue {i}.",
                      "candidates": candidates, "gold_ranking": [candidates[j] for j in dialbgm_order(i)]})
    return items


def dialbgm_answers(references: list[dict[str, Any]], variant: int) -> list[dict[str, Any]]:
    """Entry 0 ranks the candidates in their order, entry 1 in reverse."""
    return [{"id": r["id"], "scores": {c: (4 - j if variant == 0 else j + 1) for j, c in enumerate(r["candidates"])}}
            for r in references]


BROKEN_RUNS: dict[str, list[dict[str, Any]]] = {  # wrong ids, wrong field types, not a permutation
    "jamendo": [{"id": "zq7mine900-not-an-item", "prediction": "Yes"},
                {"id": "cello_Track0A__organ_Track0B::yes_no", "prediction": 3},
                {"id": "cello_Track0A__organ_Track0B::sentence", "prediction": ["a", "list"]}],
    "musicqa": [{"id": "mqa-0", "prediction": {"text": "an object"}}, {"id": "mqa-999", "prediction": "x"},
                {"id": 17, "prediction": "a number id"}],
    "mmau": [{"id": "mq-0", "prediction": f"mcq0opt{mmau_roles(0)[1]}",  # one of Alice's answers, not the gold
              "options": [f"mcq0opt{k}" for k in reversed(range(MMAU_OPTIONS))]},
             {"id": "mq-1", "prediction": None, "options": "not a list"}, {"id": "mq-404", "prediction": "A"}],
    "dialbgm": [{"id": "dlg-0", "ranking": ["dcand0x0", "dcand0x1", "dcand0x9"]},
                {"id": "dlg-1", "scores": {"dcand1x0": "high", "dcand1x1": 1}},
                {"id": "dlg-2", "scores": [1, 2, 3, 4]}, {"id": "dlg-999", "ranking": []}],
}


@dataclass
class Board:
    """One hidden-label split: its references, the gold to look for and Alice's entries."""

    kind: str
    split: Split
    references: list[dict[str, Any]]
    scored: list[Submission]
    invalid: Submission


BENCHMARKS = {"jamendo": ("jamendo-mt-qa", "hidden-qa"), "musicqa": ("musicqa", "hidden-eval"),
              "mmau": ("mmau", "test"), "dialbgm": ("dialbgm", "hidden-test")}
UPLOAD_FIELDS = {"jamendo": {"type": "Multi"}}


@pytest.fixture(scope="module")
def canary_rows(django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: Any) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("canaries")
    canary, mine = Numbered("zq7canary"), Numbered("zq7mine")
    references = {"jamendo": jamendo_references(canary), "musicqa": musicqa_references(canary),
                  "mmau": mmau_references(), "dialbgm": dialbgm_references()}
    answers: dict[str, Callable[[int], list[dict[str, Any]]]] = {
        "jamendo": lambda v: jamendo_answers(references["jamendo"], mine, v),
        "musicqa": lambda v: musicqa_answers(references["musicqa"], mine, v),
        "mmau": lambda v: mmau_answers(references["mmau"], v),
        "dialbgm": lambda v: dialbgm_answers(references["dialbgm"], v),
    }
    with module_rows(django_db_blocker), bertscore_off():
        alice, bob = user_create("alice"), user_create("bob")
        maintainer = user_create("maintainer", staff=True)
        rows: dict[str, Any] = {"alice": alice, "bob": bob, "maintainer": maintainer}
        for kind, (benchmark, name) in BENCHMARKS.items():
            split = split_create(benchmark, name, references[kind], folder, hidden=True)
            with on_commit_run():
                first = upload(alice, split, [answers[kind](0), answers[kind](1)], model_name=f"Alice {kind} one",
                               **UPLOAD_FIELDS.get(kind, {}))
                second = upload(alice, split, [answers[kind](1)], model_name=f"Alice {kind} two",
                                **UPLOAD_FIELDS.get(kind, {}))
                broken = upload(alice, split, [BROKEN_RUNS[kind]], model_name=f"Alice {kind} broken",
                                **UPLOAD_FIELDS.get(kind, {}))
            entries = [Submission.objects.get(uid=r.json()["id"]) for r in (first, second, broken)]
            assert [e.status for e in entries] == [Status.SCORED, Status.SCORED, Status.INVALID], [
                (e.status, e.status_detail) for e in entries]
            rows[kind] = split
            rows[f"{kind}:entries"] = entries
        rows["references"] = references
        yield rows


@pytest.fixture
def world(canary_rows: dict[str, Any], db: Any) -> dict[str, Any]:
    return rows_fresh(canary_rows)


def boards(world: dict[str, Any]) -> list[Board]:
    out = []
    for kind in BENCHMARKS:
        entries = [Submission.objects.select_related("split__benchmark").get(pk=e.pk)
                   for e in world[f"{kind}:entries"]]
        out.append(Board(kind, world[kind], world["references"][kind], entries[:2], entries[2]))
    return out


# --- the detectors ----------------------------------------------------------------------------


@dataclass
class Gold:
    """What a leak of each split's gold looks like in a text."""

    canaries: set[str]
    mcq_roles: dict[int, tuple[int, int, int, int]]  # item -> its gold option, Alice's two, a bystander
    rankings: dict[int, tuple[int, ...]]  # item -> gold order of candidate numbers

    def leaks(self, text: str) -> list[str]:
        """Every sign of a gold label in ``text``: a text canary, an over-written MCQ answer, a gold ranking."""
        found = sorted({m[0] for m in TEXT_CANARY.finditer(text)} & self.canaries)
        if "mcq" in text:
            counts = Counter((int(i), int(k)) for i, k in OPTION.findall(text))
            for item, (gold, _, _, bystander) in self.mcq_roles.items():
                if counts[item, gold] > counts[item, bystander]:
                    found.append(f"mmau item {item}: gold option mcq{item}opt{gold} written {counts[item, gold]} "
                                 f"times, a bystander {counts[item, bystander]}")
        if "dcand" in text:
            counts = Counter((int(i), int(j)) for i, j in CANDIDATE.findall(text))
            for item, order in self.rankings.items():
                best, bystander = order[0], 3 - order[0]  # 1 or 2: what neither entry of Alice's ranks first
                if counts[item, best] > counts[item, bystander]:
                    found.append(f"dialbgm item {item}: gold best dcand{item}x{best} written {counts[item, best]} "
                                 f"times, a bystander {counts[item, bystander]}")
            for match in GOLD_ORDER.finditer(text):
                item, order = int(match[1]), tuple(int(match[k]) for k in (2, 3, 4, 5))
                if self.rankings.get(item) == order:
                    found.append(f"dialbgm item {item}: gold ranking in order: {match[0][:200]!r}")
        return found


def gold_of(world: dict[str, Any]) -> Gold:
    references = world["references"]
    canaries = {m[0] for kind in ("jamendo", "musicqa") for m in TEXT_CANARY.finditer(json.dumps(references[kind]))}
    return Gold(canaries=canaries, mcq_roles={i: mmau_roles(i) for i in range(N_MMAU)},
                rankings={i: dialbgm_order(i) for i in range(N_DIALBGM)})


def response_text(response: Any) -> str:
    """Body, headers and cookies of a response, as one text."""
    raw = b"".join(response.streaming_content) if getattr(response, "streaming", False) else response.content
    head = "\n".join(f"{k}: {v}" for k, v in response.items())
    cookies = "\n".join(m.OutputString() for m in response.cookies.values())
    return "\n".join((head, cookies, raw.decode("utf-8", "replace")))


# --- every route of the site, filled from the rows ----------------------------------------------


@dataclass(frozen=True)
class Route:
    key: str  # the route's name with its namespace ("admin:index"), or its pattern when unnamed
    pattern: str  # the full pattern, without anchors
    name: str | None

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(a or b for a, b in re.findall(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>", self.pattern))


def site_routes() -> list[Route]:
    return list(_walk(get_resolver(), "", ""))


def _walk(resolver: URLResolver, prefix: str, namespace: str) -> Iterator[Route]:
    for entry in resolver.url_patterns:
        pattern = prefix + str(entry.pattern).removeprefix("^")
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from _walk(entry, pattern, inner)
        else:
            name = f"{namespace}{entry.name}" if entry.name else None
            yield Route(name or pattern, pattern, name)


def fill(route: Route, **values: Any) -> str:
    """The route's path with ``values`` for its parameters."""
    # regex groups first: a group's name is written <name> too
    path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: str(values[m[1]]), route.pattern)
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m[1]]), path)
    return "/" + path.replace("$", "").replace("\\", "")


def choices(route: Route, param: str) -> list[str]:
    """The alternatives a regex parameter accepts (``(?P<fmt>csv|json)``)."""
    found = re.search(rf"\(\?P<{param}>([\w|]+)\)", route.pattern)
    assert found, (route.key, param)
    return found[1].split("|")


def with_query(path: str, *queries: dict[str, Any] | str) -> list[str]:
    return [path + (("?" + (q if isinstance(q, str) else urlencode(q, doseq=True))) if q else "") for q in queries]


@dataclass
class Seeds:
    """What fills the routes: the splits, Alice's entries, her account."""

    boards: list[Board]
    alice: Any
    absent_uid: str = "00000000-0000-4000-8000-000000000000"
    entries: list[Submission] = field(init=False)

    def __post_init__(self) -> None:
        self.entries = [e for b in self.boards for e in (*b.scored, b.invalid)]

    def splits(self) -> Iterator[tuple[Board, str, str]]:
        for board in self.boards:
            yield board, board.split.benchmark.name, board.split.name

    def pairs(self) -> list[tuple[str, str]]:
        """Compared pairs: two entries of one split, an invalid one, two splits."""
        pairs = [(str(b.scored[0].uid), str(b.scored[1].uid)) for b in self.boards]
        pairs += [(str(b.scored[0].uid), str(b.invalid.uid)) for b in self.boards[:1]]
        pairs.append((str(self.boards[0].scored[0].uid), str(self.boards[1].scored[0].uid)))
        return pairs


def explorer_queries(board: Board, *, every: bool) -> list[dict[str, Any] | str]:
    """The explorer's parameters: a run, text search, the split's own filters, a score filter (refused on a
    hidden split to all but maintainers); ``every``: also score sorts and ranges and values it refuses
    (each refusal its own URL)."""
    metric = board.split.spec.profile().metrics[0].key
    own = {"jamendo": {"qa_type": "sentence"}, "mmau": {"group": "task=music"}}.get(board.kind, {"setting": "x"})
    some: list[dict[str, Any] | str] = ["", {"run": 2, "q": "Question"}, {"q": "(empty)", **own}, {"correct": "no"}]
    if not every:
        return some
    return [*some, {"run": 9}, {"page": 999}, {"sort": f"-{metric}", "metric": metric, "min": 0, "max": 100}]


# Boards hold aggregates only (labels live in per-item rows): their parameters are crawled on one split
# with settings, and the other boards bare (their links are followed).
BOARD_VARIANTS = ("dialbgm",)


def board_queries(board: Board) -> list[dict[str, Any] | str]:
    """A board's parameters: entry policy, sort and its direction, filters, plotted columns, settings,
    and a column it refuses."""
    if board.kind not in BOARD_VARIANTS:
        return [""]
    profile = board.split.spec.profile()
    settings_ = {s.key: s.choices[0][0] for s in board.split.spec.settings}
    return ["", {"entry": "latest", "metric": profile.metrics[0].key, "sort": profile.metrics[-1].key,
                 "dir": "reverse"},
            {"open": "no", "papers": "hide", "params_min": "1B", "cols": ",".join(m.key for m in profile.metrics[:3]),
             **settings_}, {"sort": "no-such-column", "entry": "all"}]


def heatmap_queries(board: Board) -> list[dict[str, Any] | str]:
    metric = board.split.spec.profile().metrics[0].key
    return ["", {"entry": "latest", "metric": metric}] if board.kind in BOARD_VARIANTS else [""]


def download_queries(board: Board) -> list[dict[str, Any] | str]:
    return ["", {"entry": "latest", "dir": "reverse"}] if board.kind in BOARD_VARIANTS else [""]


def _boards_with_queries(seeds: Seeds, route: Route, queries: Callable[[Board], list[Any]]) -> list[str]:
    return [url for board, b, s in seeds.splits() for url in with_query(fill(route, benchmark=b, split=s),
                                                                        *queries(board))]


def _per_split(seeds: Seeds, route: Route) -> list[str]:
    return [fill(route, benchmark=b, split=s) for _, b, s in seeds.splits()] + [
        fill(route, benchmark=seeds.boards[0].split.benchmark.name, split="no-such-split")]


def _per_entry(seeds: Seeds, route: Route) -> list[str]:
    return [fill(route, uid=e.uid) for e in seeds.entries] + [fill(route, uid=seeds.absent_uid)]


def _entry_explorer(seeds: Seeds, route: Route) -> list[str]:
    """Every entry's explorer; the first entry of each split with the explorer's parameters (every one of
    them on the API, some on the entry's page, which renders the same refusals around the whole entry)."""
    every = route.key.startswith("api-")
    return [url for board in seeds.boards for entry in (*board.scored, board.invalid)
            for url in with_query(fill(route, uid=entry.uid), *(
                explorer_queries(board, every=every) if entry == board.scored[0] else [""]))] + [
        fill(route, uid=seeds.absent_uid)]


def _compares(seeds: Seeds, route: Route) -> list[str]:
    path = fill(route)
    everything = [str(e.uid) for e in seeds.entries[:3]]
    return [*with_query(path, *({"a": a, "b": b} for a, b in seeds.pairs())),
            *with_query(path, {"a": everything[0]}, {"a": everything[0], "b": seeds.absent_uid},
                        {"pick": everything}, {"pick": everything[:2]}, {"a": "not-a-uuid", "b": everything[0]},
                        {"a": everything[0], "b": everything[1], "metric": "accuracy"}, "")]


def _models(seeds: Seeds, route: Route) -> list[str]:
    return [fill(route, slug=model_slug(e.model_name)) for e in seeds.entries] + [fill(route, slug="no-such-model")]


def _user_link(seeds: Seeds, route: Route) -> list[str]:
    uidb64 = urlsafe_base64_encode(force_bytes(seeds.alice.pk))
    return [fill(route, uidb64=uidb64, token="set-password"),
            fill(route, uidb64=uidb64, token=default_token_generator.make_token(seeds.alice)),
            fill(route, uidb64="bm9ib2R5", token="bogus-token")]


def _plain(route: Route) -> list[str]:
    return [fill(route)]


ROUTE_RULES: dict[str, Callable[[Seeds, Route], list[str]]] = {
    "home": lambda s, r: _plain(r),  # its ?model_sort= links are followed
    "benchmark": lambda s, r: [fill(r, benchmark=b.split.benchmark.name) for b in s.boards]
    + [fill(r, benchmark="no-such-benchmark")],
    "leaderboard": lambda s, r: _boards_with_queries(s, r, board_queries),
    "leaderboard-heatmaps": lambda s, r: _boards_with_queries(s, r, heatmap_queries),
    "leaderboard-download": lambda s, r: [
        url for board, b, n in s.splits() for fmt in choices(r, "fmt")
        for url in with_query(fill(r, benchmark=b, split=n, fmt=fmt), *download_queries(board))],
    "inputs-download": _per_split,
    "models": lambda s, r: with_query(fill(r), "", {"q": "Alice"}, {"q": "mmau"}),
    "model": _models,
    "split-kit": _per_split,
    "sample-download": _per_split,
    "submit": lambda s, r: with_query(fill(r), "", *({"split": f"{b}/{n}"} for _, b, n in s.splits())),
    "my-submissions": lambda s, r: _plain(r),
    "submission": _entry_explorer,
    "entry-manage": _per_entry,  # POST only: a GET is refused
    "items-download": lambda s, r: [fill(r, uid=e.uid, fmt=fmt) for e in s.entries for fmt in choices(r, "fmt")],
    "signup": lambda s, r: _plain(r),
    "verify-email": _user_link,
    "login": lambda s, r: with_query(fill(r), "", {"next": f"/s/{s.entries[0].uid}/"}),
    "password_reset": lambda s, r: _plain(r),
    "password_reset_done": lambda s, r: _plain(r),
    "password_reset_confirm": _user_link,
    "password_reset_complete": lambda s, r: _plain(r),
    "logout": lambda s, r: _plain(r),
    "tokens": lambda s, r: with_query(fill(r), "", {"revoke": "x"}),
    "api-openapi": lambda s, r: _plain(r),
    "api-docs": lambda s, r: _plain(r),
    "docs-protocols": lambda s, r: _plain(r),
    "suite": lambda s, r: [fill(r, suite="cmi-bench"), fill(r, suite="no-such-suite")],
    "api-suite": lambda s, r: [fill(r, suite="cmi-bench"), fill(r, suite="no-such-suite")],
    "api-benchmarks": lambda s, r: _plain(r),
    "api-benchmark": lambda s, r: [fill(r, benchmark=b.split.benchmark.name) for b in s.boards]
    + [fill(r, benchmark="no-such-benchmark")],
    "api-leaderboard": lambda s, r: _boards_with_queries(s, r, board_queries),
    "api-heatmap": lambda s, r: _boards_with_queries(s, r, heatmap_queries),
    "api-submit": _per_split,  # POST only: uploads are the fixture's
    "api-validate": _per_split,  # POST only: see test_dry_runs_of_broken_files_name_no_canary
    "api-models": lambda s, r: with_query(fill(r), "", {"q": "Alice"}),
    "api-submission": _per_entry,
    "api-submission-items": _entry_explorer,
    "api-compare": _compares,
    "compare": _compares,
    "health": lambda s, r: _plain(r),
    "admin/login/": lambda s, r: with_query(fill(r), "", {"next": "/admin/"}),
}
# Static files: they take no split data (plotly's bundle is 4.8 MB). The admin's routes are filled by
# admin_urls: every model's pages, for its first row.
NO_SPLIT_DATA = frozenset({"plotly-js", "favicon"})
# Named routes another pattern answers first (``admin/login/`` redirects to the site's throttled login).
SHADOWED = frozenset({"admin:login"})


ADMIN_PARAMS = frozenset({"object_id", "id", "content_type_id", "app_label", "url", "split_id"})


def admin_urls(seeds: Seeds, route: Route) -> list[str]:
    """An admin route filled from the database: a model's first row, the admin's app labels."""
    owner = re.match(r"admin/(\w+)/(\w+)/", route.pattern)
    model = apps.get_model(owner[1], owner[2]) if owner and owner[1] in {a.label for a in apps.get_app_configs()} \
        else None
    first = model._default_manager.order_by("pk").values_list("pk", flat=True).first() if model else None
    row = first if first is not None else 1
    values: dict[str, list[Any]] = {
        "object_id": [seeds.entries[0].pk if "content_type_id" in route.params else row],
        "id": [row],
        "content_type_id": [ContentType.objects.get_for_model(Submission).pk],
        "app_label": choices(route, "app_label") if "app_label" in route.params else [],
        "url": ["leaderboard/no-such-page/"],
        "split_id": [b.split.pk for b in seeds.boards],
    }
    assert set(values) == ADMIN_PARAMS
    names = list(route.params)
    return [fill(route, **dict(zip(names, combo))) for combo in itertools.product(*(values[n] for n in names))]


def rule_for(route: Route) -> Callable[[Seeds, Route], list[str]] | None:
    if route.key in ROUTE_RULES:
        return ROUTE_RULES[route.key]
    if route.key.startswith("admin:") or route.pattern.startswith("admin/"):
        return admin_urls
    return None


def answered_by(match: Any, route: Route) -> bool:
    """Whether a resolved URL is answered by ``route`` (same pattern and, for a named route, same name)."""
    same = match.route.replace("^", "") == route.pattern.replace("^", "")
    return same and (route.name is None or match.view_name == route.name)


def crawl_urls(seeds: Seeds) -> dict[str, list[str]]:
    """Every route's URLs; each URL is checked to resolve to the route it fills."""
    out: dict[str, list[str]] = {}
    for route in site_routes():
        if route.key in NO_SPLIT_DATA or route.key in SHADOWED:
            continue
        rule = rule_for(route)
        assert rule is not None, f"no filling rule for {route.key} ({route.pattern})"
        urls = rule(seeds, route)
        assert urls, route.key
        for url in urls:
            path = urlsplit(url).path
            try:
                match = resolve(path)
            except Resolver404:
                raise AssertionError(f"{route.key}: {path} does not resolve") from None
            assert answered_by(match, route), (route.key, path, match.route, match.view_name)
        out[route.key] = urls
    return out


# --- the crawl ----------------------------------------------------------------------------------

HREF = re.compile(r"""href\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def links(url: str, text: str) -> list[str]:
    """Same-origin links of an HTML page (fragments dropped; static files left out)."""
    out = []
    for double, single in HREF.findall(text):
        target = urljoin("http://testserver" + url, html.unescape(double or single))
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or parts.netloc != "testserver" or parts.path.startswith("/static/"):
            continue
        out.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    return out


def shape(url: str, source: str = "") -> tuple[str, tuple[str, ...]]:
    """A link's path and the names of the query parameters it adds to its page's (``source``): links that
    differ only in values (a board sorted by another column) or in the parameters the page carries over
    (its filters) show the same rows, and one of them is followed."""
    parts, page = urlsplit(url), urlsplit(source)
    carried = {name for name, _ in parse_qsl(page.query)} if page.path == parts.path else set()
    return parts.path, tuple(sorted({name for name, _ in parse_qsl(parts.query, keep_blank_values=True)} - carried))


@dataclass
class Crawl:
    responses: dict[str, tuple[int, str]] = field(default_factory=dict)  # url -> (status, text)

    def get(self, client: Client, url: str) -> str:
        if url not in self.responses:
            response = client.get(url)
            self.responses[url] = (response.status_code, response_text(response))
        return self.responses[url][1]


def crawl(client: Client, seeds: Seeds, *, follow: bool = True) -> Crawl:
    """Every filled URL, then the links of every HTML page among them (one level), one link per shape."""
    done = Crawl()
    pages = []
    for urls in crawl_urls(seeds).values():
        for url in urls:
            text = done.get(client, url)
            if "content-type: text/html" in text[:2000].lower():
                pages.append((url, text))
    shapes = {shape(url) for url in done.responses}
    for url, text in pages if follow else ():
        for link in links(url, text):
            if shape(link, url) not in shapes:
                shapes.add(shape(link, url))
                done.get(client, link)
    return done


def session(user: Any | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


LIMITS = {**settings.LIMITS, "COMPARES_PER_HOUR": 10_000, "DRY_RUNS_PER_HOUR": 10_000}


# --- the tests ----------------------------------------------------------------------------------


def test_the_canaries_are_in_the_stored_labels_and_not_in_the_public_inputs(world: dict[str, Any]) -> None:
    gold = gold_of(world)
    assert len(gold.canaries) == 3 * N_JAMENDO_PAIRS + 2 * N_MUSICQA  # one per answer, numbered apart
    for board in boards(world):
        items = list(ReferenceItem.objects.filter(split=board.split).order_by("index"))
        assert board.split.hidden_labels and len(items) == len(board.references)
        public = json.dumps([i.public for i in items])
        labels = [i.labels for i in items]
        assert not TEXT_CANARY.search(public) and not gold.leaks(public), board.kind
        if board.kind in ("jamendo", "musicqa"):
            expected = [r["answer"] if isinstance(r["answer"], list) else [r["answer"]] for r in board.references]
            assert [label["answers"] for label in labels] == expected
        elif board.kind == "mmau":
            assert [label["answers"] for label in labels] == [[f"mcq{i}opt{mmau_gold(i)}"] for i in range(N_MMAU)]
        else:
            assert [label["gold_ranking"] for label in labels] == [
                [f"dcand{i}x{j}" for j in dialbgm_order(i)] for i in range(N_DIALBGM)]
    stored = json.dumps([i.labels for i in ReferenceItem.objects.filter(split__hidden_labels=True)])
    assert {m[0] for m in TEXT_CANARY.finditer(stored)} == gold.canaries


def test_every_route_has_a_filling_rule() -> None:
    """A route added to the site is crawled, or this test names it."""
    routes = site_routes()
    unfilled = sorted(r.key for r in routes
                      if rule_for(r) is None and r.key not in NO_SPLIT_DATA and r.key not in SHADOWED)
    assert unfilled == []
    admin_params = {p for r in routes if rule_for(r) is admin_urls for p in r.params}
    assert admin_params <= ADMIN_PARAMS, f"admin parameters without a filling rule: {admin_params - ADMIN_PARAMS}"
    keys = {r.key for r in routes}
    assert set(ROUTE_RULES) <= keys, f"rules for routes the site does not have: {sorted(set(ROUTE_RULES) - keys)}"
    assert keys >= SHADOWED | NO_SPLIT_DATA
    for key in SHADOWED:  # answered by another pattern: its URL resolves elsewhere
        route = next(r for r in routes if r.key == key)
        assert not answered_by(resolve(fill(route)), route)


@pytest.mark.slow  # about 3 s a viewer: some 370 requests
@pytest.mark.parametrize("viewer", ["anonymous", "other", "owner"])
def test_no_response_carries_a_canary(world: dict[str, Any], viewer: str) -> None:
    user = {"anonymous": None, "other": world["bob"], "owner": world["alice"]}[viewer]
    seeds = Seeds(boards(world), world["alice"])
    gold = gold_of(world)
    client = session(user)
    with override_settings(LIMITS=LIMITS):
        done = crawl(client, seeds)
    assert client.get("/submissions/").status_code == (302 if user is None else 200)  # still signed in (no logout)
    leaks = {url: found for url, (_, text) in done.responses.items() if (found := gold.leaks(text))}
    assert leaks == {}
    echoed = {url: text[max(0, mark.start() - 160):mark.end() + 40] for url, (_, text) in done.responses.items()
              if (mark := MINE.search(text))}
    if viewer == "owner":  # Alice reads her own answers back (the crawl reaches her explorer)
        assert {f"/s/{b.scored[0].uid}/" for b in seeds.boards if b.kind in ("jamendo", "musicqa")} <= set(echoed)
    else:  # what Alice sent, her answers or her invalid file's lines, is hers and the maintainers'
        assert echoed == {}
    statuses = Counter(status for status, _ in done.responses.values())
    assert statuses[200] > 100 and statuses[403] and statuses[404], statuses


@pytest.mark.parametrize("viewer", ["anonymous", "other", "owner"])
def test_dry_runs_of_broken_files_name_no_canary(world: dict[str, Any], viewer: str) -> None:
    """Validation of a file with wrong ids, wrong types and a non-permutation, on the API and the upload page."""
    user = {"anonymous": None, "other": world["bob"], "owner": world["alice"]}[viewer]
    client = session(user)
    gold = gold_of(world)
    codes: Counter[str] = Counter()
    with override_settings(LIMITS=LIMITS):
        for board in boards(world):
            b, s = board.split.benchmark.name, board.split.name
            text = "".join(json.dumps(r) + "\n" for r in BROKEN_RUNS[board.kind]) + "{not json\n"
            api = client.post(f"/api/v1/benchmarks/{b}/{s}/validate", data=json.dumps({"predictions": text}),
                              content_type="application/json")
            page = client.post("/submit/", {"split": f"{b}/{s}", "dry_run": "1", "model_name": "Dry",
                                            "predictions": [SimpleUploadedFile("run1.jsonl", text.encode())]})
            for response in (api, page):
                assert not gold.leaks(response_text(response)), (board.kind, response_text(response)[:3000])
            if user is None:
                assert api.status_code == 401 and page.status_code == 302
                continue
            assert api.status_code == 200 and api.json()["valid"] is False, api.content
            codes.update(api.json()["problem_counts"])
            assert page.status_code == 200 and "dry_run" in page.context and not page.context["dry_run"]["valid"]
    if user is not None:  # the files were read and refused for what is wrong with them
        assert {"unknown_id", "wrong_type", "not_permutation", "options_mismatch", "not_json"} <= set(codes), codes


def test_a_maintainer_sees_every_canary(world: dict[str, Any]) -> None:
    """The control: the crawl's per-item URLs serve a maintainer the gold, and the detectors find all of it."""
    seeds = Seeds(boards(world), world["alice"])
    gold = gold_of(world)
    client = session(world["maintainer"])
    found: dict[str, set[str]] = {}
    for key, urls in crawl_urls(seeds).items():
        if key in ("submission", "api-submission-items", "items-download"):
            for url in (u for u in urls if "?" not in u):
                found.setdefault(key, set()).update(gold.leaks(response_text(client.get(url))))
    assert all(found.values()) and len(found) == 3, {k: len(v) for k, v in found.items()}
    every = set().union(*found.values())
    assert {f for f in every if f.startswith("zq7canary")} == gold.canaries
    assert {int(f.split()[2].rstrip(":")) for f in every if f.startswith("mmau")} == set(range(N_MMAU))
    in_order = {int(f.split()[2].rstrip(":")) for f in every if f.startswith("dialbgm") and "in order" in f}
    assert in_order == set(range(N_DIALBGM))
