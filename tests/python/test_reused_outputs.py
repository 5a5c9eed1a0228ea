"""New label arrays of 1 MiB and more reuse the buffers of results given up (cclabel.free_cached_memory).

What must hold: a result that is still referenced, directly or through a view, is never written by a
later call; a reused buffer is written whole (nothing of the earlier result shows through); the cache
keeps at most its limit and gives everything back on free_cached_memory(); CCLABEL_HOST_CACHE_BYTES=0
turns the reuse off and a malformed value is a clear error.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import assert_same, cc3d_labels, pack

cclabel = pytest.importorskip("cclabel")

SHAPE = (2304, 2048)  # 18 MiB of labels: well above the cache's 1 MiB threshold


def noise(seed: int, values: int = 3, background_share: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = rng.integers(1, values + 1, size=SHAPE).astype(np.uint8)
    if background_share:
        img[rng.random(SHAPE) < background_share] = 0
    return img


def test_live_results_and_their_views_are_never_overwritten():
    a, b = noise(1), noise(2)
    la = cclabel.label(a, backend="cpu")
    kept = la.copy()
    row = cclabel.label(b, backend="cpu")[700]  # only a view of the result survives
    row_kept = row.copy()
    lb = cclabel.label(b, backend="cpu")
    lc = cclabel.label(a, backend="cpu")
    for x, y in [(la, lb), (la, lc), (lb, lc), (row, lb), (row, lc), (row, la)]:
        assert not np.shares_memory(x, y)
    np.testing.assert_array_equal(la, kept)
    np.testing.assert_array_equal(row, row_kept)
    assert_same(lb, cc3d_labels(pack(b), 8), "second result")
    np.testing.assert_array_equal(lc, kept)


@pytest.mark.parametrize("backend", ["cpu", "auto"])
def test_a_reused_buffer_is_written_whole(backend):
    # The first result has no zero; the second is mostly background: every 0 must be written.
    first = cclabel.label(noise(3), backend=backend)
    assert first.min() > 0
    del first
    img = noise(4, values=2, background_share=0.6)
    got = cclabel.label(img, background=0, backend=backend, connectivity=4)
    assert_same(got, cc3d_labels(pack(img), 4, background=0), "reused buffer")


def run(code: str, **env: str) -> subprocess.CompletedProcess:
    import os
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, **env})


REPEAT = """
    import numpy as np, cclabel
    from cclabel import _cclabel
    img = (np.random.default_rng(0).random((2304, 2048)) < 0.5).astype(np.uint8)
    want = cclabel.label(img, backend="cpu").copy()
    addresses = []
    for _ in range(4):
        got = cclabel.label(img, backend="cpu")
        assert (got == want).all()
        addresses.append(got.ctypes.data)
        del got
    cached, limit, fresh = _cclabel._host_cache_info()
    print(len(set(addresses)), fresh, cached, limit, cclabel.free_cached_memory(), _cclabel._host_cache_info()[0])
"""


def test_results_of_one_size_reuse_one_buffer_and_free_cached_memory_gives_it_back():
    proc = run(REPEAT)
    assert proc.returncode == 0, proc.stderr
    distinct, fresh, cached, limit, freed, after = map(int, proc.stdout.split())
    assert fresh == 1, "the first result's buffer served all five calls"
    assert distinct == 1
    assert cached >= 2304 * 2048 * 4 and cached <= limit
    assert freed == cached and after == 0


def test_a_limit_of_zero_turns_the_reuse_off():
    proc = run(REPEAT, CCLABEL_HOST_CACHE_BYTES="0")
    assert proc.returncode == 0, proc.stderr
    distinct, fresh, cached, limit, freed, after = map(int, proc.stdout.split())
    assert (fresh, cached, limit, freed) == (0, 0, 0, 0), "nothing is kept; new arrays come from malloc"


def test_a_malformed_limit_is_a_clear_error():
    proc = run("import numpy as np, cclabel; cclabel.label(np.zeros((4096, 4096), np.uint8))",
               CCLABEL_HOST_CACHE_BYTES="lots")
    assert proc.returncode != 0
    assert "ValueError: CCLABEL_HOST_CACHE_BYTES=lots is not a byte count" in proc.stderr
