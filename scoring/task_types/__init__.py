"""Task types by name: the schema of references and predictions for each."""

from __future__ import annotations

from scoring.task_types.base import Fields, Prediction, Reference, TaskType
from scoring.task_types.comparative import QA_TYPES, ComparativeQATask
from scoring.task_types.generation import GenerationTask
from scoring.task_types.leave_one_out import LeaveOneOutTask
from scoring.task_types.multiple_choice import MultipleChoiceTask
from scoring.task_types.ranking import RankingTask

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
