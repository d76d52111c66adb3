"""``python -m foury_sim``: the ``foury-sim`` command line (handy in a checkout that is not installed)."""

import sys

try:
    from .cli import entry
except KeyboardInterrupt:  # Ctrl-C while the command line is still loading: nothing started
    sys.stderr.write("foury-sim: interrupted: nothing was started; re-run the same command\n")
    sys.exit(130)

entry()
