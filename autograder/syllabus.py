"""The course's table of contents: modules in order, their titles and graded functions.

One place that the start page, the progress tracker and the tests read.
"""

from __future__ import annotations

from dataclasses import dataclass

# Where the course is published (the Colab set-up cells, the badges and check.solution read it there).
from .published import BRANCH, REPOSITORY, binder_url, colab_url  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class Module:
    id: str
    title: str
    functions: tuple[str, ...]
    colab_packages: tuple[str, ...] = ()  # what Colab lacks for this module (beyond the course package)
    parts: int = 1  # lessons of one sitting: a module whose lesson is longer comes in parts

    @property
    def number(self) -> str:
        """The module's number as learners see it: ``01``, ``01b``, ``02``."""
        return self.id.split("-", 1)[0]

    @property
    def lesson(self) -> str:
        return f"course/{self.id}.ipynb"

    @property
    def lessons(self) -> tuple[str, ...]:
        """Every lesson notebook of the module, in reading order: the first keeps the module's name, the
        others add ``-part2``, ``-part3``."""
        return (self.lesson,) + tuple(f"course/{self.id}-part{k}.ipynb" for k in range(2, self.parts + 1))

    @property
    def exercise_minutes(self) -> int:
        """The exercise's sitting, as its first cell states it (``*About 60 minutes.*``): the one source the start
        page repeats."""
        minutes, stated = lesson_minutes(self.exercise)
        if not stated:
            raise ValueError(f"{self.exercise}: its first cell states no time (*About N minutes.*)")
        return minutes

    @property
    def exercise(self) -> str:
        return f"exercises/{self.id}/{self.id}.ipynb"

    @property
    def checks(self) -> str:
        number, name = self.id.split("-", 1)
        return f"m{number}_{name.replace('-', '_')}"


MODULES: tuple[Module, ...] = (
    Module("01-tensors", "Shapes are a contract",
           ("make_blobs", "standardize", "pairwise_sq_dists", "align_targets")),
    Module("01b-by-hand", "The network you traced by hand, three ways",
           ("manual_gradients", "bce_with_logits", "sgd_momentum_step")),
    Module("02-autograd-ledger", "What is recorded, and when to stop recording",
           ("grad_of", "numerical_grad", "grad_report", "leaves_of", "stable_softmax")),
    Module("03-nn-module", "Who owns the parameters",
           ("MLP", "plan_mlp", "count_parameters", "freeze", "untrained_parameters")),
    Module("04-five-line-step", "The order is not arbitrary",
           ("train_step", "train_epoch", "accumulate_step", "overfit_one_batch", "predict_trace", "trace_batch",
            "repair_train_epoch"), parts=2),
    Module("05-train-vs-eval", "Two switches, two jobs",
           ("evaluate", "accuracy", "predict_proba", "fit", "repair_evaluate")),
    Module("06-failure-modes", "Failures that do not raise",
           ("make_loaders", "lr_sweep", "pick_lr", "overfit_diagnosis", "health_check", "repair_make_loaders"),
           parts=2),
    Module("07-eager-compile-export", "Three modes, three purposes",
           ("time_it", "compile_model", "export_program", "export_onnx", "time_split"),
           colab_packages=("onnx", "onnxscript", "onnxruntime"), parts=2),
    Module("08-reproducible-training", "Same run, same numbers (capstone)",
           ("seed_everything", "save_checkpoint", "load_checkpoint", "repair_load_checkpoint"), parts=2),
    Module("09-debug-a-real-run", "The run that will not improve (capstone on real data)",
           ("DigitsDataset", "fit_normalizer", "DigitCNN", "train_epoch_ce", "predict_digits", "StepLedger",
            "repair_run"), parts=2),
)


def module(module_id: str) -> Module:
    for m in MODULES:
        if m.id == module_id:
            return m
    raise KeyError(f"no module {module_id!r}; the course has {[m.id for m in MODULES]}")


def module_of_checks(checks_module: str) -> Module | None:
    """The module whose checks live in ``autograder.checks.<checks_module>``."""
    short = checks_module.rsplit(".", 1)[-1]
    return next((m for m in MODULES if m.checks == short), None)


COLAB_MARKER = "# Colab set-up"


def colab_setup_source(packages: tuple[str, ...] = ()) -> str:
    """The first code cell of every notebook: does nothing outside Colab."""
    extra = "".join(f', "{p}"' for p in packages)
    return (
        f"{COLAB_MARKER}: on Google Colab, install the course package (Colab's torch is kept).\n"
        "# Everywhere else this cell does nothing.\n"
        "import subprocess\n"
        "import sys\n"
        "\n"
        'if "google.colab" in sys.modules:\n'
        "    subprocess.run([sys.executable, \"-m\", \"pip\", \"install\", \"-q\", \"--no-deps\",\n"
        f"                    \"git+https://github.com/{REPOSITORY}@{BRANCH}\"], check=True)\n"
        + (f"    subprocess.run([sys.executable, \"-m\", \"pip\", \"install\", \"-q\"{extra}], check=True)\n"
           if packages else "")
    )


WHATS_NEXT_MARKER = "## What's next"


