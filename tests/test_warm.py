"""Warm kernels: what one student's kernel does never reaches the next one forked from the same template.

One grading run, one worker (so every kernel comes from one template, one after the other):
probe students (the solution plus a cell that reports the interpreter's state) alternate with
students that change everything a kernel can change.  Each probe must be graded, and report, as
the same probe graded alone in a cold kernel (a new interpreter) does.
"""

import copy
import json
import time
from pathlib import Path

import pytest

from autograder.cohort.course import Course
from autograder.cohort.kernels import bwrap
from autograder.cohort.kernels import template as warm
from autograder.cohort.kernels.confinement import Limits
from autograder.cohort.kernels.managers import WarmKernelManager
from autograder.cohort.run.grade import GradeOptions, grade
from autograder.dev import fixture_courses, nbtools

MODULE = "01-tensors"
LIMITS = Limits(notebook_seconds=120)

PROBE = r'''
import builtins, json, os, random, sys, threading
import numpy as np
import torch
import autograder.core

def _mine():
    n = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit() and pid != str(os.getpid()):
            try:
                with open(f"/proc/{pid}/status") as f:
                    n += any(l.startswith("Uid:") and int(l.split()[1]) == os.getuid() for l in f)
            except OSError:
                pass
    return n

STATE = {
    "dtype": str(torch.get_default_dtype()), "threads": torch.get_num_threads(),
    "deterministic": torch.are_deterministic_algorithms_enabled(), "cudnn": torch.backends.cudnn.deterministic,
    "initial_seed": torch.initial_seed(), "torch_rand": torch.rand(3).tolist(),
    "add": torch.add(torch.ones(2), 1.0).tolist(), "sum": torch.ones(3).sum().item(),
    "builtins": hasattr(builtins, "LEAKED"), "core": getattr(autograder.core, "LEAKED", None),
    "fail": autograder.core.fail.__module__, "env": os.environ.get("LEAKED"),
    "home": sorted(os.listdir(os.path.expanduser("~"))), "staged": [open("notes.txt").read(), os.access("notes.txt", os.W_OK)], "tmp": sorted(os.listdir("/tmp")),
    "py_threads": threading.active_count(), "my_processes": _mine(), "cwd": os.getcwd(),
    "hist": [str(get_ipython().history_manager.hist_file), get_ipython().history_manager.enabled, sys.modules.get("sqlite3") is not None],
    "random": random.random(), "numpy_random": float(np.random.rand()),
}
print("PROBE " + json.dumps(STATE))
'''

LEAK_STATE = r'''
import builtins, os, random, subprocess, sys, threading, time
import numpy as np
import torch
import autograder.core
builtins.LEAKED = True
autograder.core.LEAKED = "patched"
autograder.core.fail = lambda *a, **k: None
torch.set_default_dtype(torch.float64)
torch.set_num_threads(2)
torch.use_deterministic_algorithms(True)
torch.backends.cudnn.deterministic = True
torch.manual_seed(1234); random.seed(1); np.random.seed(1)
_add = torch.add
torch.add = lambda *a, **k: _add(*a, **k) + 1
torch.Tensor.sum = lambda self, *a, **k: torch.tensor(42.0)
os.environ["LEAKED"] = "1"
for place in (os.path.expanduser("~/leaked.txt"), "/tmp/leaked.txt"):
    with open(place, "w") as f:
        f.write("left behind")
threading.Thread(target=time.sleep, args=(600,)).start()
subprocess.Popen([sys.executable, "-c", "import time\nwhile True:\n open('/tmp/late.txt', 'a').write('x')\n time.sleep(0.05)"],
                 start_new_session=True)
'''

LEAK_KILL = r'''
import os, signal
for target in (os.getppid(), 1):
    try:
        os.kill(target, signal.SIGKILL)  # the template, the sandbox's init: not this uid's to signal
    except OSError as error:
        print("refused:", type(error).__name__)
os.kill(os.getpid(), signal.SIGKILL)
'''


def _with_cell(nb, source: str, at: int | None = None):
    nb = copy.deepcopy(nb)
    cell = nbtools.code(source)
    nb.cells.insert(len(nb.cells) if at is None else at, cell)
    return nb


