"""``python -m foury_sim``: the ``foury-sim`` command line (handy in a checkout that is not installed)."""

from .cli import main

main()
