"""Sphinx configuration of the cclabel documentation (built by scripts/docs.sh, warnings as errors)."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import cclabel  # the installed package: the Python reference is made from its docstrings

root = Path(__file__).resolve().parent.parent

project = "cclabel"
release = cclabel.__version__
version = release
copyright = "the cclabel authors"

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "breathe"]
source_suffix = {".md": "markdown"}
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
exclude_patterns = ["examples", "Doxyfile"]
html_theme = "alabaster"
html_title = f"cclabel {release}"
html_static_path: list[str] = []

autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the signatures are in the docstrings, as the users read them in help()
napoleon_google_docstring = True
napoleon_numpy_docstring = True

breathe_projects = {"cclabel": str(root / "build" / "docs-doxygen" / "xml")}
breathe_default_project = "cclabel"
breathe_domain_by_extension = {"hpp": "cpp"}
# cudaStream_t and friends come from the CUDA headers, which Doxygen does not read.
cpp_id_attributes = ["__host__", "__device__"]

# The CLI page shows `cclabel label --help` verbatim when scripts/docs.sh is given the built tool.
_HELP_MARK = "<!-- cclabel label --help -->"


def _cli_help() -> str:
    cli = os.environ.get("CCLABEL_CLI", "")
    if not cli:
        return ("*(This build of the documentation was made without the tool: `CCLABEL_CLI` was not "
                "set. Run `cclabel label --help` for its own list.)*")
    out = subprocess.run([cli, "label", "--help"], capture_output=True, text=True, check=True).stdout
    out = re.sub(r"^Usage: \S+", "Usage: cclabel", out, flags=re.M)
    return "```text\n" + out.rstrip() + "\n```"


# Pages that other work adds to docs/ (installing, migration, backend auto, ...) join the index's
# last table of contents by themselves, in this order first, so a page is never left out of it.
_OTHERS_MARK = "<!-- other pages -->"
_OWN = {"index", "cli", "cpp-guide", "how-it-works", "benchmarks", "development"}
_ORDER = ["install", "migration", "auto", "tolerance_and_adjacency", "decode_limits"]


def _other_pages() -> str:
    here = Path(__file__).resolve().parent
    names = {p.stem for p in here.glob("*.md")} - _OWN
    ordered = [n for n in _ORDER if n in names] + sorted(names - set(_ORDER))
    return "```{toctree}\n:maxdepth: 1\n:caption: More\n\n" + "\n".join(ordered) + "\n```"


# Modules of the package that only some builds or branches have yet (cclabel.graph, with the
# tolerance labeller): documented when the installed package has them.
_OPTIONAL_MARK = "<!-- optional modules -->"
_OPTIONAL_MODULES = ["cclabel.graph"]


def _optional_modules() -> str:
    import importlib.util
    parts = []
    for name in _OPTIONAL_MODULES:
        if importlib.util.find_spec(name) is not None:
            parts.append(f"## `{name}`\n\n```{{eval-rst}}\n.. automodule:: {name}\n   :members:\n```\n")
    return "\n".join(parts)


def _source_read(app, docname, source):
    if docname == "reference/python" and _OPTIONAL_MARK in source[0]:
        source[0] = source[0].replace(_OPTIONAL_MARK, _optional_modules())
    if docname == "cli" and _HELP_MARK in source[0]:
        source[0] = source[0].replace(_HELP_MARK, _cli_help())
    if docname == "index" and _OTHERS_MARK in source[0]:
        source[0] = source[0].replace(_OTHERS_MARK, _other_pages())


def setup(app):
    app.connect("source-read", _source_read)