def _probe_of(course: Course, student: str) -> dict:
    nb = nbtools.read(fixture_courses.autograded_notebook(course.root, MODULE, student))
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text = out.get("text", "")
            if "PROBE " in text:
                return json.loads(text.split("PROBE ", 1)[1].splitlines()[0])
    raise AssertionError(f"{student}: no probe output")


def _first_code_index(nb) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code") + 1


@pytest.fixture(scope="module")
def runs(tmp_path_factory, root):
    if bwrap.probe() is not None or not warm.Template.supported(True):
        pytest.skip("warm sandboxed kernels need bubblewrap")
    solution = nbtools.read(root / "solutions" / MODULE / f"{MODULE}.ipynb")
    probe = _with_cell(solution, PROBE)
    after_imports = _first_code_index(solution)
    students = {"a-probe": probe, "b-leak-state": _with_cell(probe, LEAK_STATE, after_imports), "c-probe": probe,
                "d-leak-kill": _with_cell(solution, LEAK_KILL, after_imports), "e-probe": probe}
    base = tmp_path_factory.mktemp("warm")
    built = {}
    for name, who in (("shared", students), ("alone", {"a-probe": probe})):
        course = fixture_courses.make_course(base / name, [MODULE], root)
        fixture_courses.release(course, MODULE)
        for student, nb in who.items():
            folder = fixture_courses.submit(course, MODULE, student, nb).parent
            (folder / "notes.txt").write_text("my notes")  # a student's other file: read-only in the kernel's home
        built[name] = Course.open(course)
    records = {
        "shared": grade(built["shared"], MODULE, GradeOptions(workers=1, sandbox="bwrap", kernels="warm",
                                                              limits=LIMITS, progress=False)).as_dict(),
        "alone": grade(built["alone"], MODULE, GradeOptions(workers=1, sandbox="bwrap", kernels="cold",
                                                            limits=LIMITS, progress=False)).as_dict(),
    }
    return built, records


PROBES = ("a-probe", "c-probe", "e-probe")


def _same_run(value):
    """A probe's value with the name of the run's private scratch folder (random per run: the folders down to a
    kernel's socket folder exist in its /tmp) written as one name."""
    from autograder.cohort.run.dask_cluster import SCRATCH_PREFIX

    if isinstance(value, list):
        return [SCRATCH_PREFIX + "*" if isinstance(v, str) and v.startswith(SCRATCH_PREFIX) else v for v in value]
    return value


@pytest.mark.slow
def test_every_kernel_was_forked_from_the_template(runs):
    _, records = runs
    assert records["shared"]["sandbox"]["kernels"] == "warm"
    for student, entry in records["shared"]["students"].items():
        assert not [n for n in entry["notes"] if "warm kernels unavailable" in n["text"]], (student, entry["notes"])


@pytest.mark.slow
def test_a_probe_after_any_student_is_graded_as_alone(runs):
    built, records = runs
    alone = fixture_courses.scores(built["alone"].root, MODULE)["a-probe"]
    shared = fixture_courses.scores(built["shared"].root, MODULE)
    lone = records["alone"]["students"]["a-probe"]
    for student in PROBES:
        assert shared[student] == alone, student
        entry = records["shared"]["students"][student]
        assert entry["tests"] == lone["tests"], student
        assert (entry["notes"], entry["flags"]) == (lone["notes"], lone["flags"]), student


@pytest.mark.slow
def test_a_probe_sees_a_fresh_interpreter(runs):
    built, _ = runs
    alone = _probe_of(built["alone"], "a-probe")
    seen = {student: _probe_of(built["shared"], student) for student in PROBES}
    for student, state in seen.items():
        for key in alone:
            if key not in ("random", "numpy_random"):
                assert _same_run(state[key]) == _same_run(alone[key]), (student, key, state[key], alone[key])
    # Python's and NumPy's global generators are seeded afresh for each kernel, as in a new interpreter.
    assert len({s["random"] for s in seen.values()}) == len(seen)
    assert len({s["numpy_random"] for s in seen.values()}) == len(seen)
    assert alone["my_processes"] == 0 and alone["home"] == ["notes.txt"]
    assert alone["staged"] == ["my notes", False]


