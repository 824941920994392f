"""Task types by name: the schema of references and predictions for each."""

from __future__ import annotations

from scoring.tasks.base import Fields, Prediction, Reference, TaskType
from scoring.tasks.comparative import QA_TYPES, ComparativeQATask
from scoring.tasks.generation import GenerationTask
from scoring.tasks.leave_one_out import LeaveOneOutTask
from scoring.tasks.multiple_choice import MultipleChoiceTask
from scoring.tasks.ranking import RankingTask

TASK_TYPES: dict[str, TaskType] = {
    task.name: task for task in (RankingTask(), GenerationTask(), ComparativeQATask(), MultipleChoiceTask(),
                                 LeaveOneOutTask())
}

__all__ = [
    "QA_TYPES",
    "TASK_TYPES",
    "Fields",
    "Prediction",
    "Reference",
    "TaskType",
]
