"""The lessons link each glossary term's first use to its entry in ``course/glossary.md``.

Every entry of the glossary carries an anchor (``<a id="logit"></a>``); :data:`TERMS` says how each term
appears in a lesson's prose: words (a regular expression, matched case-insensitively unless it says
otherwise) or the text of a code span (`` `grad_fn` ``).  :func:`link_first_uses` links, in each lesson,
the first place each term is used, outside headings, code spans of other text, links, images, HTML and
maths.  ``python -m autograder.dev.glossary`` links every lesson; the tests hold that running it again
changes nothing, so a new lesson or paragraph is linked too.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "course" / "glossary.md"

#: ``(anchor, words, code spans)``, the more specific term first where two overlap ("graph break" before
#: "graph", "parameter group" before "parameter", "binary cross-entropy" before "cross-entropy").
TERMS: tuple[tuple[str, str | None, tuple[str, ...]], ...] = (
    ("accumulation", r"\baccumulat(?:es|ed|ion|ing|e)\b", ()),
    ("artefact", r"\bartefacts?\b", ()),
    ("batchnorm-running-statistics", r"\brunning statistics\b", ()),
    ("binary-cross-entropy", r"\bbinary cross-entropy\b", ()),
    ("broadcasting", r"\bbroadcast(?:ing|s)?\b", ()),
    ("buffer", r"\bbuffers?\b", ()),
    ("chain-rule", r"\bchain rule\b", ()),
    ("channel", r"\bchannels?\b", ()),
    ("checkpoint", r"\bcheckpoints?\b", ()),
    ("clipping", r"\bclipp(?:ing|ed)\b", ()),
    ("confusion-matrix", r"\bconfusion matri(?:x|ces)\b", ()),
    ("convolution", r"\bconvolutions?\b", ("nn.Conv2d", "Conv2d")),
    ("cross-entropy", r"(?<!binary )\bcross-entropy\b", ("nn.CrossEntropyLoss", "CrossEntropyLoss")),
    ("dataloader", None, ("DataLoader",)),
    ("dataset", None, ("Dataset",)),
    ("determinism", r"\bdetermini(?:sm|stic)\b", ()),
    ("detach", None, ("detach()", ".detach()")),
    ("device", r"\bdevices?\b", ()),
    ("dropout", r"\bdropout\b", ("nn.Dropout", "Dropout")),
    ("dtype", r"\bdtypes?\b", ("dtype",)),
    ("dynamic-shape", r"\bdynamic (?:shapes?|batch(?: dimension| size)?|dimensions?)\b", ()),
    ("eager-mode", r"\beager(?: mode| execution)?\b", ()),
    ("export", r"\bexport(?:s|ed|ing)?\b", ("torch.export",)),
    ("generator", r"\bgenerators?\b", ("torch.Generator",)),
    ("grad", None, (".grad", "x.grad", "p.grad", "w.grad")),
    ("grad-fn", None, ("grad_fn", ".grad_fn")),
    ("graph-break", r"\bgraph breaks?\b", ()),
    ("graph", r"\bgraphs?\b", ()),
    ("guard", r"\bguards?\b", ()),
    ("handle", r"\bhandles? (?:it|that it|they) returns?\b", ("handle.remove()", "RemovableHandle")),
    ("hook", r"\bhooks?\b", ()),
    ("inference-mode", r"\binference mode\b", ("torch.inference_mode()", "inference_mode")),
    ("leaf", r"\bleaf(?: tensors?)?\b", ()),
    ("learning-rate", r"\blearning rates?\b", ()),
    ("ledger", r"\bledgers?\b", ()),
    ("logit", r"\blogits?\b", ()),
    ("mode", r"\b(?:training|evaluation|eval|train) mode\b", ()),
    ("momentum", r"\bmomentum\b", ()),
    ("no-grad", None, ("torch.no_grad()", "no_grad", "no_grad()", "torch.no_grad")),
    ("onnx", r"(?-i:\bONNX\b)", ()),
    ("optimizer-state", r"\boptimi[sz]er(?:'s)? state\b", ()),
    ("overfit-one-batch", r"\boverfit(?:ting)? (?:one|a single) batch\b", ()),
    ("owner", r"\bowners?\b", ()),
    ("parameter-group", r"\bparameter groups?\b", ()),
    ("parameter", r"\bparameters?\b", ()),
    ("pooling", r"\b(?:max-)?pool(?:ing|s)?\b", ("nn.MaxPool2d", "MaxPool2d")),
    ("recompilation", r"\brecompil(?:es|ed|ations?|e)\b", ()),
    ("schedule", r"\b(?:learning-rate )?schedul(?:es|ers?|e)\b", ()),
    ("seed", r"\bseed(?:s|ed|ing)?\b", ()),
    ("sigmoid", r"\bsigmoid\b", ()),
    ("skew", r"\bskew\b", ()),
    ("state-dict", r"\bstate dict\b", ("state_dict", "state_dict()", ".state_dict()", "model.state_dict()")),
    ("zero-grad", None, ("zero_grad()", "zero_grad", ".zero_grad()", "optimizer.zero_grad()")),
)

LINK = "glossary.md#{anchor}"

# What is never linked inside: a code span, a link or an image (its text and its target), inline HTML, maths.
_LINK = r"!?\[[^\]\n]*\]\([^)\n]*\)"
_PROTECTED = re.compile(r"`[^`\n]+`|" + _LINK + r"|<[^>\n]+>|\$[^$\n]+\$")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def anchors(text: str | None = None) -> list[str]:
    """The anchors the glossary defines (``<a id="..."></a>``), in order."""
    text = GLOSSARY.read_text() if text is None else text
    return re.findall(r'<a id="([\w-]+)"></a>', text)


def _free_spans(line: str) -> list[tuple[int, int]]:
    """The stretches of ``line`` outside code spans, links, images, HTML and maths."""
    spans, at = [], 0
    for m in _PROTECTED.finditer(line):
        spans.append((at, m.start()))
        at = m.end()
    spans.append((at, len(line)))
    return spans


def _first_use(source: str, words: str | None, code: tuple[str, ...]) -> tuple[int, int, str] | None:
    """Where the term is first used in a markdown cell's ``source``: ``(start, end, replacement)``."""
    offset, fenced = 0, False
    for line in source.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped.startswith("```"):
            fenced = not fenced
        elif not fenced and not stripped.startswith(("#", "|", "<")):
            found = []
            if words:
                pattern = re.compile(words, re.I)
                for start, end in _free_spans(line):
                    m = pattern.search(line, start, end)
                    if m:
                        found.append((m.start(), m.end(), f"[{m.group(0)}]"))
                        break
            for m in _CODE_SPAN.finditer(line):
                if m.group(1) in code and not _inside_link(line, m.start()):
                    found.append((m.start(), m.end(), f"[{m.group(0)}]"))
                    break
            if found:
                start, end, text = min(found)
                return offset + start, offset + end, text
        offset += len(line)
    return None


