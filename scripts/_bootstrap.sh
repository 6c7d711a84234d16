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

# The Browser test drives Debian's chromium through chromium-driver: install them where they are
# missing and this machine allows it (root with apt); otherwise that test fails saying how.
engram_chromium() {
    if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
        return
    fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "engram: installing chromium and chromium-driver for the Browser test …" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null && apt-get install -y -q chromium chromium-driver >/dev/null; } \
            || echo "engram: could not install chromium; the Browser test will say how to get it" >&2
    fi
}
