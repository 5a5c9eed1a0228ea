"""The run's settings, shared by every method, and the GPU it found (CuPy and PyTorch, or why not)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .optional import optional
from .workloads import Generator

# The repository root: where the default build folders and bench/RESULTS.md are, and whose commit the report names.
REPO = Path(__file__).resolve().parents[2]


@dataclass
class Config:
    reps: int
    slow_s: float
    budget_s: float
    build: Path
    tmp: Path
    opencv_colour_max_dpi: int
    opencv_colour_max_s: float
    max_dpi_run: int
    npp: Path = Path("npp_label")
    gen: Generator | None = None
    cupy: object = None
    torch: object = None
    gpu_why: str = "no CUDA GPU"


def release_gpu_memory(cfg: Config) -> None:
    """Hands the pools' cached blocks back, so one method's leftovers do not crowd the next."""
    if cfg.cupy is not None:
        cfg.cupy.get_default_memory_pool().free_all_blocks()
    if cfg.torch is not None:
        cfg.torch.cuda.empty_cache()


def detect_gpu(cfg: Config) -> str:
    cp = optional("cupy")
    if cp is None:
        cfg.gpu_why = "no GPU: CuPy not installed"
        return "none"
    try:
        n = cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001
        n, why = 0, str(e).splitlines()[0][:100]
    else:
        why = "no CUDA device"
    if n == 0:
        cfg.gpu_why = f"no GPU ({why})"
        return "none"
    cfg.cupy = cp
    torch = optional("torch")
    if torch is not None and torch.cuda.is_available():
        cfg.torch = torch
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    return f"{name}, {props['totalGlobalMem'] / 2**30:.0f} GiB, CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}"
