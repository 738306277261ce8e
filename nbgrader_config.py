"""nbgrader configuration for the course (the repository root is the course directory)."""

import os
import sys

from nbgrader.converters import Autograde, GenerateAssignment

try:
    from autograder.cohort.preprocessors.check_metadata import with_fast_metadata_check
    from autograder.cohort.preprocessors.insert_starters import with_starter_code
    from autograder.cohort.worker.sqlalchemy_engines import share_engines
except ImportError as error:  # nbgrader would print a traceback and go on with its defaults (and another gradebook)
    sys.stderr.write(
        f"nbgrader_config.py: this course needs its package, and {sys.executable} cannot import it ({error}). "
        "Run nbgrader from the environment the course is installed in (on a JupyterHub: the hub's shared "
        "environment first on PATH; see the README, 'Grading on a JupyterHub'), or install it there: "
        "`python -m pip install .` from the course's checkout.\n")
    if os.path.basename(sys.argv[0] if sys.argv else "") in {"nbgrader", "jupyter-nbgrader"}:
        raise SystemExit(2) from None
    raise

c = get_config()  # noqa: F821 - provided by nbgrader


def _course_id_elsewhere() -> str:
    """The ``course_id`` another nbgrader config sets (``/etc/jupyter``, ``~/.jupyter``, ...), or "".

    Inside the course directory this file wins over those; a hub sets the id once, system-wide, where the
    students' nbgrader reads it too, so this file takes it from there rather than setting another.
    """
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config.loader import PyFileConfigLoader

    here = os.path.dirname(os.path.abspath(__file__))
    for folder in jupyter_config_path():
        if os.path.abspath(folder) == here or not os.path.isfile(os.path.join(folder, "nbgrader_config.py")):
            continue
        try:
            found = PyFileConfigLoader("nbgrader_config.py", path=folder).load_config()
        except Exception:  # noqa: BLE001 - an unreadable config elsewhere is nbgrader's to report
            continue
        value = found.get("CourseDirectory", {}).get("course_id")
        if value:
            return str(value)
    return ""


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
# (autograder.progress.is_grading; the cohort's sandboxed kernels get it from autograder.cohort.kernels.confinement).
if _is_autograde(sys.argv):
    os.environ["TORCH_LEDGER_GRADING"] = "1"
    # Each student's kernel is forked from a template that has imported torch and the checks: a new
    # process per notebook, seconds sooner (autograder/cohort/kernels/template.py).  TORCH_LEDGER_KERNELS=cold
    # starts a new interpreter per notebook instead, as nbgrader does by default.
    # Either way its client re-polls every 0.2 s, so no cell waits out its timeout on a reply that has
    # already arrived (autograder/cohort/kernels/client.py).
    # TORCH_LEDGER_KERNELS=stock leaves nbgrader's own kernel manager and gradebook connections (the benchmark's
    # baseline).
    kernels = os.environ.get("TORCH_LEDGER_KERNELS", "warm")
    if kernels == "cold":
        c.Execute.kernel_manager_class = "autograder.cohort.kernels.client.PromptKernelManager"
    elif kernels != "stock":
        c.Execute.kernel_manager_class = "autograder.cohort.kernels.managers.WarmKernelManager"
    if kernels != "stock":
        # nbgrader opens the gradebook about ten times a notebook: one SQLAlchemy engine for them all, so that
        # its queries are compiled once (autograder/cohort/worker/sqlalchemy_engines.py).
        share_engines()

HERE = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.root = HERE
# The id students fetch and submit under: the hub's (its /etc/jupyter/nbgrader_config.py) when it sets one.
c.CourseDirectory.course_id = _course_id_elsewhere() or "torch-ledger"
# Instructors edit solutions/; nbgrader writes the student copies into exercises/.
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
# The gradebook: SQLite by default; a cohort on JupyterHub sets a PostgreSQL URL, e.g.
#   COURSE_DB_URL=postgresql://grader@dbhost/torch_ledger
c.CourseDirectory.db_url = os.environ.get("COURSE_DB_URL", "sqlite:///" + os.path.join(HERE, "gradebook.db"))

# Per-cell timeout: a cold torch.compile on CPU takes ~20 s; leave room for a slow machine.
c.Execute.timeout = 180
c.Execute.interrupt_on_timeout = True

# The exchange (autograder/cohort/exchange.py), also for `nbgrader collect` and `nbgrader release_feedback` typed in
# this folder: only what a student's own account made is collected (never a link, a special file or a file another
# account made; lateness from the machine's clock), and one student's broken feedback folder never stops another's.
c.ExchangeFactory.collect = "autograder.cohort.exchange.OwnedCollect"
c.ExchangeFactory.release_feedback = "autograder.cohort.exchange.OwnedReleaseFeedback"

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
# Repair tasks are released holding broken starter code, not the stub (autograder/starters.py).
c.GenerateAssignment.preprocessors = with_starter_code(GenerateAssignment.class_traits()["preprocessors"].default())
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
# nbgrader's cell-metadata check, with its JSON schema checked once per process rather than at every cell
# (autograder/cohort/preprocessors/check_metadata.py): the same checks, a fifth of a second less per notebook.
for _steps in ("sanitize_preprocessors", "autograde_preprocessors"):
    setattr(c.Autograde, _steps, with_fast_metadata_check(Autograde.class_traits()[_steps].default()))
# nbconvert checks the whole notebook against nbformat's schema after every autograde step (twelve a notebook);
# once, after the last step of each pass, rejects the same invalid notebook.
c.Exporter.optimistic_validation = True
