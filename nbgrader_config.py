"""nbgrader configuration for the course (the repository root is the course directory)."""

import os
import sys

from nbgrader.converters import GenerateAssignment

from autograder.cohort.starter import with_starter_code

c = get_config()  # noqa: F821 - provided by nbgrader


def _is_autograde(argv) -> bool:
    """This process is `nbgrader autograde` (`nbgrader ...`, `jupyter nbgrader ...` or `python -m nbgrader ...`).

    JupyterLab's nbgrader extension loads this file too: its kernels (the learners') must not inherit the flag.
    """
    if not argv:
        return False
    program = os.path.basename(argv[0])
    program = program[:-4] if program.endswith(".exe") else program
    via_module = program == "__main__.py" and os.path.basename(os.path.dirname(argv[0])) == "nbgrader"
    return (program in {"nbgrader", "jupyter-nbgrader"} or via_module) and "autograde" in argv[1:]


# The kernels of a graded run inherit this: hints show nothing and progress records nothing
# (autograder.progress.is_grading; the cohort's sandboxed kernels get it from autograder.cohort.sandbox).
if _is_autograde(sys.argv):
    os.environ["TORCH_LEDGER_GRADING"] = "1"
    # Each student's kernel is forked from a template that has imported torch and the checks: a new
    # process per notebook, seconds sooner (autograder/cohort/warm.py).  TORCH_LEDGER_KERNELS=cold
    # starts a new interpreter per notebook instead, as nbgrader does by default.
    # Either way its client re-polls every 0.2 s, so no cell waits out its timeout on a reply that has
    # already arrived (autograder/cohort/client.py).
    if os.environ.get("TORCH_LEDGER_KERNELS", "warm") != "cold":
        c.Execute.kernel_manager_class = "autograder.cohort.warm.WarmKernelManager"
    else:
        c.Execute.kernel_manager_class = "autograder.cohort.client.PromptKernelManager"

HERE = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.root = HERE
c.CourseDirectory.course_id = "torch-ledger"
# Instructors edit solutions/; nbgrader writes the student copies into exercises/.
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
# The gradebook: SQLite by default; a cohort on JupyterHub sets a PostgreSQL URL, e.g.
#   COURSE_DB_URL=postgresql://grader@dbhost/torch_ledger
c.CourseDirectory.db_url = os.environ.get("COURSE_DB_URL", "sqlite:///" + os.path.join(HERE, "gradebook.db"))

# Per-cell timeout: a cold torch.compile on CPU takes ~20 s; leave room for a slow machine.
c.Execute.timeout = 180
c.Execute.interrupt_on_timeout = True

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
# Repair tasks are released holding broken starter code, not the stub (autograder/starters.py).
c.GenerateAssignment.preprocessors = with_starter_code(GenerateAssignment.class_traits()["preprocessors"].default())
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
