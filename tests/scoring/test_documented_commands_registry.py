"""Every command README.md, ARCHITECTURE.md, bench/README.md and docs/*.md show is known to the test that runs
them (tests/e2e/test_documented_commands.py): run there as written, or listed with the reason it is not."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_documented_commands import COMMANDS, NotRun, Run, as_run, group
from tests.helpers.e2e import documented_commands

PAGE = """# A page

```sh
.venv/bin/python -m scoring score --benchmark mmar \\
    --predictions a.jsonl   # the comment
# a comment line

./scripts/setup
```

```python
print("not a shell block")
```

Prose with `manage.py load_demo` and `a span` and a `python -m scoring
inputs` span over two lines, and `DEBUG=1 ./scripts/run-site`.
"""


def test_each_documented_command_is_run_or_listed_with_a_reason() -> None:
    found = documented_commands()
    unknown = sorted({f"{c.page}:{c.line}: {c.text}" for c in found if c.text not in COMMANDS})
    assert not unknown, ("commands in the docs that tests/e2e/test_documented_commands.py neither runs nor lists "
                         "(add each to COMMANDS: Run, or NotRun with its reason):\n" + "\n".join(unknown))
    stale = sorted(set(COMMANDS) - {c.text for c in found})
    assert not stale, f"COMMANDS lists commands no page shows any more: {stale}"
    ran = sum(isinstance(plan, Run) for plan in COMMANDS.values())
    print(f"{len(found)} documented commands ({len(COMMANDS)} distinct): {ran} run as written, "
          f"{len(COMMANDS) - ran} listed with a reason")


def test_commands_not_run_say_why() -> None:
    for command, plan in COMMANDS.items():
        if isinstance(plan, NotRun):
            assert plan.reason.strip(), command


def test_steps_of_a_group_are_numbered_once() -> None:
    for name in ("cli", "site"):
        steps = [plan.step for _, plan in group(name)]
        assert steps == list(range(1, len(steps) + 1)), name


def test_placeholders_each_appear_in_their_command() -> None:
    for command, plan in COMMANDS.items():
        if isinstance(plan, Run):
            missing = [text for text in plan.placeholders if text not in command]
            assert not missing, (command, missing)


def test_commands_are_found_in_shell_blocks_and_inline_spans(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(PAGE, encoding="utf-8")
    found = [(c.page, c.line, c.text, c.fenced) for c in documented_commands(tmp_path)]
    assert found == [
        ("docs/page.md", 4, ".venv/bin/python -m scoring score --benchmark mmar --predictions a.jsonl", True),
        ("docs/page.md", 8, "./scripts/setup", True),
        ("docs/page.md", 15, "manage.py load_demo", False),
        ("docs/page.md", 15, "python -m scoring inputs", False),
        ("docs/page.md", 16, "DEBUG=1 ./scripts/run-site", False),
    ]


def test_placeholders_and_optional_parts_as_the_runner_writes_them() -> None:
    plan = Run("x", 1, {"refs.jsonl": "{refs}", "[--dry-run]": ""})
    command = "score --references refs.jsonl [--format table|json|csv] [--seed 0] [--dry-run]"
    assert as_run(command, plan, {"refs": "/t/r.jsonl"}) == "score --references /t/r.jsonl --format table --seed 0 "
