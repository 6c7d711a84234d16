"""The command line in a real terminal: `engram explain` run in a pseudo-terminal of 80 columns
prints the README's example exactly — no colours, no lines cut at the terminal's width."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import termios
from pathlib import Path

from graph.runtime import Graph, Neo4jTarget, Settings
from tests.people_story import people_story
from tests.support import ENGRAM, engram_env

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
[EXPLAINED] = re.findall(r"```\n(Alice \(entity:person:alice\) → Carol .*?)```", README, re.S)


def in_terminal(env: dict[str, str], *args: str, columns: int = 80) -> tuple[int, str]:
    """Run `engram *args` with a pseudo-terminal of `columns` as its stdin, stdout and stderr;
    its exit status and everything the terminal received (line ends as the terminal sends them
    back, `\\r\\n`, made `\\n`)."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    shown = {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    process = subprocess.Popen(
        [*ENGRAM, *args],
        env=shown | {"TERM": "xterm-256color"},
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        close_fds=True,
    )
    os.close(terminal)
    received = bytearray()
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: every writer of the terminal has closed it
            break
        if not chunk:
            break
        received += chunk
    os.close(controller)
    return process.wait(timeout=120), received.decode().replace("\r\n", "\n")


async def test_engram_explain_in_an_80_column_terminal_prints_the_readmes_example(
    graph: Graph, test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    await people_story(graph)
    env = engram_env(test_settings, neo4j_target)

    status, shown = in_terminal(
        env, "explain", "Alice", "Carol", "--space", "alice", "--as-of", "2024-01-01T00:00:00Z"
    )

    assert status == 0, shown
    assert "\x1b[" not in shown, "no escape codes in the answer"
    assert shown == EXPLAINED
