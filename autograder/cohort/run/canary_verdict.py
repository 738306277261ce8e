"""The coordinator's canary verdict: what each canary copy must do, learnt from the calibration run of the
assignment's own solution, and each student's observations judged against it
(:mod:`autograder.cohort.worker.canary` builds the cells and reads what they did)."""

from __future__ import annotations

from ..records import CanaryVerdict


def expectations(reference: dict[str, str]) -> dict[str, str]:
    """What each canary copy must do, learnt from the reference solution's own canary run.

    A check that reports the stand-in's error without its message can only be required to
    fail with ``CheckFailed``; one whose copy passed even for the reference checks nothing
    the canary can use, and is left out.
    """
    return {name: obs for name, obs in reference.items() if name != "setup" and obs != "passed"}


def _acceptable(observed: str, expected: str) -> bool:
    if expected == "checkfailed":
        return observed in ("nonce", "checkfailed")
    return observed == expected


def verdict(observed: dict[str, str], expected: dict[str, str] | None = None) -> CanaryVerdict:
    """Judge a notebook's canary observations against the expectations (default: every copy shows the nonce)."""
    tests = {k: v for k, v in observed.items() if k != "setup"}
    if not observed or all(v == "not run" for v in observed.values()):
        return CanaryVerdict("not run", "the kernel ended before the canary cells ran", observed)
    if expected is None:
        expected = {k: "nonce" for k in tests}
    problems: list[str] = []
    if observed.get("setup", "ok") != "ok":
        problems.append(f"the canary set-up cell failed ({observed['setup']})")
    for test_id, want in expected.items():
        got = tests.get(test_id, "not run")
        if _acceptable(got, want):
            continue
        if got == "passed":
            problems.append(f"a copy of {test_id} passed although the function it checks had been replaced "
                            "by a stand-in that always raises")
        else:
            problems.append(f"a copy of {test_id} did not fail the way the check fails ({got})")
    if problems:
        more = f"; and {len(problems) - 2} more" if len(problems) > 2 else ""
        return CanaryVerdict("compromised", "; ".join(problems[:2]) + more, observed)
    return CanaryVerdict("ok", "every test cell ran as written", observed)
