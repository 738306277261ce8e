"""The start page's prerequisites check: five short questions with instant feedback.

Each question tests one thing the course takes for granted (NumPy broadcasting, matrix shapes, the chain
rule on a two-node graph, a Python class with ``__init__``, a list comprehension); a wrong answer says why
and what to read before module 01.  ``prerequisites()`` shows them as widgets in a notebook;
``answer(number, choice)`` gives the same feedback anywhere.
"""

from __future__ import annotations

import html
from dataclasses import dataclass


@dataclass(frozen=True)
class Question:
    topic: str
    prompt: str
    choices: tuple[str, ...]
    correct: int  # index into choices
    why: str  # shown after any answer
    read: str  # what to read first when the answer was wrong


QUESTIONS: tuple[Question, ...] = (
    Question(
        "NumPy broadcasting",
        "`a = np.ones((3, 1))` and `b = np.ones(4)`. What is `(a + b).shape`?",
        ("(3, 1)", "(3, 4)", "(4, 3)", "an error: the shapes differ"),
        1,
        "Shapes are aligned from the right: (3, 1) against (4,) becomes (3, 1) against (1, 4), and each size "
        "1 is stretched: (3, 4).",
        "NumPy's guide to broadcasting (numpy.org, 'Broadcasting'), then this course's module 01, section 7.",
    ),
    Question(
        "matrix shapes",
        "`X` has shape (32, 10) and `W` has shape (10, 5). What is the shape of `X @ W`?",
        ("(10, 10)", "(32, 5)", "(5, 32)", "an error: the shapes differ"),
        1,
        "A (32, 10) matrix times a (10, 5) matrix: the inner sizes (10) must agree and the outer ones remain.",
        "a short refresher on matrix multiplication (any linear algebra text's first chapter), and NumPy's "
        "`matmul` documentation.",
    ),
    Question(
        "the chain rule",
        "`h = 3 * x` and `y = h ** 2`. At `x = 1`, what is dy/dx?",
        ("6", "9", "18", "2"),
        2,
        "dy/dh = 2h = 6 at h = 3, and dh/dx = 3; the chain rule multiplies them: 18.",
        "the chain rule for a composition of two functions (any calculus text), then this course's module "
        "01b, section 2, which applies it to a small network by hand.",
    ),
    Question(
        "a Python class",
        "```\nclass Counter:\n    def __init__(self, start):\n        self.n = start\n    def add(self):\n"
        "        self.n += 1\n        return self.n\n```\n`c = Counter(5); c.add(); c.add()` returns what "
        "the second time?",
        ("5", "6", "7", "an error: add takes no argument"),
        2,
        "`__init__` stores 5 in the instance; each `add()` changes that same instance's `n`: 6, then 7.",
        "the Python tutorial's chapter on classes (docs.python.org, 'Classes'): every nn.Module is one.",
    ),
    Question(
        "a list comprehension",
        "What is `[x * x for x in range(5) if x % 2 == 0]`?",
        ("[0, 4, 16]", "[0, 1, 4, 9, 16]", "[1, 9]", "[4, 16]"),
        0,
        "range(5) gives 0 to 4; the `if` keeps 0, 2 and 4; their squares are 0, 4 and 16.",
        "the Python tutorial's section on list comprehensions (docs.python.org, 'Data Structures').",
    ),
)


def answer(number: int, choice: int) -> str:
    """The feedback for choosing ``choice`` (0-based) in question ``number`` (1 to 5), as plain text."""
    if not 1 <= number <= len(QUESTIONS):
        raise ValueError(f"there are {len(QUESTIONS)} questions, numbered 1 to {len(QUESTIONS)}, not {number!r}")
    q = QUESTIONS[number - 1]
    if not 0 <= choice < len(q.choices):
        raise ValueError(f"question {number} has choices 0 to {len(q.choices) - 1}, not {choice!r}")
    if choice == q.correct:
        return f"Right. {q.why}"
    return f"Not quite: {q.choices[choice]} is not it. {q.why} Read first: {q.read}"


def prerequisites():
    """The five questions as widgets, each with its feedback as soon as an answer is picked (returns the box)."""
    import ipywidgets as widgets

    def markdown_code(text: str) -> str:
        parts = text.split("```")
        out = []
        for k, part in enumerate(parts):
            if k % 2:
                out.append(f"<pre>{html.escape(part.strip())}</pre>")
            else:
                out.append(html.escape(part).replace("`", ""))
        return "".join(out)

    rows = []
    for number, q in enumerate(QUESTIONS, start=1):
        options = widgets.RadioButtons(options=[(c, i) for i, c in enumerate(q.choices)], value=None,
                                       layout={"width": "max-content"})
        feedback = widgets.HTML()

        def show(change, number=number, feedback=feedback):
            if change["new"] is None:
                return
            text = answer(number, change["new"])
            colour = "#1a7f37" if text.startswith("Right") else "#cf222e"
            feedback.value = f"<span style='color:{colour}'>{html.escape(text)}</span>"

        options.observe(show, names="value")
        title = widgets.HTML(f"<b>{number}. {html.escape(q.topic)}</b><br>{markdown_code(q.prompt)}")
        rows.append(widgets.VBox([title, options, feedback]))
    return widgets.VBox(rows)


__all__ = ["QUESTIONS", "Question", "answer", "prerequisites"]
