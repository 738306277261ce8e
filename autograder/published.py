"""Where the course is published: one repository and branch that the Colab set-up cells, the Colab and Binder
badges and ``check.solution`` (where a copy of the course has no ``solutions/``) all read."""

from __future__ import annotations

REPOSITORY = "torch-ledger/torch-ledger-course"
BRANCH = "main"


def colab_url(path: str) -> str:
    """A notebook of the published course, opened on Google Colab."""
    return f"https://colab.research.google.com/github/{REPOSITORY}/blob/{BRANCH}/{path}"


def binder_url(path: str = "course/00-start.ipynb") -> str:
    """The published course on Binder, opened at ``path``."""
    return f"https://mybinder.org/v2/gh/{REPOSITORY}/{BRANCH}?urlpath=lab/tree/{path}"


def raw_url(path: str = "") -> str:
    """A file of the published course as its bytes (``raw_url("")`` is the folder every path is read under)."""
    return f"https://raw.githubusercontent.com/{REPOSITORY}/{BRANCH}/{path}"
