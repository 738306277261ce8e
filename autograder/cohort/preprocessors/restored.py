"""What the course's autograde preprocessors put back in a submission, as values the grader reads from them.

``RestoreStructure`` and ``RestoreCellMetadata`` keep each change in their ``restored`` list; the grading worker
gives nbgrader its own instances of them and turns those values into the student's notes.  They also log each
change, for a plain ``nbgrader autograde``'s reader.
"""

from __future__ import annotations

from dataclasses import dataclass

#: What a preprocessor restored: the notebook's cells (deleted, duplicated, moved, unrecognised) or a cell's
#: nbgrader metadata.
WHAT = ("structure", "metadata")


@dataclass(frozen=True)
class Restored:
    """One change made to a submission before grading: ``what`` was restored (a value of :data:`WHAT`), and the
    change in words, one line."""

    what: str
    text: str

    def __post_init__(self) -> None:
        if self.what not in WHAT:
            raise ValueError(f"a preprocessor restores one of {WHAT}, not {self.what!r}")


class Restoring:
    """Mixed into a preprocessor: each change it makes is kept in :attr:`restored` and logged."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.restored: list[Restored] = []

    def restoring(self, what: str, text: str, lead: str) -> None:
        self.restored.append(Restored(what, text))
        self.log.warning("%s %s", lead, text)