@pytest.mark.slow
def test_the_leaking_students_were_graded_not_crashed(runs):
    _, records = runs
    state = records["shared"]["students"]["b-leak-state"]
    assert state["status"] == "graded", state
    killed = records["shared"]["students"]["d-leak-kill"]
    assert killed["status"] == "failed" and "SIGKILL" in killed["reason"], killed


# -- the template on its own (fast) ---------------------------------------------------------------


@pytest.mark.parametrize("cmd, expected", [
    (["/usr/bin/bwrap", "--x", "--", warm.sys.executable, "-m", "ipykernel_launcher", "-f", "k.json"], ["-f", "k.json"]),
    ([warm.sys.executable, "-m", "ipykernel_launcher", "-f", "k.json", "--HistoryManager.hist_file=:memory:"],
     ["-f", "k.json", "--HistoryManager.hist_file=:memory:"]),
    (["/some/other/python", "-m", "ipykernel_launcher", "-f", "k.json"], None),
    ([warm.sys.executable, "-m", "other_kernel", "-f", "k.json"], None),
])
def test_only_this_interpreters_ipykernel_can_be_forked(cmd, expected):
    assert warm.kernel_arguments(cmd) == expected


def test_a_template_preloads_its_own_assignments_checks_and_only_the_libraries_it_names(root):
    for module_id in ("01-tensors", "07-eager-compile-export", "09-debug-a-real-run"):
        nb = nbtools.read(root / "solutions" / module_id / f"{module_id}.ipynb")
        locked = [c.source for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("locked")]
        names = warm.preload_for(locked)
        checks = [n for n in names if n.startswith("autograder.checks.")]
        assert len(checks) == 1 and checks[0].split(".")[-1][1:].split("_")[0] == module_id.split("-")[0], (module_id, names)
        assert set(warm.PRELOAD) <= set(names)
        assert ("torch._dynamo" in names) == (module_id == "07-eager-compile-export"), (module_id, names)
    named = "import autograder.checks.m02_autograd\nfrom autograder.checks import (m03_nn_module,\n m04_five_line_step as c, nope)"
    assert warm.checks_imported([named]) == ["m02_autograd", "m03_nn_module", "m04_five_line_step"]
    assert "sklearn.datasets" in warm.preload_for(["from sklearn.datasets import load_digits"])
    assert "matplotlib.pyplot" in warm.preload_for(["import matplotlib.pyplot as plt"])
    assert warm.preload_for([]) == warm.PRELOAD


@pytest.mark.slow
def test_a_kernel_that_cannot_set_itself_up_is_reported_not_started(tmp_path):
    template = warm.Template(tmp_path / "t", preload=("json",)).start()
    try:
        assert template.info["threads"] == 1 and template.alive()
        with pytest.raises(warm.TemplateError, match="could not set itself up"):
            template.spawn(["-f", str(tmp_path / "k.json")], cwd=str(tmp_path / "missing"), log=tmp_path / "k.log")
        assert template.alive()  # one failed child leaves the template serving
    finally:
        template.close()
    assert not template.alive()


