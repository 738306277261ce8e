"""What a learner sees: the course in JupyterLab, driven in headless Chromium.

A token-free JupyterLab serves a copy of course/, exercises/ and solutions/ from a
temporary folder (nothing in the repository is written), with the learner's progress
file in that folder too.  Each test opens a notebook, runs it the way a learner does
(Run > Run All Cells) and looks at what the page shows.  A screenshot of every step is
kept under artifacts/screenshots/.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

from autograder.outcome import RESULT_MIME
from conftest import ARTIFACTS, ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"  # the distribution's package; never a download
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
SHOTS = ARTIFACTS / "screenshots"
JUPYTER = Path(sys.executable).with_name("jupyter")

LESSON = "course/01-tensors.ipynb"  # its broadcasting calculator: two Dropdowns and an HTML readout
STEP_LESSON = "course/04-five-line-step.ipynb"  # ToggleButtons and an IntSlider driving an HTML readout
CAPSTONE = "course/09-debug-a-real-run-part2.ipynb"  # a SelectionSlider of learning rates redrawing the curves
FILLED = "exercise-01-filled.ipynb"  # module 01's solution notebook, as a learner who finished it has it
EXERCISE = "exercises/01-tensors/01-tensors.ipynb"  # the blank release
START = "course/00-start.ipynb"

SERVER_START_S = 90
KERNEL_S = 90  # a kernel starts and reports Idle
RUN_ALL_S = 180  # every cell of one notebook has run
VALIDATE_S = 180  # nbgrader runs the whole exercise in a kernel of its own

# JupyterLab settings for the test server: every cell stays in the page (no windowing, so
# outputs far down a notebook can be found), and no news or update pop-ups.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                         "checkForUpdates": False},
}

RUN_ALL_LABEL = re.compile(r"^Run All Cells$")  # Run menu; its command is runmenu:run-all
ACTIVE = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook in the current tab


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _api(base: str, path: str, method: str = "GET"):
    req = urllib.request.Request(f"{base}{path}", method=method)
    with urllib.request.urlopen(req, timeout=10) as resp:
        body = resp.read()
    return json.loads(body) if body else None


def _code_cells(path: Path) -> int:
    nb = nbformat.read(path, as_version=4)
    return sum(1 for c in nb.cells if c.cell_type == "code" and c.source.strip())


def _clear_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    if any(c.outputs or c.execution_count for c in code):
        for c in code:
            c.outputs, c.execution_count = [], None
        nbformat.write(nb, path)


class Lab:
    def __init__(self, base: str, root: Path, progress: Path, log: Path):
        self.base, self.root, self.progress, self.log = base, root, progress, log

    def log_tail(self, n: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-n:] if self.log.exists() else ""

    def shut_down_kernels(self) -> None:
        for kernel in _api(self.base, "/api/kernels") or []:
            try:
                _api(self.base, f"/api/kernels/{kernel['id']}", method="DELETE")
            except urllib.error.URLError:
                pass


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab")
    ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    for folder in ("course", "exercises", "solutions"):
        shutil.copytree(ROOT / folder, root / folder, ignore=ignore)
    shutil.copy(ROOT / "solutions/01-tensors/01-tensors.ipynb", root / FILLED)
    for path in root.rglob("*.ipynb"):  # start from clean notebooks, as a learner's fresh copy is
        _clear_outputs(path)

    state = tmp_path_factory.mktemp("lab-state")
    settings = state / "settings"
    for name, values in LAB_SETTINGS.items():
        plugin, file = name.rsplit("/", 1)
        (settings / plugin).mkdir(parents=True, exist_ok=True)
        (settings / plugin / file).write_text(json.dumps(values))

    progress = state / "progress.json"
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)  # the kernels use matplotlib's inline backend, as a learner's do
    env["TORCH_LEDGER_PROGRESS"] = str(progress)
    # Only the environment's own Jupyter set-up: a kernel spec or server config in the home
    # folder must not change what is tested.
    env["JUPYTER_RUNTIME_DIR"] = str(state / "runtime")
    env["JUPYTER_CONFIG_DIR"] = str(state / "config")
    env["JUPYTER_DATA_DIR"] = str(state / "data")
    env["PATH"] = f"{JUPYTER.parent}{os.pathsep}{env.get('PATH', '')}"

    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log = state / "server.log"
    cmd = [str(JUPYTER), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}", "--allow-root",
           "--IdentityProvider.token=", "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
           f"--ServerApp.root_dir={root}", f"--LabApp.user_settings_dir={settings}",
           f"--LabApp.workspaces_dir={state / 'workspaces'}"]
    with open(log, "wb") as out:
        server = subprocess.Popen(cmd, env=env, cwd=root, stdout=out, stderr=subprocess.STDOUT)
    lab = Lab(base, root, progress, log)
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if server.poll() is not None:
                pytest.fail(f"jupyter lab exited with {server.returncode}:\n{lab.log_tail()}")
            try:
                _api(base, "/api/status")
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    pytest.fail(f"jupyter lab did not answer on {base} within {SERVER_START_S} s:\n{lab.log_tail()}")
                time.sleep(0.5)
        yield lab
    finally:
        try:
            lab.shut_down_kernels()
        except (urllib.error.URLError, OSError):
            pass
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (the dev extra)")
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser, lab, request):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(30_000)
    page = context.new_page()
    failed_before = request.session.testsfailed
    try:
        yield page
    finally:
        if request.session.testsfailed > failed_before:  # keep what the page showed when it failed
            SHOTS.mkdir(parents=True, exist_ok=True)
            try:
                page.screenshot(path=str(SHOTS / f"FAILED-{request.node.name}.png"))
            except Exception:
                pass
        context.close()
        try:
            lab.shut_down_kernels()  # a kernel holds torch in memory; free it before the next test
        except (urllib.error.URLError, OSError):
            pass


def shot(page, name: str, target=None) -> Path:
    """Save a screenshot of the window, scrolled so that `target` (a locator) is in view."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    if target is not None:
        target.scroll_into_view_if_needed()
        page.wait_for_timeout(300)  # let the scroll settle before the picture
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def open_notebook(page, lab: Lab, path: str, workspace: str):
    """Open `path` in a fresh JupyterLab workspace; return once its kernel reports Idle."""
    page.goto(f"{lab.base}/lab/workspaces/{workspace}/tree/{path}")
    page.locator(f"{ACTIVE} .jp-Notebook").wait_for(state="visible", timeout=KERNEL_S * 1000)
    page.locator("#jp-main-statusbar >> text=Idle").wait_for(timeout=KERNEL_S * 1000)
    return page.locator(ACTIVE)


