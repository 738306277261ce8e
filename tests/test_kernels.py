"""The confinement of a grading kernel is stated once (``kernels/confinement.py``) and rendered twice: as the
bubblewrap command line of a cold kernel and as the request a warm template's child applies to itself.  These
tests read the two renderings back and hold them against each other; ``test_warm.py`` and ``test_cohort.py``
run real kernels under both."""

from __future__ import annotations

import os

import pytest

from autograder.cohort.kernels import bwrap
from autograder.cohort.kernels.box import prepare_box
from autograder.cohort.kernels.confinement import HOME, NOBODY, RLIMITS, Confinement, Limits, is_root

FLAGS = {"--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
         "--unshare-user", "--die-with-parent", "--clearenv", "--proc", "--dev", "--tmpfs", "--dir", "--chdir",
         "--hostname", "--uid", "--gid", "--perms", "--size", "--cap-add"}


def _read_bwrap(argv: list[str]) -> dict:
    """What a bubblewrap command line does, as the fields of a confinement request."""
    end = argv.index("--")
    args, after = argv[1:end], argv[end + 1:]
    seen = {"writable": {}, "binds": [], "ro_binds": [], "env": {}, "namespaces": set(), "uid": None}
    i, size = 0, None
    while i < len(args):
        flag = args[i]
        if flag.startswith("--unshare-"):
            seen["namespaces"].add(flag)
        if flag == "--size":
            size, i = int(args[i + 1]), i + 2
            continue
        if flag == "--tmpfs":
            seen["writable"][args[i + 1]] = size
        if flag in ("--bind", "--ro-bind"):
            seen["binds" if flag == "--bind" else "ro_binds"].append((args[i + 1], args[i + 2]))
            i += 3
            continue
        if flag == "--setenv":
            seen["env"][args[i + 1]] = args[i + 2]
            i += 3
            continue
        if flag == "--chdir":
            seen["cwd"] = args[i + 1]
        if flag == "--uid":
            seen["uid"] = int(args[i + 1])
        if flag == "--remount-ro":
            seen.setdefault("read_only", []).append(args[i + 1])
        i += 2 if flag in ("--tmpfs", "--dir", "--chdir", "--hostname", "--uid", "--gid", "--perms", "--cap-add",
                           "--proc", "--dev", "--symlink", "--remount-ro") else 1
        if flag == "--symlink":
            i += 1
    for word in after:
        if word.startswith("--reuid="):
            seen["uid"] = int(word.split("=", 1)[1])
    prlimit = {name: int(value) for word in after if word.startswith("--") and "=" in word
               for name, value in [word[2:].split("=", 1)] if name in bwrap.PRLIMIT.values()}
    seen["rlimits"] = {key: prlimit[spelt] for key, spelt in bwrap.PRLIMIT.items() if spelt in prlimit}
    return seen


@pytest.fixture
def confinement(tmp_path, monkeypatch):
    monkeypatch.setenv(bwrap.BWRAP_ENV, "/bin/true")  # the command line is read, never run
    box = prepare_box(tmp_path / "box", 61016)
    (box / "home" / "data.csv").write_text("1,2\n")
    (box / "home" / "assets").mkdir()
    return Confinement(box, 61016, Limits(memory_mb=1536, processes=40, cpu_seconds=90, file_mb=7, disk_mb=33,
                                          open_files=300))


def test_a_cold_and_a_warm_kernel_are_confined_alike(confinement, tmp_path):
    cold = _read_bwrap(bwrap.kernel_argv(confinement))
    warm = confinement.request(tmp_path)
    assert cold["writable"] == warm["writable"] == {"/tmp": 33 * 2**20, HOME: 33 * 2**20, "/dev/shm": 33 * 2**20}
    assert cold["read_only"] == ["/dev"]  # /dev's own tmpfs (the kernel's, without root) takes no writes
    assert [b for b in cold["ro_binds"] if b[1].startswith(HOME + "/")] == [tuple(s) for s in warm["staged"]]
    assert {inside for _, inside in warm["staged"]} == {f"{HOME}/data.csv", f"{HOME}/assets"}
    assert cold["binds"] == [(warm["shared"], warm["shared"])]  # the one host path it may write
    assert cold["rlimits"] == warm["rlimits"] and set(warm["rlimits"]) == set(RLIMITS)
    assert warm["rlimits"]["AS"] == 1536 * 2**20 and warm["rlimits"]["CORE"] == 0
    assert cold["env"] == warm["env"] and cold["cwd"] == warm["cwd"] == HOME
    assert cold["uid"] == warm["uid"] == (61016 if is_root() else NOBODY)
    assert warm["userns"] == (not is_root())


def test_a_warm_template_is_sandboxed_in_the_namespaces_and_system_of_a_cold_kernel(confinement, tmp_path):
    cold = _read_bwrap(bwrap.kernel_argv(confinement))
    template = _read_bwrap(bwrap.template_argv(tmp_path, ["python", "-m", "x"], unprivileged=not is_root()))
    assert template["namespaces"] == cold["namespaces"]
    system = [b for b in cold["ro_binds"] if not b[1].startswith(HOME + "/")]
    assert [b for b in template["ro_binds"]] == system and system
    assert template["env"] == cold["env"]
    assert template["binds"] == [(str(tmp_path), str(tmp_path))]  # the boxes' folder, where each child's box is
    assert template["read_only"] == ["/dev"] and template["writable"]["/dev/shm"] == 2**20  # each child mounts its own


def test_rlimits_are_named_as_the_resource_module_and_prlimit_name_them():
    import resource

    assert all(hasattr(resource, f"RLIMIT_{name}") for name in RLIMITS)
    assert set(bwrap.PRLIMIT) == set(RLIMITS)
    assert os.path.basename(bwrap.limit_args({"AS": 1})[0]) == "prlimit"
    assert bwrap.limit_args({"AS": 1})[1] == "--as=1"


@pytest.mark.skipif(not is_root(), reason="runs a process as another uid")
def test_a_leftover_that_hides_its_proc_folder_is_still_found_by_its_uid():
    """The grader drains a sandbox uid's leftovers before the next notebook (their processes would count against
    its limit): a process that makes itself non-dumpable, so that its /proc files turn to root, is still found,
    and one of another uid is not."""
    import ctypes
    import signal
    import time

    from autograder.cohort.kernels.processes import processes_of

    uid = 61_999  # no sandbox of this run uses it
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the leftover
        try:
            os.close(read)
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
            os.write(write, b"x")
            time.sleep(30)
        finally:
            os._exit(0)
    try:
        os.close(write)
        assert os.read(read, 1) == b"x"
        assert os.stat(f"/proc/{pid}/status").st_uid == 0, "its files' owner hides it"
        assert processes_of(uid) == [pid] and pid not in processes_of(uid + 1)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(read)