RELOAD_PROBE = r'''
import os, tempfile, torch
from pathlib import Path
from autograder.checks import _reload
_reload.RELOADER.start()  # no-op where the helper was forked before the kernel started
helper = _reload.RELOADER.process
tmp = Path(tempfile.mkdtemp())
program = torch.export.export(torch.nn.Linear(2, 3), (torch.ones(4, 2),), dynamic_shapes=({0: torch.export.Dim("b")},))
torch.export.save(program, tmp / "m.pt2")
torch.save([torch.ones(5, 2)], tmp / "in.pt")
code, err = _reload.RELOADER.reload(tmp / "m.pt2", tmp / "in.pt", tmp / "out.pt")
print(type(helper).__name__, os.getpgid(helper.pid) != os.getpgid(0), code, tuple(torch.load(tmp / "out.pt")[0].shape))
'''


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["warm", "cold"])
def test_a_kernel_with_a_reload_helper_ends_when_asked_not_when_killed(kind, tmp_path, monkeypatch):
    """Module 07's reload helper: forked before a warm kernel starts (from the template's imports) or started by
    a cold kernel, it reloads a program in a process of its own, and it is outside the kernel's process group:
    ipykernel's shutdown waits until its process group's children are gone, and one it never reaped held every
    07 kernel until the manager gave up and terminated it."""
    import asyncio

    from autograder.cohort.kernels.client import PromptKernelManager

    if kind == "warm":  # a template of this process's own that preloads the helper's module, as module 07's does
        monkeypatch.setattr(warm, "_SHARED", {})
        (tmp_path / "07.ipynb").write_text("import autograder.checks._reload")
    manager = (WarmKernelManager if kind == "warm" else PromptKernelManager)(kernel_name="python3")
    # A kernel that imported torch and torch.export spends ~1.3 s tearing its interpreter down after it replied,
    # more on a loaded machine than the default 2.5 s before SIGTERM.  A helper in the kernel's process group
    # kept ipykernel waiting ~29 s (its progressive waits for children), past this 10 s too.
    manager.shutdown_wait_time = 20.0

    async def run():
        await manager.start_kernel(cwd=str(tmp_path))
        kc = manager.client()
        kc.start_channels()
        outputs: list = []
        try:
            await kc.wait_for_ready(timeout=120)
            reply = await kc._async_execute_interactive(RELOAD_PROBE, output_hook=outputs.append, timeout=120)
        finally:
            kc.stop_channels()
            await manager.shutdown_kernel()  # a shutdown request, then a wait for the kernel to exit
        return reply["content"]["status"], "".join(m["content"].get("text", "") for m in outputs
                                                   if m["msg_type"] in ("stream", "error"))

    try:
        status, printed = asyncio.run(run())
    finally:
        if kind == "warm":
            for template in warm._SHARED.values():
                if isinstance(template, warm.Template):
                    template.close()
    assert status == "ok", printed
    assert printed.split() == ["_Forked" if kind == "warm" else "Popen", "True", "0", "(5,", "3)"], printed
    # jupyter_client's record of how the kernel ended: asked (and exited), or terminated after a timeout
    assert manager._shutdown_status.name == "ShutdownRequest", manager._shutdown_status


DETACH = r'''
import os, subprocess, sys
# a grandchild in a session of its own, its parent gone at once: nothing of the kernel's process tree holds it
subprocess.Popen([sys.executable, "-c", "import os, subprocess, sys, time; subprocess.Popen(['sleep', '600'], "
                  "start_new_session=True); os._exit(0)"]).wait()
print("detached")
'''


def test_an_unconfined_kernel_ends_what_its_notebook_started_however_it_detached(tmp_path):
    """Without the sandbox (``--sandbox off``, asked for by name) no pid namespace ends with the kernel: a process
    the notebook started in a session of its own, whose parent exited, is still ended when the kernel is."""
    import asyncio

    from autograder.cohort.kernels.box import prepare_box
    from autograder.cohort.kernels.managers import KERNEL_TAG, SandboxedKernelManager
    from autograder.cohort.kernels.processes import tagged

    manager = SandboxedKernelManager(kernel_name="python3", box=str(prepare_box(tmp_path / "box", 61017)),
                                     sandboxed=False)

    async def run():
        await manager.start_kernel()
        kc = manager.client()
        kc.start_channels()
        outputs: list = []
        try:
            await kc.wait_for_ready(timeout=120)
            await kc._async_execute_interactive(DETACH, output_hook=outputs.append, timeout=120)
            left = [pid for pid in tagged(KERNEL_TAG, manager._tag) if pid != manager.provisioner.process.pid]
        finally:
            kc.stop_channels()
            await manager.shutdown_kernel()
        return left, "".join(m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream")

    left, printed = asyncio.run(run())
    assert "detached" in printed and left, (printed, left)  # the sleeper ran, outside the kernel's tree
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in left) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not tagged(KERNEL_TAG, manager._tag), "a process the notebook started outlived its unconfined kernel"