_PROMPTS = f"""() => [...document.querySelectorAll('{ACTIVE} .jp-CodeCell .jp-InputArea-prompt')]
                  .map(e => e.textContent.trim())"""


_ERRORS = f"""() => [...document.querySelectorAll(
                  "{ACTIVE} .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")]
                  .map(e => e.innerText).filter(t => t.includes('Traceback') || t.includes('Error'))"""


def run_all(page, lab: Lab, path: str) -> None:
    """Run > Run All Cells, then wait until every non-empty code cell has an execution count.

    An error stops Run All in JupyterLab; the wait ends then too, and the test fails naming it.
    """
    expected = _code_cells(lab.root / path)
    numbered = f"() => ({_PROMPTS})().filter(t => /\\[\\d+\\]/.test(t)).length"
    done = f"""() => {{
        const p = ({_PROMPTS})();
        if (p.some(t => t.includes('*'))) return false;
        return ({numbered})() >= {expected} || (({numbered})() > 0 && ({_ERRORS})().length > 0);
    }}"""
    started = f"() => ({_PROMPTS})().some(t => t.includes('*') || /\\[\\d+\\]/.test(t))"
    for _attempt in range(3):
        try:
            page.locator("#jp-menu-panel .lm-MenuBar-item", has_text="Run").first.click()
            page.locator(".lm-Menu-item", has=page.locator(".lm-Menu-itemLabel", has_text=RUN_ALL_LABEL)).click(
                timeout=10_000)
            page.wait_for_function(started, timeout=20_000)
            break
        except Exception:  # the menu did not open, or the run did not start: close it and try again
            page.keyboard.press("Escape")
    else:
        pytest.fail(f"Run All Cells did not start any cell of {path}")
    try:
        page.wait_for_function(done, timeout=RUN_ALL_S * 1000, polling=500)
    except Exception:
        pytest.fail(f"{path}: not every cell ran within {RUN_ALL_S} s; prompts {page.evaluate(_PROMPTS)}\n"
                    f"server log:\n{lab.log_tail(2000)}")
    errors = page.evaluate(_ERRORS)
    assert not errors, f"{path} shows an error:\n{errors[0][:3000]}"
    assert page.evaluate(numbered) >= expected, f"{path}: not every cell ran; prompts {page.evaluate(_PROMPTS)}"
    page.locator("#jp-main-statusbar >> text=Idle").wait_for(timeout=KERNEL_S * 1000)


