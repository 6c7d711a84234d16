# Sourced by scripts/serve and scripts/test: makes .venv hold Engram and its pinned dependencies.
# Re-installs only when pyproject.toml (or the wanted extras) changed since the last install.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

engram_bootstrap() {
    local extras="$1" python="${PYTHON:-python3}"
    if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "engram: Python 3.11 or newer is needed (set PYTHON=/path/to/python3.11)" >&2
        exit 2
    fi
    if [ ! -x .venv/bin/python ]; then
        "$python" -m venv .venv
    fi
    local want stamp=.venv/.engram-install
    want="$(sha256sum pyproject.toml | cut -d' ' -f1) ${extras}"
    if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        echo "engram: installing dependencies into .venv …" >&2
        .venv/bin/python -m pip install --quiet --disable-pip-version-check --editable ".${extras}"
        echo "$want" > "$stamp"
    fi
}
