"""foury-sim: Monte Carlo balance analysis for dungeon-crawler board games.

The library API a notebook uses is the same the CLI calls:

* ``foury_sim.runner.run(game, hero=..., policy=..., games=..., seed=...)`` -> RunResult
* ``foury_sim.study.run_sweep("experiments/NAME.toml")`` / ``load_experiment`` / ``compare``
* ``foury_sim.report.load_results("results/NAME")`` / ``build_report``
* ``foury_sim.registry.get_game(NAME)`` -> the game's spec (rules, policies, outputs, replay, odds, board);
  ``foury_sim.registry.games()`` lists the names
"""

__version__ = "0.1.0"