def test_lesson_widget_and_figure(page, lab):
    notebook = open_notebook(page, lab, LESSON, "lesson")
    run_all(page, lab, LESSON)

    # The broadcasting calculator renders: two dropdowns and a readout that answers them.
    widget = notebook.locator(".widget-vbox").filter(has=page.locator(".widget-dropdown")).first
    widget.wait_for(state="visible", timeout=30_000)
    shape_a = widget.locator(".widget-dropdown select").first
    readout = widget.locator(".widget-html-content").first
    page.wait_for_function("el => el.textContent.includes('a + b has shape')", arg=readout.element_handle(),
                           timeout=30_000)
    before = readout.inner_text()
    assert "(8, 8)" in before, before
    shot(page, "01-lesson-widget", widget)

    # A learner picks other shapes from the dropdowns: the readout is redrawn by the kernel.
    # (JupyterLab keeps arrow keys for moving between cells, so a dropdown is used with the mouse.)
    shape_a.select_option(label="(8, 2)")
    page.wait_for_function("([el, old]) => el.innerText !== old", arg=[readout.element_handle(), before],
                           timeout=30_000)
    after = readout.inner_text()
    assert "RuntimeError" in after, f"the readout did not answer (8, 2) with (8,): {after!r}"
    shot(page, "02-lesson-widget-after-choice", widget)

    widget.locator(".widget-dropdown select").nth(1).select_option(label="(1, 2)")
    page.wait_for_function("([el, old]) => el.innerText !== old", arg=[readout.element_handle(), after],
                           timeout=30_000)
    assert "a + b has shape (8, 2)" in readout.inner_text(), readout.inner_text()

    # Its matplotlib figures are drawn inline.
    figures = notebook.locator(".jp-RenderedImage img")
    assert figures.count() >= 2, f"expected the lesson's two figures, found {figures.count()}"
    assert figures.first.evaluate("img => img.naturalWidth") > 100
    shot(page, "03-lesson-figure", figures.first)

    text = notebook.inner_text()
    assert "Error displaying widget" not in text
    assert "Loading widget..." not in text


