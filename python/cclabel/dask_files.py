"""Many files over a Dask cluster: `cclabel label --scheduler ADDRESS FILES...`.

Each file is one task: a worker runs the cclabel command-line tool on it (``cclabel label FILE -o
OUT ...``) as a subprocess, so every format the CLI reads (PNG, TIFF pages, PPM/PGM, .npy, PDF
pages) and every option it has work the same on the cluster; the Python package itself has no
image reader. Outputs are written by the workers: under ``-o DIR`` as ``DIR/<stem>.npy`` (or
``.tif``), otherwise next to each input as ``<stem>.labels.npy`` (never over the input, which may
itself be a .npy); pages of a multi-page input add ``-p001``, ... as in the CLI. Workers must see
the same paths (one machine, or a shared file system) and the CLI binary (``--cli``, or
``$CCLABEL_CLI``, or ``cclabel`` on PATH).

Progress: each file's report lines are printed as it completes. A file that fails is named on
stderr with the CLI's message, the others go on; the exit code is 1 when any file failed, 2 when
the cluster cannot be used at all. A worker lost mid-file is retried by Dask on another worker.

    python3 -m cclabel.dask_files --scheduler tcp://10.0.0.5:8786 sheets/*.png -o labels/ -b '#ffffff'
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["label_files", "main"]

# Options of `cclabel label` passed through to every file's run: name -> takes a value.
_PASSED = {"-c": True, "--connectivity": True, "-b": True, "--background": True, "--backend": True, "-j": True,
           "--threads": True, "--min-size": True, "--largest": True, "--threshold": True, "--kmeans": True,
           "--seed": True, "--iterations": True, "--dpi": True, "--verify": False}


def _outputs(path: str, output, fmt: str, preview, stats):
    """The -o / --preview / --stats arguments of one file's run."""
    stem = Path(path).stem
    ext = "tif" if fmt == "tiff" else "npy"
    args = ["-o", str(Path(output) / f"{stem}.{ext}") if output else str(Path(path).with_name(f"{stem}.labels.{ext}"))]
    if preview:
        args += ["--preview", str(Path(preview) / f"{stem}.png")]
    if stats:
        args += ["--stats", str(Path(stats) / f"{stem}.csv")]
    return args


