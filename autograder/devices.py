"""Which devices a check runs on, and the strict tensor comparisons every check uses."""

from __future__ import annotations

import os

import torch

from .core import describe, fail

NO_CUDA_REASON = "no GPU on this machine"


def devices() -> list[str]:
    """``["cpu"]`` plus ``"cuda"`` when a CUDA device is available.

    ``AUTOGRADER_DEVICES=cpu`` narrows the list (for example to grade a cohort on
    CPU workers of a GPU machine).
    """
    found = ["cpu"]
    if torch.cuda.is_available():
        found.append("cuda")
    wanted = os.environ.get("AUTOGRADER_DEVICES")
    if wanted:
        keep = {d.strip() for d in wanted.split(",")}
        found = [d for d in found if d in keep] or ["cpu"]
    return found


def cuda_or_skip(notes: list[str]) -> bool:
    """True when CUDA is available; otherwise record why the CUDA case was skipped."""
    if "cuda" in devices():
        return True
    notes.append(f"cuda not checked: {NO_CUDA_REASON}")
    return False


def each_device(notes: list[str]) -> list[str]:
    """The devices a check loops over; notes why CUDA is not among them when it is not."""
    found = devices()
    if "cuda" not in found:
        notes.append(f"cuda not checked: {NO_CUDA_REASON}")
    return found


def manual_seed(seed: int) -> None:
    """What ``torch.manual_seed(seed)`` does, for a few microseconds instead of milliseconds on a machine with no
    accelerator.

    ``torch.manual_seed`` also queues the seed for each accelerator torch knows (CUDA, XPU, MTIA), to be applied
    when that accelerator starts, and each queued seed keeps a copy of the caller's stack: about 2.5 ms a call
    at a check's depth in a notebook, where a module's checks seed up to a hundred times.  With no accelerator there is nothing to
    queue, and seeding the CPU's default generator is all it does.
    """
    if torch.accelerator.is_available():
        torch.manual_seed(seed)
    else:
        torch.default_generator.manual_seed(int(seed))


def generator(seed: int, device: str = "cpu") -> torch.Generator:
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    return g


# --------------------------------------------------------------------------
# Strict checks on tensors the learner returned


_REAL_TENSOR_TYPES = (torch.Tensor, torch.nn.Parameter)


def is_tensor_of(value, shape) -> bool:
    """Whether ``value`` is a plain ``torch.Tensor`` (no subclass) of this shape."""
    return type(value) in _REAL_TENSOR_TYPES and tuple(value.shape) == tuple(shape)


def expect_tensor(value, what: str, owner: str, *, shape=None, dtype=None, device=None) -> torch.Tensor:
    """``value`` must be a real ``torch.Tensor`` with this shape, dtype and device."""
    if type(value) not in _REAL_TENSOR_TYPES:
        fail(
            f"{what} is {describe(value)}, not a torch.Tensor.",
            owner,
            "return a plain torch.Tensor built with torch operations.",
            code="not_a_tensor",
        )
    if shape is not None and tuple(value.shape) != tuple(shape):
        fail(
            f"{what} has shape {list(value.shape)}; the contract asks for {list(shape)}.",
            owner,
            "print the shape after each operation and find where it stops matching the contract.",
            code="wrong_shape",
        )
    if dtype is not None and value.dtype != dtype:
        fail(
            f"{what} has dtype {str(value.dtype).replace('torch.', '')}; "
            f"the contract asks for {str(dtype).replace('torch.', '')}.",
            owner,
            "check which operation chose the dtype (factory functions take `dtype=`).",
            code="wrong_dtype",
        )
    if device is not None and value.device.type != torch.device(device).type:
        fail(
            f"{what} lives on {value.device}; the caller asked for {device}.",
            owner,
            "create tensors directly on the `device` argument (or move them with `.to(device)`).",
            code="wrong_device",
        )
    return value


def plain(value: torch.Tensor) -> torch.Tensor:
    """A detached CPU copy for comparisons (after :func:`expect_tensor`)."""
    return torch.Tensor.detach(value).to("cpu").clone()


def max_abs_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    a, b = plain(a).double(), plain(b).double()
    if a.shape != b.shape:
        return float("inf")
    if a.numel() == 0:
        return 0.0
    both_nan = torch.isnan(a) & torch.isnan(b)
    diff = (a - b).abs()
    diff[both_nan] = 0.0
    value = diff.max().item()
    return float("inf") if value != value else value


def close(a: torch.Tensor, b: torch.Tensor, atol: float = 1e-5, rtol: float = 1e-4) -> bool:
    a, b = plain(a).double(), plain(b).double()
    return a.shape == b.shape and bool(torch.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True))