def test_lesson_slider_keyboard_and_buttons(page, lab):
    notebook = open_notebook(page, lab, STEP_LESSON, "steps")
    run_all(page, lab, STEP_LESSON)

    widget = notebook.locator(".widget-vbox").filter(has=page.locator(".widget-slider")).first
    widget.wait_for(state="visible", timeout=30_000)
    slider = widget.locator(".widget-slider").first
    readout = widget.locator(".widget-html-content").first
    value = slider.locator(".widget-readout")
    assert value.inner_text().strip() == "0"
    before = readout.inner_text()
    assert "ledger event 0" in before, before[:500]

    # Keyboard: click the slider's handle, then the right arrow moves it one event on.
    slider.locator(".noUi-handle").click()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("([el, old]) => el.innerText !== old", arg=[readout.element_handle(), before],
                           timeout=30_000)
    assert value.inner_text().strip() == "1"
    after_key = readout.inner_text()
    assert "ledger event 1" in after_key, after_key[:500]
    shot(page, "04-steps-slider-after-keyboard", widget)

    # Mouse: the toggle buttons switch to the trace of a later step.
    later = widget.locator(".widget-toggle-button", has_text="a later step")
    later.click()
    page.wait_for_function("([el, old]) => el.innerText !== old", arg=[readout.element_handle(), after_key],
                           timeout=30_000)
    assert "mod-active" in (later.get_attribute("class") or "")
    assert "ledger event 1" in readout.inner_text()
    shot(page, "05-steps-toggle-after-click", widget)
    assert "Error displaying widget" not in notebook.inner_text()


def test_capstone_learning_rate_slider_redraws_the_curves(page, lab):
    """Module 09's widget: the peak-learning-rate slider redraws its run's curves (trained before, only drawn)."""
    notebook = open_notebook(page, lab, CAPSTONE, "capstone")
    run_all(page, lab, CAPSTONE)

    widget = notebook.locator(".widget-vbox").filter(has=page.locator(".widget-slider")).last
    widget.wait_for(state="visible", timeout=30_000)
    slider = widget.locator(".widget-slider").first
    value = slider.locator(".widget-readout")
    figure = widget.locator(".jp-RenderedImage img").first
    figure.wait_for(state="visible", timeout=30_000)
    before_value, before_src = value.inner_text().strip(), figure.get_attribute("src")
    assert figure.evaluate("img => img.naturalWidth") > 100
    shot(page, "10-capstone-lr-slider", widget)

    slider.locator(".noUi-handle").click()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("([el, old]) => el.innerText.trim() !== old", arg=[value.element_handle(), before_value],
                           timeout=30_000)
    page.wait_for_function("([w, old]) => { const img = w.querySelector('.jp-RenderedImage img');"
                           " return img && img.getAttribute('src') !== old; }",
                           arg=[widget.element_handle(), before_src], timeout=30_000)
    shot(page, "11-capstone-lr-slider-after-keyboard", widget)
    assert "Error displaying widget" not in notebook.inner_text()


