"""`cclabel label|stats|check` on one-channel .npy arrays of int8, int16, int32, int64, uint64,
float16, float32 and float64, read as the library's typed formats and labelled by value (issue 23):
integers by exact value, floats with -0 == +0 and every NaN one value. Labels against a flood fill
on the values and cc3d on the dense value ids (np.unique(a, return_inverse=True)); backgrounds of the
array's own type (-1, nan, -0, auto); backgrounds the type cannot hold; the statistics' value column;
options the typed formats do not take yet."""
from __future__ import annotations

import csv
import io
import subprocess

import numpy as np
import pytest

from conftest import bfs_labels, cc3d_labels, load_labels, run_cli

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]


def picture(dtype, seed=0, shape=(24, 31)):
    """Blocky random values of @p dtype: negatives, the type's extremes, values equal in their low
    32 bits (64-bit), and for floats -0.0, +0.0 and NaNs of several payloads."""
    rng = np.random.default_rng(seed)
    d = np.dtype(dtype)
    if d.kind == "f":
        pool = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 3.0], dtype)
    else:
        info = np.iinfo(d)
        vals = [info.min, info.max, 0, 1, 7]
        if d.kind == "i":
            vals += [-1, -7]
        if d.itemsize == 8:
            vals += [(1 << 33) + 1, 1, (1 << 32) + 7]  # equal in the low 32 bits to 1 and 7
        pool = np.array(vals, dtype=object).astype(d)
    idx = np.repeat(np.repeat(rng.integers(0, len(pool), size=(shape[0] // 2, shape[1] // 2 + 1)), 2, 0), 2, 1)
    idx = idx[: shape[0], : shape[1]]
    idx = np.where(rng.random(idx.shape) < 0.15, rng.integers(0, len(pool), size=idx.shape), idx)
    a = pool[idx]
    if d.kind == "f":  # NaNs of other payloads and signs: all one value
        bits = a.view(f"u{d.itemsize}")
        nan_mask = np.isnan(a) & (rng.random(a.shape) < 0.5)
        bits[nan_mask] |= np.array(1, bits.dtype)
        sign = np.array(1 << (8 * d.itemsize - 1), dtype=bits.dtype)
        flip = np.isnan(a) & (rng.random(a.shape) < 0.5)
        bits[flip] ^= sign
        assert np.isnan(a).sum() > 0 and (np.signbit(a) & (a == 0)).any()
    return a


def same(a, y, x, y2, x2):
    u, v = a[y, x], a[y2, x2]
    return bool(u == v or (np.isnan(u) and np.isnan(v))) if a.dtype.kind == "f" else bool(u == v)


def is_value(a, bg):
    """Where a holds the value bg (NaN: every NaN; -0: both zeros)."""
    if a.dtype.kind == "f" and np.isnan(bg):
        return np.isnan(a)
    return a == bg


def dense_ids(a):
    _, inv = np.unique(a.ravel(), return_inverse=True)  # NaNs one id, -0 == +0
    return inv.reshape(a.shape).astype(np.int64)


def expected(a, conn, bg=None):
    mask = np.zeros(a.shape, bool) if bg is None else is_value(a, bg)
    want = bfs_labels(a.shape[0], a.shape[1], lambda y, x, y2, x2: same(a, y, x, y2, x2), conn,
                      lambda y, x: bool(mask[y, x]))
    ids = dense_ids(a)
    if bg is not None:
        ids = np.where(mask, -1, ids)
    peer = cc3d_labels(ids, conn, background=None if bg is None else -1)
    np.testing.assert_array_equal(want, peer, err_msg="flood fill and cc3d disagree: the test is wrong")
    return want


def save(path, a, variant):
    if variant == "big-endian":
        a = a.astype(a.dtype.newbyteorder(">"))
    elif variant == "fortran":
        a = np.asfortranarray(a)
    np.save(path, a)


def cclabel(cli, *args):
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("variant", ["C", "big-endian", "fortran"])
@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
def test_labels_follow_values(cli, tmp_path, dtype, conn, variant):
    a = picture(dtype, seed=conn)
    src, out = tmp_path / "a.npy", tmp_path / "labels.npy"
    save(src, a, variant)
    proc = run_cli(cli, src, "-o", out, "-c", conn)
    want = expected(a, conn)
    got = load_labels(out, a.shape)
    np.testing.assert_array_equal(got, want)
    name = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint64": "u64", "float16": "f16",
            "float32": "f32", "float64": "f64"}[np.dtype(dtype).name]
    distinct = len(np.unique(a.ravel()))  # -0 == +0, NaNs one value
    assert f"{a.shape[1]}x{a.shape[0]} {name}, {distinct:,} values, {int(want.max()):,} regions" in proc.stdout


@pytest.mark.parametrize("dtype,bg", [(d, "-1") for d in [np.int8, np.int16, np.int32, np.int64] + FLOATS]
                         + [(d, "nan") for d in FLOATS] + [(d, "-0") for d in INTS + FLOATS]
                         + [(np.uint64, "18446744073709551615"), (np.int64, "-9223372036854775808"),
                            (np.float32, "-inf"), (np.float64, "1.5")],
                         ids=lambda v: v if isinstance(v, str) else np.dtype(v).name)
def test_background_of_the_arrays_type(cli, tmp_path, dtype, bg):
    a = picture(dtype, seed=5)
    if bg == "-1" and np.dtype(dtype).kind == "f":
        a[3:9, 4:11] = -1
    if bg == "1.5":
        a[:, 7] = 1.5
    src, out = tmp_path / "a.npy", tmp_path / "labels.npy"
    np.save(src, a)
    run_cli(cli, src, "-o", out, "-b", bg)
    value = float(bg) if np.dtype(dtype).kind == "f" else int(bg)
    want = expected(a, 8, np.array(value).astype(dtype)[()])
    assert (want == 0).any()
    np.testing.assert_array_equal(load_labels(out, a.shape), want)


@pytest.mark.parametrize("dtype", [np.int16, np.float32], ids=lambda d: np.dtype(d).name)
def test_background_auto_is_the_most_frequent_value(cli, tmp_path, dtype):
    a = picture(dtype, seed=9)
    if np.dtype(dtype).kind == "f":  # -0 and +0 together outnumber any other value, each alone does not
        a[:12, :] = np.where(np.arange(a.shape[1]) % 2 == 0, np.float32(0.0), np.float32(-0.0))
    else:
        a[:12, :] = -7
    src, out = tmp_path / "a.npy", tmp_path / "labels.npy"
    np.save(src, a)
    run_cli(cli, src, "-o", out, "-b", "auto")
    np.testing.assert_array_equal(load_labels(out, a.shape), expected(a, 8, a[0, 0]))


@pytest.mark.parametrize("dtype,bg", [(np.int8, "300"), (np.int8, "-129"), (np.float16, "0.1"),
                                      (np.float32, "0.1"), (np.uint64, "-1"), (np.int32, "1.5"),
                                      (np.int16, "nan"), (np.float64, "abc"), (np.float32, "#ffffff"),
                                      (np.float16, "1e6")],
                         ids=lambda v: v if isinstance(v, str) else np.dtype(v).name)
def test_background_the_type_cannot_hold_is_a_bad_option(cli, tmp_path, dtype, bg):
    src, out = tmp_path / "a.npy", tmp_path / "labels.npy"
    np.save(src, picture(dtype))
    for cmd in (["label", src, "-o", out], ["stats", src]):
        proc = cclabel(cli, *cmd, "-b", bg)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "--background" in lines[0] and "Traceback" not in lines[0], proc.stderr
    assert not out.exists()


def test_negative_background_on_an_unsigned_image_is_a_bad_option(cli, tmp_path):
    src = tmp_path / "a.npy"
    np.save(src, np.zeros((3, 4), np.uint8))
    proc = cclabel(cli, "label", src, "-b", "-1")
    assert proc.returncode == 2 and "--background" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
def test_stats_value_column_is_the_typed_value(cli, tmp_path, dtype):
    a = picture(dtype, seed=2)
    src = tmp_path / "a.npy"
    np.save(src, a)
    bg = "nan" if np.dtype(dtype).kind == "f" else "0"
    proc = cclabel(cli, "stats", src, "-b", bg)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    want = expected(a, 8, np.array(float(bg) if bg == "nan" else 0).astype(dtype)[()])
    assert len(rows) == int(want.max()) + 1
    for r in rows[1:]:
        ys, xs = np.nonzero(want == int(r["label"]))
        v = a[ys[0], xs[0]]
        if np.dtype(dtype).kind == "f":
            got = float(r["value"])  # "nan", "inf", "-inf", "1.5"
            assert (np.isnan(got) and np.isnan(v)) or got == float(v), (r, v)
            assert r["value"] != "-0", r  # canonical: the region of -0 and +0 is 0
        else:
            assert int(r["value"]) == int(v), (r, v)
    assert rows[0]["value"] == ("nan" if bg == "nan" else "0")


def test_stats_values_as_text(cli, tmp_path):
    src = tmp_path / "a.npy"
    np.save(src, np.array([[-5, 3.25, np.nan, -0.0, 1e20]], np.float64))
    proc = cclabel(cli, "stats", src)
    assert [r["value"] for r in csv.DictReader(io.StringIO(proc.stdout))][1:] == ["-5", "3.25", "nan", "0", "1e+20"]
    np.save(src, np.array([[0.1, -128]], np.float32))
    proc = cclabel(cli, "stats", src)
    value = [r["value"] for r in csv.DictReader(io.StringIO(proc.stdout))][1]
    assert float(value) == float(np.float32(0.1))  # exact: given back to -b it names the same value
    proc = cclabel(cli, "label", src, "-b", value)
    assert proc.returncode == 0 and " 1 regions" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize("option", [["--threshold", "1"], ["--threshold", "otsu"], ["--kmeans", "2"], ["--verify"],
                                    ["--tile", "8x8"], ["--tolerance", "1"]], ids=lambda o: o[0])
def test_options_the_typed_formats_do_not_take_are_one_line_errors(cli, tmp_path, option):
    src = tmp_path / "a.npy"
    np.save(src, picture(np.float32))
    proc = cclabel(cli, "label", src, *option)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and option[0] in lines[0] and "float32" in lines[0], proc.stderr


def test_preview_filters_stats_and_adjacency_work(cli, tmp_path):
    a = picture(np.int16, seed=4)
    src = tmp_path / "a.npy"
    np.save(src, a)
    run_cli(cli, src, "-o", tmp_path / "l.tif", "--preview", tmp_path / "p.png", "--stats", tmp_path / "s.csv",
            "--adjacency", tmp_path / "adj.csv", "--min-size", "3", "-b", "-1")
    for name in ("l.tif", "p.png", "s.csv", "adj.csv"):
        assert (tmp_path / name).stat().st_size > 0


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.uint64], ids=lambda d: np.dtype(d).name)
def test_check_takes_a_typed_image(cli, tmp_path, dtype):
    a = picture(dtype, seed=6)
    src, given = tmp_path / "a.npy", tmp_path / "given.npy"
    np.save(src, a)
    bg = "nan" if np.dtype(dtype).kind == "f" else "0"
    want = expected(a, 8, np.array(float(bg) if bg == "nan" else 0).astype(dtype)[()])
    np.save(given, want)
    proc = cclabel(cli, "check", given, src, "-b", bg)
    assert proc.returncode == 0 and "identical" in proc.stdout, proc.stdout + proc.stderr
    np.save(given, expected(a, 8))  # the background labelled: wrong
    assert cclabel(cli, "check", given, src, "-b", bg).returncode == 2
