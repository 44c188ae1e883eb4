"""Our evaluation examples as LangSmith examples: in memory, or synced into a LangSmith dataset."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from evals.datasets.questions import EvalExample


def to_langsmith_example(example: EvalExample, dataset_id: uuid.UUID) -> Any:
    """Return an in-memory `langsmith.schemas.Example` for one of our examples."""
    from langsmith.schemas import Example

    return Example(
        id=uuid.uuid5(dataset_id, example.qid),
        dataset_id=dataset_id,
        inputs={
            "qid": example.qid,
            "question": example.question,
            "history": list(example.history),
        },
        outputs={
            "gold_components": list(example.gold_components),
            "answers": list(example.answers),
        },
        metadata={
            "qid": example.qid,
            "hops": example.hops,
            "modalities": list(example.modalities),
            "answer_source": example.answer_source,
        },
    )


def sync_dataset(client: Any, name: str, examples: Sequence[EvalExample]) -> list[Any]:
    """Create the LangSmith dataset if missing, add examples it lacks, return ours from it."""
    if not client.has_dataset(dataset_name=name):
        client.create_dataset(name, description="FiF evaluation questions (gold component ids)")
    present = {ex.metadata.get("qid"): ex for ex in client.list_examples(dataset_name=name)}
    missing = [ex for ex in examples if ex.qid not in present]
    if missing:
        dataset_id = client.read_dataset(dataset_name=name).id
        created = [to_langsmith_example(ex, dataset_id) for ex in missing]
        client.create_examples(
            dataset_name=name,
            examples=[
                {"id": ex.id, "inputs": ex.inputs, "outputs": ex.outputs, "metadata": ex.metadata}
                for ex in created
            ],
        )
        present.update({ex.metadata["qid"]: ex for ex in client.list_examples(dataset_name=name)})
    return [present[ex.qid] for ex in examples]