def test_filled_exercise_checks_then_start_page_progress(page, lab):
    lab.progress.unlink(missing_ok=True)
    solution = nbformat.read(lab.root / FILLED, as_version=4)
    checks = sum(1 for c in solution.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade"))

    notebook = open_notebook(page, lab, FILLED, "filled")
    run_all(page, lab, FILLED)
    correct = notebook.locator(".autograder-correct")
    assert correct.count() >= checks, f"{correct.count()} correct lines for {checks} check cells"
    assert notebook.locator(".autograder-incorrect").count() == 0
    assert notebook.locator(".autograder-not-attempted").count() == 0
    assert "incorrect" not in " ".join(correct.all_inner_texts()).lower()
    # Each result's output also carries its data (RESULT_MIME); JupyterLab renders the HTML line alone.
    rendered = notebook.locator(".jp-OutputArea-output[data-mime-type='text/html'] .autograder-result")
    assert rendered.count() == notebook.locator(".autograder-result").count()
    assert notebook.locator(f".jp-OutputArea-output[data-mime-type='{RESULT_MIME}']").count() == 0
    shot(page, "06-exercise-filled-correct", correct.first)
    shot(page, "07-exercise-filled-correct-last", correct.last)

    recorded = json.loads(lab.progress.read_text())
    assert set(recorded.get("01-tensors", {})) == {"make_blobs", "standardize", "pairwise_sq_dists",
                                                   "align_targets"}, recorded
    lab.shut_down_kernels()

    # The start page now shows module 01 done: four green functions and the chart.
    notebook = open_notebook(page, lab, START, "start")
    run_all(page, lab, START)
    table = notebook.locator(".torch-ledger-progress")
    table.wait_for(state="visible")
    row = table.locator("tr", has_text="01-tensors")
    passed = row.locator("span[title='passed']")
    assert passed.count() == 4, row.inner_text()
    colours = passed.evaluate_all("els => els.map(e => getComputedStyle(e).backgroundColor)")
    assert set(colours) == {"rgb(26, 127, 55)"}, colours  # #1a7f37, the green of "passed"
    assert table.locator("tr", has_text="02-autograd-ledger").locator("span[title='passed']").count() == 0
    chart = notebook.locator(".jp-RenderedImage img")
    assert chart.count() >= 1
    assert chart.first.evaluate("img => img.naturalWidth") > 100
    shot(page, "08-start-page-progress", table)
    shot(page, "09-start-page-chart", chart.first)


def test_nbgrader_validate_on_blank_exercise(page, lab):
    """nbgrader's JupyterLab extension: a Validate button that runs the exercise and reports failures.

    Validation runs the whole notebook in a separate kernel on the server (about 10 s here,
    longer on a busy machine; the timeout is generous).  The button is nbgrader's
    validate-assignment plugin with its server extension, both enabled when nbgrader is
    installed; if this test fails with no button, check `jupyter labextension list` and
    `jupyter server extension list` for nbgrader.
    """
    notebook = open_notebook(page, lab, EXERCISE, "exercise")
    button = notebook.locator(".jp-Toolbar .validate-button")
    button.wait_for(state="visible", timeout=30_000)
    assert "Validate" in button.inner_text()
    shot(page, "10-exercise-validate-button", button)

    button.click()
    dialog = page.locator(".jp-Dialog", has_text="Validation Results")
    dialog.wait_for(state="visible", timeout=VALIDATE_S * 1000)
    message = dialog.locator("#validation-message")
    assert "validation-failed" in (message.get_attribute("class") or ""), message.inner_text()[:2000]
    report = message.inner_text()
    assert "The following cell failed" in report
    assert "not attempted" in report, report[:2000]  # the checks' own message for a stub
    shot(page, "11-exercise-validate-failures")
    dialog.locator("button", has_text="Ok").first.click()


def test_similarity_page_by_student_shows_a_chain_and_a_merge(browser, tmp_path):
    """The similarity page of module 06's first planted cohort, opened in
    Chromium: the view by student, with the chain (honest-02 -> chain-b -> chain-c) as one group, and the group of
    the copier who merged two classmates' cells.  No JupyterLab: the page is a file an instructor opens."""
    from autograder.cohort.views import similarity as sim
    from autograder.dev import planted, planted_06

    cohort = planted_06.planted_cohort()
    report = sim.compare(cohort.answers, cohort.stubs, planted_06.MODULE, code=planted.course_code_of(planted_06.MODULE))
    path = sim.write_report(report, tmp_path)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        page.goto(path.resolve().as_uri())
        heading = page.locator("#by-student")
        heading.wait_for(state="visible", timeout=10_000)
        chain = page.locator(".story-group", has_text="chain-b, chain-c, honest-02")
        assert chain.count() == 1 and chain.is_visible()
        rows = chain.locator("tr")
        assert rows.count() == 4  # a header and one row per student of the chain
        middle = rows.filter(has=page.locator("th", has_text="chain-b")).first.inner_text()
        assert "chain-c" in middle and "honest-02" in middle  # the middle link sees both ends
        shot(page, "12-similarity-by-student-chain", heading)
        merge = page.locator(".story-group", has_text="copier-merge")
        assert merge.count() == 1 and merge.is_visible()
        shot(page, "13-similarity-by-student-merge", merge)
    finally:
        context.close()
