"""Compiled kernels are cached under a directory keyed by the hash of their sources.

Numba checks only the timestamp of a cached function's own file; a kernel cached elsewhere would
be reused after an edit to a rule it calls in another file (a stale kernel)."""

from __future__ import annotations

from pathlib import Path

from foury_sim.config import _base_dir, _source_hash


def _keyed_dir(package: str) -> Path:
    return Path(_base_dir()) / f"{package.replace('/', '_')}-{_source_hash((package,))}"


def test_delve_kernel_cache_is_keyed_by_sources():
    from foury_sim.games.delve.engine import kernel

    assert Path(kernel()._cache._cache_path).parent == _keyed_dir("games/delve")


def test_foury_kernels_cache_is_keyed_by_sources():
    from foury_sim.games.foury import kernel as K

    for fn in (K.simulate_kernel, K.play_one):
        assert Path(fn._cache._cache_path).parent == _keyed_dir("games/foury")
