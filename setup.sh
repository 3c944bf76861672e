#!/usr/bin/env bash
# Creates .venv/ at the repository root with adaptsched installed (editable) and the
# console script .venv/bin/adaptsched. Needs only Python >= 3.10 (3.11 tested), pip
# and the package registries. Safe to run again: it does nothing when up to date.
#
# pybatsim 3.2.1 pins pyzmq<23, which does not build on Python 3.11, so it is
# installed with --no-deps; its real dependencies (pyzmq, procset,
# sortedcontainers, docopt) come with adaptsched's own requirements (setup.cfg).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
python="${PYTHON:-python3}"
venv="$here/.venv"
stamp="$venv/.adaptsched-setup"

if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null; then
    echo "setup.sh: $python is missing or older than 3.10; set PYTHON=/path/to/python3.11" >&2
    exit 1
fi

if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$stamp" -nt setup.cfg ] && [ "$stamp" -nt setup.sh ]; then
    exit 0   # already set up
fi

if [ ! -x "$venv/bin/python" ]; then
    echo "setup.sh: creating $venv" >&2
    if ! "$python" -m venv "$venv" 2>/dev/null; then
        # Debian without python3-venv: fall back to virtualenv from PyPI.
        rm -rf "$venv"
        "$python" -m pip install --user --quiet virtualenv
        "$python" -m virtualenv --quiet "$venv"
    fi
fi

pip=("$venv/bin/python" -m pip --disable-pip-version-check)
echo "setup.sh: installing adaptsched (editable) and its dependencies" >&2
"${pip[@]}" install --quiet -e ".[test]"
# Last, so that pip's resolver never sees (and complains about) the stale pin.
echo "setup.sh: installing pybatsim 3.2.1 (without its stale pyzmq<23 pin)" >&2
"${pip[@]}" install --quiet --no-deps "pybatsim==3.2.1"
"$venv/bin/python" -c "import batsim.batsim, zmq, evalys, adaptsched" >/dev/null
touch "$stamp"
echo "setup.sh: ready: $venv/bin/adaptsched" >&2