def _inside_link(line: str, at: int) -> bool:
    return any(m.start() <= at < m.end() for m in re.finditer(_LINK, line))


def link_first_uses(nb) -> list[str]:
    """Link, in the markdown cells of lesson ``nb`` (changed in place), the first use of every term not yet
    linked in it; the anchors it linked.  A term already linked anywhere in the lesson is left alone."""
    linked = set()
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            linked |= set(re.findall(r"\]\(glossary\.md#([\w-]+)\)", cell.source))
    added = []
    for anchor, words, code in TERMS:
        if anchor in linked:
            continue
        for cell in nb.cells:
            if cell.cell_type != "markdown":
                continue
            use = _first_use(cell.source, words, code)
            if use:
                start, end, text = use
                cell.source = cell.source[:start] + text + f"({LINK.format(anchor=anchor)})" + cell.source[end:]
                added.append(anchor)
                break
    return added


def lessons(root: Path = ROOT) -> list[Path]:
    return sorted(p for p in (root / "course").glob("*.ipynb") if p.stem != "00-start")


def main(argv: list[str] | None = None) -> int:
    for path in lessons():
        nb = nbformat.read(path, as_version=4)
        added = link_first_uses(nb)
        if added:
            nbformat.write(nb, path)
        print(f"{path.name:42} {len(added):3d} terms linked")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
