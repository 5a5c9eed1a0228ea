"""Peers that may be missing: imported on demand, with the reason kept for the report's "Not run" line."""
from __future__ import annotations


def optional(module: str):
    """The module, or None with the reason kept in OPTIONAL_WHY."""
    try:
        return __import__(module, fromlist=["_"])
    except Exception as e:  # noqa: BLE001 - any import failure means "not installed" here
        OPTIONAL_WHY[module] = f"{type(e).__name__}: {e}".splitlines()[0][:160]
        return None


OPTIONAL_WHY: dict[str, str] = {}


def version_of(dist: str) -> str:
    try:
        from importlib.metadata import version
        return version(dist)
    except Exception:  # noqa: BLE001
        return "?"
