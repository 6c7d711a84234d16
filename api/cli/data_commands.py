"""The `engram` commands that move data in and out: import, embed, backup, restore, retention.

Plain functions; `api.cli.main` registers them under the names in `COMMANDS`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from api.cli.console import err, out, with_memory
from graph.domain.actor import Actor
from graph.domain.errors import SetupError

if TYPE_CHECKING:
    from graph.memory import Memory


@contextmanager
def _bar() -> Iterator[Any]:
    """A rich progress bar with a count and the time left, on stderr."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
    ) as bar:
        yield bar


def import_file(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="JSONL memory items.")],
    space: Annotated[str, typer.Option(help="The memory space to import into.")],
    batch_size: Annotated[int, typer.Option(min=1, max=5000, help="Items per transaction.")] = 200,
    report: Annotated[
        Path | None, typer.Option(help="Also write the report as JSON to this file.")
    ] = None,
    strict: Annotated[bool, typer.Option(help="Exit 2 if any line was refused.")] = False,
) -> None:
    """Import memory items (one JSON object per line); idempotent, with a report of refusals."""
    # Bytes that are no UTF-8 stay as surrogate escapes: their line is refused, by its number.
    lines = file.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    with _bar() as bar:
        task = bar.add_task(f"importing {file.name}", total=len(lines))

        def progress(done: int) -> None:
            bar.update(task, completed=done)

        result = with_memory(
            lambda memory: memory.admin.import_items(
                Actor.operator("cli:import"),
                space,
                lines,
                source=file.name,
                batch_size=batch_size,
                progress=progress,
            )
        )
        bar.update(task, completed=len(lines))
    out.print(
        f"{result.lines} lines: {result.remembered} remembered ({result.retracted} then "
        f"retracted), {result.already_known} already known, {len(result.skipped)} skipped, "
        f"{len(result.refused)} refused"
    )
    for refusal in [*result.skipped, *result.refused]:
        out.print(f"  line {refusal.line}: {refusal.code}: {refusal.message}", markup=False)
    if report is not None:
        report.write_text(json.dumps(result.as_dict(), indent=2) + "\n")
    if strict and result.refused:
        raise typer.Exit(2)


def embed_command() -> None:
    """Compute the meaning vectors of every claim waiting for one (what `engram serve` does in
    the background), e.g. after an import or a restore."""
    with _bar() as bar:

        async def work(memory: Memory) -> int:
            task = bar.add_task("embedding claims", total=await memory.admin.count_unembedded())
            return await memory.admin.embed_pending(
                progress=lambda done: bar.update(task, completed=done), every_space=True
            )

        stored = with_memory(work, embed_threads=2)
    out.print(f"embedded {stored} claims")


@contextmanager
def _phases() -> Iterator[Callable[[str, int, int], None]]:
    """A progress bar per phase (`progress(phase, done, total)`), on stderr."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress

    with Progress(
        "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(), console=err
    ) as bar:
        tasks: dict[str, Any] = {}

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            bar.update(tasks[phase], completed=done, total=max(total, done))

        yield progress


def backup_command(
    file: Annotated[Path, typer.Argument(dir_okay=False, help="Where to write the archive.")],
) -> None:
    """Write a portable, checksummed backup (data, tombstone ledger, blobs) to FILE."""
    with _phases() as progress:
        report = with_memory(lambda memory: memory.admin.backup(file, progress=progress))
    out.print(
        f"backup {file}: {report.bytes} bytes, {report.nodes} nodes, {report.relationships} "
        f"relationships, {report.blobs} blobs, {report.tombstones} tombstones; covers recorded "
        f"time up to {report.watermark.isoformat()} (RPO); took {report.seconds:.1f} s",
        markup=False,
    )


def restore_command(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A backup archive.")],
    into: Annotated[
        Path, typer.Option(help="An empty or new directory: a new local Neo4j is restored there.")
    ],
    ledger: Annotated[
        bool,
        typer.Option(help="Replay the live Engram's tombstone ledger (the configured Neo4j)."),
    ] = True,
    keep_running: Annotated[bool, typer.Option(help="Leave the restored Neo4j running.")] = False,
) -> None:
    """Restore FILE into an isolated new Neo4j under --into, replay tombstones, verify.

    A damaged archive is refused before anything is started or created.
    """
    from graph.memory import Memory, check_archive
    from graph.runtime import LocalNeo4j, get_settings

    check_archive(file)
    settings = get_settings()
    if into.exists() and any(into.iterdir()):
        raise SetupError(f"{into} is not empty; restore into a new or empty directory")
    # Absolute: the restored Neo4j runs in a directory of its own.
    target_settings = settings.model_copy(update={"data_dir": into.absolute(), "neo4j_uri": None})
    target_server = LocalNeo4j(target_settings)

    async def main() -> Any:
        async with await Memory.open(target_settings) as target:
            live = await Memory.open(settings) if ledger else None
            try:
                with _phases() as progress:
                    ledger_admin = live.admin if live is not None else None
                    return await target.admin.restore(file, ledger=ledger_admin, progress=progress)
            finally:
                if live is not None:
                    await live.close()

    try:
        report = asyncio.run(main())
    finally:
        if not keep_running:
            target_server.stop()
    out.print(
        f"restored {file} into {into}: {report.nodes} nodes, {report.relationships} "
        f"relationships, {report.blobs} blobs; replayed {report.replayed_tombstones} tombstones; "
        f"archive {report.archive_bytes} bytes; RPO {report.watermark.isoformat()}; "
        f"RTO {report.seconds:.1f} s",
        markup=False,
    )
    for check, outcome in report.checks.items():
        out.print(f"  {check}: {outcome}", markup=False)
    out.print(f"serve it with: ENGRAM_DATA_DIR={into} engram serve", markup=False)


def retention_command(
    action: Annotated[str, typer.Argument(help="run")],
    dry_run: Annotated[bool, typer.Option(help="List what would happen; change nothing.")] = False,
    policy: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            dir_okay=False,
            help='JSON policies, e.g. {"event": {"archive_after_days": 180, '
            '"purge_after_days": 730}}',
        ),
    ] = None,
    space: Annotated[list[str] | None, typer.Option(help="Only these spaces (repeatable).")] = None,
) -> None:
    """Archive and purge per the retention policies (never pinned, open, committed or held)."""
    from graph.memory import parse_policies

    if action != "run":
        raise typer.BadParameter("the only action is `run`")
    policies = parse_policies(policy.read_text()) if policy else None

    async def work(memory: Memory) -> Any:
        names = space or [s.name for s in await memory.admin.all_spaces()]
        return await memory.forgetting.run_retention(
            Actor.operator("cli:retention"), names, policies=policies, dry_run=dry_run
        )

    for report in with_memory(work):
        verb = "would" if dry_run else "did"
        out.print(
            f"{report.space}: {verb} archive {len(report.archived)}, {verb} purge "
            f"{len(report.purged)}, skip {len(report.skipped)}",
            markup=False,
        )
        for key in report.archived:
            out.print(f"  archive {key}", markup=False)
        for key in report.purged:
            out.print(f"  purge   {key}", markup=False)
        for key, why in report.skipped:
            out.print(f"  keep    {key} ({why})", markup=False)


COMMANDS: dict[str, Callable[..., None]] = {
    "import": import_file,
    "embed": embed_command,
    "backup": backup_command,
    "restore": restore_command,
    "retention": retention_command,
}
