"""The documentation's examples, run: every `cclabel` command of a ```console block in README.md and
docs/ (with the built tool, $CCLABEL_CLI) must print what the block shows, times aside, and exit as
a following `$ echo $?` says (else 0); every option of the tool's --help must be in docs/cli.md; and
docs/examples/tour.cpp, whose parts the C++ pages show, must compile against the installed package
($CCLABEL_PREFIX, e.g. build/install after test.sh's consumer stage) and run.

The Python examples are `>>>` sessions, run as doctests:
    python3 -m pytest --doctest-glob='*.md' docs README.md
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@dataclass
class Command:
    where: str  # file:line, for the failure message
    line: str  # the command as written, without "$ "
    output: list[str] = field(default_factory=list)
    exit_code: int = 0


def console_commands(path: Path) -> list[Command]:
    """The `$ cclabel ...` (or `$ ./run.sh ...`) commands of the ```console blocks of a file."""
    commands: list[Command] = []
    in_block = False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("```"):
            in_block = line.strip() == "```console"
            continue
        if not in_block:
            continue
        if line.startswith("$ "):
            text = line[2:].strip()
            if text == "echo $?":
                assert commands, f"{path.name}:{number}: 'echo $?' follows no command"
                commands[-1].exit_code = -1  # the next output line says it
                continue
            commands.append(Command(f"{path.relative_to(ROOT)}:{number}", text))
        elif commands and commands[-1].exit_code == -1:
            commands[-1].exit_code = int(line.strip())
        elif commands:
            commands[-1].output.append(line)
    return commands


def normalised(lines: list[str]) -> list[str]:
    """Lines with their times and the backend of `auto` masked (they differ from run to run and
    machine to machine), sorted: stdout and stderr come through separate pipes, so their lines may
    interleave either way."""
    def mask(line: str) -> str:
        return re.sub(r"\((cpu|cuda)\b", "(BACKEND", re.sub(r"\d+(\.\d+)? ms\b", "T ms", line.rstrip()))
    return sorted(mask(line) for line in lines if line.strip())


ALL_COMMANDS = [c for path in DOC_FILES for c in console_commands(path)]


def test_docs_have_console_examples():
    # A parser that finds nothing would make the test below pass vacuously.
    assert len(ALL_COMMANDS) >= 10, [c.where for c in ALL_COMMANDS]
    assert all(c.exit_code >= 0 for c in ALL_COMMANDS), [c.where for c in ALL_COMMANDS if c.exit_code < 0]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, cli):
    """A folder holding examples/ (the repository's) and a bin/ whose `cclabel` is the built tool."""
    work = tmp_path_factory.mktemp("docs")
    (work / "examples").symlink_to(ROOT / "examples")
    (work / "bin").mkdir()
    (work / "bin" / "cclabel").symlink_to(Path(cli).resolve())
    return work


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=[c.where for c in ALL_COMMANDS])
def test_console_example(command: Command, workdir: Path):
    words = shlex.split(command.line, comments=True)
    assert words and words[0] in ("cclabel", "./run.sh"), f"{command.where}: not a cclabel command"
    line = re.sub(r"^\./run\.sh\b", "cclabel", command.line)
    env = dict(os.environ, PATH=f"{workdir / 'bin'}{os.pathsep}{os.environ['PATH']}")
    proc = subprocess.run(["bash", "-c", line], cwd=workdir, env=env, capture_output=True, text=True,
                          timeout=300)
    got = (proc.stdout + proc.stderr).splitlines()
    assert normalised(got) == normalised(command.output), (
        f"{command.where}: `{command.line}` printed\n" + "\n".join(got))
    assert proc.returncode == command.exit_code, (
        f"{command.where}: `{command.line}` exited {proc.returncode}, the docs say {command.exit_code}")


@pytest.mark.parametrize("subcommand", ["label", "stats", "check"])
def test_every_option_is_documented(cli: str, subcommand: str):
    help_text = subprocess.run([cli, subcommand, "--help"], capture_output=True, text=True, check=True).stdout
    options = set(re.findall(r"^\s+(?:-\w,)?(--[a-z][a-z-]*)", help_text, flags=re.M)) - {"--help"}
    assert options, f"found no option in `cclabel {subcommand} --help`"
    page = (ROOT / "docs" / "cli.md").read_text()
    missing = sorted(o for o in options if f"`{o}" not in page and f"{o} " not in page)
    assert not missing, f"docs/cli.md does not document {missing} of `cclabel {subcommand}`"


def test_cpp_tour_compiles_and_agrees(tmp_path: Path):
    prefix = os.environ.get("CCLABEL_PREFIX", "")
    if not prefix:
        pytest.skip("CCLABEL_PREFIX is not set: point it at an installed cclabel (cmake --install)")
    pc_path = Path(prefix) / "lib" / "pkgconfig"
    assert (pc_path / "cclabel.pc").is_file(), f"no cclabel.pc under {pc_path}"
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "cclabel"], capture_output=True, text=True,
                           check=True, env=dict(os.environ, PKG_CONFIG_PATH=str(pc_path))).stdout.split()
    exe = tmp_path / "tour"
    subprocess.run(["g++", "-std=c++20", "-O1", "-Wall", "-Wextra", "-Werror", str(ROOT / "docs/examples/tour.cpp"),
                    *flags, "-o", str(exe)], check=True)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "every example agrees" in proc.stdout


def test_readme_cpp_example_is_the_compiled_one():
    # The README cannot include a file, so its C++ example is a copy of tour.cpp's [label] part
    # (the part test_cpp_tour_compiles_and_agrees compiles and checks); they must not drift apart.
    tour = (ROOT / "docs/examples/tour.cpp").read_text()
    part = tour.split("// [label]\n")[1]
    compiled = [line[4:] if line.startswith("    ") else line for line in part.rstrip().splitlines()]
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```cpp\n(.*?)```", readme, flags=re.S)
    assert block, "README.md has no ```cpp block"
    assert block.group(1).rstrip().splitlines() == [line.rstrip() for line in compiled]
