"""``python -m foury_sim.games.rooms [--hero NAME | --monsters] [--rules FILE] [--set KEY=VALUE]``: Rooms' exact odds
tables (``dice.main``). The package's own entry, so that Python does not run ``dice``, which the package has imported
already, a second time as ``__main__`` (``python -m foury_sim.games.rooms.dice`` still works, with runpy's warning)."""

import sys

if __name__ == "__main__":  # (a tool that imports every module of the package runs nothing)
    from .dice import main

    sys.exit(main())
