"""The operating-system side of the local Neo4j: its process (is it ours, is it alive, stop it)
and its Bolt port (free, open)."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

from graph.store.local.launcher_class import is_launcher_command


def is_our_launcher(pid: int, home: Path) -> bool:
    cmdline = command_line(pid)
    return is_launcher_command(cmdline) and str(home).encode() in cmdline


def command_line(pid: int) -> list[bytes]:
    """The arguments process `pid` was started with (none when it is gone or not ours to read)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []


def running_command_lines() -> Iterator[list[bytes]]:
    """The arguments of every running process."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            yield command_line(int(entry.name))


def port_of(uri: str) -> int:
    return int(uri.rpartition(":")[2])


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        # As Neo4j binds (SO_REUSEADDR): connections a killed server left in TIME_WAIT do not
        # keep it from its port, only a listener does.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def port_open(uri: str) -> bool:
    host, _, port = uri.removeprefix("bolt://").rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=2):
            return True
    except (OSError, ValueError):
        return False


def terminate(pid: int, timeout: float) -> None:
    """SIGTERM the launcher (its shutdown hook closes the store cleanly), SIGKILL if it hangs."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return
        time.sleep(0.1)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    while alive(pid):
        time.sleep(0.1)


def alive(pid: int) -> bool:
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        waited = 0  # not our child: fall back to probing
    if waited == pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie whose parent has not reaped it yet is gone for our purposes.
    try:
        status = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return status != "Z"