def whats_next_source(module_id: str) -> str:
    """The last cell of every exercise: where to go next, with a link that works in JupyterLab (relative
    to the exercise's folder) and one that works on Colab (the published repository)."""
    index = [m.id for m in MODULES].index(module_id)
    here = MODULES[index]
    lines = [WHATS_NEXT_MARKER, "",
             f"You have finished the exercise of module {here.number}, *{here.title}*. Run every check cell once "
             "more after a restart (Kernel → Restart and Run All): that is how it will be graded, with other "
             "sizes, seeds and devices. The start page shows your progress "
             f"([in JupyterLab](../../course/00-start.ipynb) · [on Colab]({colab_url('course/00-start.ipynb')}))."]
    if index + 1 < len(MODULES):
        nxt = MODULES[index + 1]
        lines += ["", f"**Next: module {nxt.number}, *{nxt.title}*.** Start with its lesson "
                      f"([in JupyterLab](../../{nxt.lesson}) · [on Colab]({colab_url(nxt.lesson)})), then its "
                      f"exercise ([in JupyterLab](../../{nxt.exercise}) · [on Colab]({colab_url(nxt.exercise)}))."]
    else:
        lines += ["", "This was the last module. Take the habits with you: read a run through its owners, overfit "
                      "one batch before training for real, and check every claim of \"same\" or \"faster\" with a "
                      "measurement."]
    return "\n".join(lines)


def lesson_minutes(path: str, root=None) -> tuple[int, bool]:
    """A notebook's sitting in minutes, and whether the notebook states it (``*About 50 minutes.*`` in its first
    cell); otherwise an estimate from its size: prose at 150 words a minute, six seconds a line of code."""
    import json
    import re
    from pathlib import Path

    root = Path(root) if root is not None else Path(__file__).resolve().parents[1]
    cells = json.loads((root / path).read_text())["cells"]
    text = lambda c: "".join(c["source"]) if isinstance(c["source"], list) else c["source"]  # noqa: E731
    stated = re.search(r"About (\d+) minutes", text(cells[0])) if cells else None
    if stated:
        return int(stated.group(1)), True
    words = sum(sum(1 for t in text(c).split() if re.search(r"[A-Za-z0-9]", t)) for c in cells
                if c["cell_type"] == "markdown")
    lines = sum(1 for c in cells if c["cell_type"] == "code" for line in text(c).splitlines() if line.strip())
    return round(words / 150 + lines / 10), False


#: How long an exercise takes the course's learner, from its work: a fixed part (reading the exercise, the set-up, the
#: restart and run at the end), each graded function to write, each line of the reference answers of those
#: functions (a quarter of a minute a line: to write, run and correct) and each repair task.  Calibrated on a
#: teacher's estimates for the target learner (01b 60-80 minutes, 04 90-120 with the five functions and 59
#: reference lines it had then, 06 100-130, 09 100-140): among round weights that put every estimate inside its
#: range, the closest to their midpoints but one whose repair weighs more than five minutes. It gives 67.5,
#: 104.75, 107.75 and 121 minutes for those four.
EXERCISE_MINUTES_MODEL = {"fixed": 30, "per_function": 10, "per_line": 0.25, "per_repair": 10}


def exercise_work(module_id: str, root=None) -> dict:
    """What an exercise asks, read from its solution notebook: the graded functions to write (repairs apart), the
    lines of their reference answers (between the solution markers, comments and blank lines left out) and the
    repair tasks."""
    import json
    from pathlib import Path

    root = Path(root) if root is not None else Path(__file__).resolve().parents[1]
    from .cells import answer_cells

    nb = json.loads((root / "solutions" / module_id / f"{module_id}.ipynb").read_text())
    functions = repairs = lines = 0
    for name, cell in answer_cells(nb).items():
        if name.startswith("repair_"):
            repairs += 1
            continue
        functions += 1
        inside = False
        for line in "".join(cell["source"]).splitlines():
            text = line.strip()
            if text.startswith("### BEGIN SOLUTION") or text.startswith("### END SOLUTION"):
                inside = text.startswith("### BEGIN")
            elif inside and text and not text.startswith("#"):
                lines += 1
    return {"functions": functions, "lines": lines, "repairs": repairs}


def modelled_exercise_minutes(module_id: str, root=None) -> int:
    """The exercise's time by :data:`EXERCISE_MINUTES_MODEL`, to the nearest five minutes: the time its first cell
    states (a test holds them equal)."""
    work, model = exercise_work(module_id, root), EXERCISE_MINUTES_MODEL
    minutes = (model["fixed"] + model["per_function"] * work["functions"] + model["per_line"] * work["lines"]
               + model["per_repair"] * work["repairs"])
    return int(5 * round(minutes / 5))


def start_table() -> str:
    """The start page's table of modules: every lesson and exercise with a link for JupyterLab (relative to
    ``course/``) and one for Colab (relative links do not resolve there)."""
    rows = ["| # | lesson | minutes | exercise | minutes |", "|---|---|---|---|---|"]
    total = 0
    for m in MODULES:
        lesson = f"[{m.title}]({m.id}.ipynb) · [on Colab]({colab_url(m.lesson)})"
        for k, path in enumerate(m.lessons[1:], start=2):
            name = path.rsplit("/", 1)[-1]
            lesson += f"; [part {k}]({name}) · [on Colab]({colab_url(path)})"
        times = [lesson_minutes(path) for path in m.lessons]
        minutes = " + ".join(f"{n}" if stated else f"≈{n}" for n, stated in times)
        total += sum(n for n, _ in times) + m.exercise_minutes
        rows.append(f"| {m.number} | {lesson} | {minutes} | [exercise](../{m.exercise}) · "
                    f"[on Colab]({colab_url(m.exercise)}) | {m.exercise_minutes} |")
    rows.append(f"| | **the whole course** | | | **about {round(total / 60)} hours** |")
    return "\n".join(rows)