def _label_one(path: str, cli: str, outputs, options, timeout):
    """One task: the CLI on one file. Returns (path, exit code, stdout, stderr)."""
    try:
        proc = subprocess.run([cli, "label", path, *outputs, *options], capture_output=True, text=True,
                              timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return path, 1, "", f"cclabel: error: {path}: {e}\n"
    return path, proc.returncode, proc.stdout, proc.stderr


def _find_cli(cli):
    cli = cli or os.environ.get("CCLABEL_CLI") or shutil.which("cclabel")
    if not cli:
        raise FileNotFoundError("cannot find the cclabel command-line tool: pass cli= (--cli) or set CCLABEL_CLI")
    return cli


def _client(client, scheduler, timeout):
    from distributed import Client
    if client is not None:
        return client, False
    if scheduler is None:
        return Client(processes=False, dashboard_address=None), True
    try:
        return Client(scheduler, timeout=timeout), True
    except (OSError, TimeoutError) as e:
        raise ConnectionError(f"cannot reach the Dask scheduler at {scheduler} within {timeout} s: {e}") from None


def label_files(paths, *, output=None, format="npy", preview=None, stats=None, options=(), client=None,
                scheduler=None, cli=None, timeout=None, connect_timeout=10, out=sys.stdout, err=sys.stderr):
    """Label every file of ``paths`` on a Dask cluster with the cclabel CLI, one task per file.

    Parameters
    ----------
    paths : iterable of str
        Input files (anything ``cclabel label`` reads), as the workers see them.
    output, preview, stats : str, optional
        Folders for the label images (``<stem>.npy``, or ``.tif`` with ``format="tiff"``), the
        preview PNGs and the statistics CSVs. Without ``output`` the labels go next to each input
        as ``<stem>.labels.npy``.
    options : sequence of str
        More ``cclabel label`` options, e.g. ``["-b", "#ffffff", "--connectivity", "4"]``.
    client : distributed.Client, optional
        The cluster to use; else ``scheduler`` (an address) is connected to; else an in-process
        cluster of threads is started.
    cli : str, optional
        The CLI binary on the workers (default ``$CCLABEL_CLI``, then ``cclabel`` on PATH).
    timeout : float, optional
        Seconds one file may take (default: no limit).

    Returns
    -------
    dict: path -> (exit code, stdout, stderr) of its run, in completion order. Report lines are
    written to ``out`` as files complete and failures to ``err``.

    Raises
    ------
    ConnectionError when the scheduler cannot be reached; FileNotFoundError without a CLI binary.
    """
    from distributed import as_completed

    paths = [str(p) for p in paths]
    if not paths:
        raise ValueError("paths: no input files")
    cli = _find_cli(cli)
    if format not in ("npy", "tiff"):
        raise ValueError(f"format: expected 'npy' or 'tiff', got {format!r}")
    for folder in (output, preview, stats):
        if folder:
            os.makedirs(folder, exist_ok=True)
    client, owned = _client(client, scheduler, connect_timeout)
    try:
        futures = [client.submit(_label_one, p, cli, _outputs(p, output, format, preview, stats), list(options),
                                 timeout, key=f"cclabel-file-{i}-{os.path.basename(p)}", pure=False)
                   for i, p in enumerate(paths)]
        results = {}
        done = 0
        for fut in as_completed(futures):
            try:
                path, code, stdout, stderr = fut.result()
            except Exception as e:  # the task itself failed (a worker lost too often, ...)
                path = paths[futures.index(fut)]
                code, stdout, stderr = 1, "", f"cclabel: error: {path}: {type(e).__name__}: {e}\n"
            done += 1
            results[path] = (code, stdout, stderr)
            if stdout:
                out.write(stdout)
            if code != 0:
                err.write(stderr if stderr.strip() else f"cclabel: error: {path}: exit code {code}\n")
            err.write(f"cclabel: [{done}/{len(paths)}] {path}{'' if code == 0 else ' FAILED'}\n")
            out.flush()
            err.flush()
        return results
    finally:
        if owned:
            client.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="cclabel label --scheduler ADDRESS",
        description="Label many files over a Dask cluster (one task per file, each run by the cclabel CLI on a "
                    "worker). Other options are those of 'cclabel label'.")
    parser.add_argument("--scheduler", required=True, help="Dask scheduler address, e.g. tcp://10.0.0.5:8786")
    parser.add_argument("--cli", help="the cclabel binary on the workers (default: $CCLABEL_CLI, cclabel on PATH)")
    parser.add_argument("-o", "--output", help="folder for the label images (default: <stem>.labels.npy next to "
                                               "each input)")
    parser.add_argument("--format", choices=["npy", "tiff"], default="npy")
    parser.add_argument("--preview", help="folder for the preview PNGs")
    parser.add_argument("--stats", help="folder for the statistics CSVs")
    parser.add_argument("--timeout", type=float, help="seconds one file may take")
    parser.add_argument("--connect-timeout", type=float, default=10, help="seconds to reach the scheduler")
    args, rest = parser.parse_known_args(argv)
    files, options = [], []
    i = 0
    while i < len(rest):
        a = rest[i]
        name = a.split("=", 1)[0]
        if name in _PASSED:
            options.append(a)
            if _PASSED[name] and "=" not in a:
                if i + 1 == len(rest):
                    parser.error(f"{a} needs a value")
                options.append(rest[i + 1])
                i += 1
        elif a.startswith("-") and len(a) > 1:
            parser.error(f"unknown option {a} (cluster runs take {', '.join(sorted(_PASSED))} and those above)")
        else:
            files.append(a)
        i += 1
    if not files:
        parser.error("no input files")
    try:
        import distributed  # noqa: F401
    except ImportError as e:
        print(f"cclabel: error: --scheduler needs dask.distributed (pip install 'dask[array]' distributed): {e}",
              file=sys.stderr)
        return 2
    try:
        results = label_files(files, output=args.output, format=args.format, preview=args.preview, stats=args.stats,
                              options=options, scheduler=args.scheduler, cli=args.cli, timeout=args.timeout,
                              connect_timeout=args.connect_timeout)
    except (ConnectionError, FileNotFoundError, ValueError) as e:
        print(f"cclabel: error: {e}", file=sys.stderr)
        return 2
    failed = [p for p, (code, _, _) in results.items() if code != 0]
    if failed:
        print(f"cclabel: {len(failed)} of {len(results)} files failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
