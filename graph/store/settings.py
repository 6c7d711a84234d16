"""Engram's one settings object, read once from the environment.

`NEO4J_URI` (with `NEO4J_USER`, `NEO4J_PASSWORD`, `NEO4J_DATABASE`) selects an existing Neo4j;
without it Engram starts its own local Neo4j under `ENGRAM_DATA_DIR`.

    >>> settings = get_settings()
    >>> settings.uses_local_neo4j
    True
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graph.domain.errors import SetupError

_SETTING_NAME = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)+")
"""A neo4j.conf setting's name: dotted lower-case words."""

NEO4J_VERSION = "5.26.30"
"""The Neo4j Community LTS release the local server runs (newest 5.26.x on Maven Central)."""

NEO4J_BROWSER_VERSION = "5.24.0"
"""Newest `org.neo4j.client:neo4j-browser` on Maven Central."""


def _default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("engram"))


def _default_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("engram"))


class Settings(BaseSettings):
    """Everything configurable, with the environment variable that sets it."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    neo4j_uri: str | None = Field(default=None, validation_alias=AliasChoices("NEO4J_URI"))
    neo4j_user: str = Field(default="neo4j", validation_alias=AliasChoices("NEO4J_USER"))
    neo4j_password: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("NEO4J_PASSWORD")
    )
    neo4j_database: str = Field(default="neo4j", validation_alias=AliasChoices("NEO4J_DATABASE"))

    data_dir: Path = Field(
        default_factory=_default_data_dir, validation_alias=AliasChoices("ENGRAM_DATA_DIR")
    )
    cache_dir: Path = Field(
        default_factory=_default_cache_dir, validation_alias=AliasChoices("ENGRAM_CACHE_DIR")
    )
    neo4j_port: int = Field(
        default=0, ge=0, le=65535, validation_alias=AliasChoices("ENGRAM_NEO4J_PORT")
    )
    """Bolt port of the local Neo4j; 0 picks a free one."""
    neo4j_heap: str = Field(default="1g", validation_alias=AliasChoices("ENGRAM_NEO4J_HEAP"))
    neo4j_pagecache: str = Field(
        default="256m", validation_alias=AliasChoices("ENGRAM_NEO4J_PAGECACHE")
    )
    neo4j_jvm_options: str = Field(
        default="", validation_alias=AliasChoices("ENGRAM_NEO4J_JVM_OPTIONS")
    )
    """Extra JVM options for the local Neo4j, space-separated, each starting with `-` (the test
    suite's short-lived servers pass `-XX:TieredStopAtLevel=1`: warming up C2 costs them more
    than it returns)."""
    neo4j_config: str = Field(default="", validation_alias=AliasChoices("ENGRAM_NEO4J_CONFIG"))
    """Extra neo4j.conf settings of the local Neo4j, space-separated `key=value` pairs (the test
    suite's servers keep their query plans: its data is emptied before every test, and Neo4j
    would plan each query again for the new statistics)."""
    neo4j_start_timeout: float = Field(
        default=180.0, gt=0, validation_alias=AliasChoices("ENGRAM_NEO4J_START_TIMEOUT")
    )
    java: str = Field(default="", validation_alias=AliasChoices("ENGRAM_JAVA"))
    """Java executable for the local Neo4j; empty means $JAVA_HOME/bin/java, then `java`."""

    host: str = Field(default="127.0.0.1", validation_alias=AliasChoices("ENGRAM_HOST"))
    port: int = Field(default=8000, ge=0, le=65535, validation_alias=AliasChoices("ENGRAM_PORT"))
    browser: bool = Field(default=True, validation_alias=AliasChoices("ENGRAM_BROWSER"))
    """Serve Neo4j Browser at /browser (fetched from Maven Central on first use)."""
    dev: bool = Field(default=False, validation_alias=AliasChoices("ENGRAM_DEV"))
    """Dev mode: GraphiQL and introspection on, no API key needed. Printed at start-up."""
    blob_root: Path | None = Field(default=None, validation_alias=AliasChoices("ENGRAM_BLOB_ROOT"))
    """Controlled root of blob artifacts; default `<data dir>/blobs`."""
    request_timeout: float = Field(
        default=30.0, gt=0, validation_alias=AliasChoices("ENGRAM_REQUEST_TIMEOUT")
    )
    embed_interval: float = Field(
        default=1.0, ge=0, validation_alias=AliasChoices("ENGRAM_EMBED_INTERVAL")
    )
    """Seconds between polls of the embedding outbox by `engram serve`; 0 turns the worker off
    (then `engram embed` fills in meaning vectors)."""
    embed_threads: int = Field(
        default=2, ge=1, le=64, validation_alias=AliasChoices("ENGRAM_EMBED_THREADS")
    )
    """Threads `engram serve` computes meaning vectors on (each runs one group of texts at a
    time): two keep up with about 600 claims/s on two free cores."""
    max_depth: int = Field(default=12, ge=2, validation_alias=AliasChoices("ENGRAM_MAX_DEPTH"))
    max_aliases: int = Field(default=20, ge=1, validation_alias=AliasChoices("ENGRAM_MAX_ALIASES"))
    max_tokens: int = Field(default=2000, ge=50, validation_alias=AliasChoices("ENGRAM_MAX_TOKENS"))
    max_body_bytes: int = Field(
        default=1_048_576, ge=1024, validation_alias=AliasChoices("ENGRAM_MAX_BODY_BYTES")
    )
    """Largest request body accepted (413 beyond it, before anything is parsed); a full
    `rememberMany` of 1000 claims fits in well under 1 MiB."""
    max_in_flight: int = Field(
        default=16, ge=1, validation_alias=AliasChoices("ENGRAM_MAX_IN_FLIGHT")
    )
    """GraphQL requests served at once (by all `workers` together: each process admits its
    share); more wait `in_flight_wait` for a turn, then get 503. Neo4j (and two CPU cores)
    answer a few heavy reads faster than hundreds fighting at once; keep it well below the
    driver's pool of 50 connections, so no request waits for one."""
    workers: int = Field(default=1, ge=1, le=32, validation_alias=AliasChoices("ENGRAM_WORKERS"))
    """Processes `engram serve` answers requests in, each with its own app and driver on one
    listening socket (uvicorn's workers): one uses at most one core for Python's work, so a
    server with more cores (and the CPU for Neo4j beside it) serves more clients with more.
    The embedding worker and the start-up drain of the forget outbox run in one of them."""
    in_flight_wait: float = Field(
        default=2.0, ge=0, validation_alias=AliasChoices("ENGRAM_IN_FLIGHT_WAIT")
    )
    """Seconds a request beyond `max_in_flight` waits for a turn before 503 + Retry-After."""
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="INFO", validation_alias=AliasChoices("ENGRAM_LOG_LEVEL")
    )
    """Level of Engram's log (access lines, refused requests, failures) under `engram serve`."""

    @field_validator("data_dir", "cache_dir", "blob_root")
    @classmethod
    def _directories_are_absolute(cls, value: Path | None) -> Path | None:
        # The local Neo4j runs in a directory of its own: a relative path would name another.
        return None if value is None else value.expanduser().absolute()

    @field_validator("neo4j_uri")
    @classmethod
    def _uri_scheme_is_known(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        schemes = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")
        if not value.startswith(schemes):
            raise ValueError(
                f"NEO4J_URI must start with one of {', '.join(schemes)}; got {value!r}"
            )
        return value

    @field_validator("neo4j_jvm_options")
    @classmethod
    def _jvm_options_are_options(cls, value: str) -> str:
        for option in value.split():
            if not option.startswith("-"):
                raise ValueError(
                    f"ENGRAM_NEO4J_JVM_OPTIONS holds JVM options, each starting with '-'; "
                    f"got {option!r}"
                )
        return value

    @field_validator("neo4j_config")
    @classmethod
    def _config_is_settings(cls, value: str) -> str:
        for pair in value.split():
            key, equals, setting = pair.partition("=")
            if not (equals and setting and _SETTING_NAME.fullmatch(key)):
                raise ValueError(
                    f"ENGRAM_NEO4J_CONFIG holds neo4j.conf settings as key=value; got {pair!r}"
                )
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _log_level_in_any_case(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @property
    def in_flight_per_worker(self) -> int:
        """The requests each of the `workers` processes serves at once: its share of
        `max_in_flight`, at least one."""
        return max(1, self.max_in_flight // self.workers)

    @property
    def uses_local_neo4j(self) -> bool:
        return self.neo4j_uri is None

    @property
    def neo4j_home(self) -> Path:
        return self.data_dir / "neo4j"

    @property
    def blobs(self) -> Path:
        return self.blob_root or self.data_dir / "blobs"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings, read from the environment on first use."""
    try:
        return Settings()
    except ValidationError as failure:
        problems = "; ".join(
            f"{'.'.join(map(str, error['loc'])) or 'settings'}: {error['msg']}"
            for error in failure.errors()
        )
        raise SetupError(f"invalid configuration: {problems}") from None
