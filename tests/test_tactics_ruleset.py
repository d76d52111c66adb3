"""Tactics rulesets: the shipped rules.toml packed exactly as the contract says, every bad input one line at its
place, ``--set`` of monster numbers and rulings, the assumptions, and the valid ranges in the rules doc."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from foury_sim.errors import InputError
from foury_sim.games.tactics import ruleset as R
from foury_sim.rulesfile import load, range_of, ranges_markdown, whole_numbers

DOC = Path(__file__).parent.parent / "docs" / "rules-tactics.md"


@pytest.fixture(scope="module")
def shipped():
    return R.load_ruleset()


def test_shipped_scalars_are_packed_at_their_contract_slots(shipped):
    r = shipped.rules
    assert r.dtype == np.int64 and r.shape == (R.N_R,) == (51,)
    expected = {
        R.R_HP: 10, R.R_AP: 8, R.R_DM_AP: 8, R.R_PLAYER_DICE: 2, R.R_TURN_CAP: 60, R.R_MOVE: 1, R.R_MOVE_COMBAT: 2,
        R.R_ATTACK: 1, R.R_INTERACT: 1, R.R_USE: 1, R.R_FOOD_HEAL: 1, R.R_FOOD_STACK: 10, R.R_POTION_STACK: 3,
        R.R_HEALTH_POTION: 2, R.R_STAMINA_POTION: 4, R.R_REVIVE_AP: 4, R.R_RESURRECT_FACE: 6, R.R_TRAP_DAMAGE: 1,
        R.R_OGRE_BLOW: 3, R.R_HOLY_BOLT: 4, R.R_TELEPORT_RANGE: 8, R.R_BERSERK_DICE: 3, R.R_SHRINE_HEAL: 2,
        R.R_WEAKNESS_AP: 2, R.R_MIGHT: 1, R.R_ELECTRIC: 1, R.R_STORM_DRAIN: 1, R.R_RUNE_SMALL: 2, R.R_RUNE_LARGE: 1,
        R.R_RESURRECT_LOSS: 1, R.R_GAMBLE_HP: 2, R.R_WATER: R.WATER_DOUBLE, R.R_TIES: R.TIES_NOBODY,
        R.R_MODIFIER: R.MOD_ROLL, R.R_SPAWN6: R.SPAWN6_NOTHING, R.R_MYSTERY: R.MYSTERY_DUD,
        R.R_ADVANCING: R.ADV_AWAKE_WITH_PATH, R.R_MON_BLOCK: 1, R.R_OVERHEAL_DECAY: 0,
        R.R_RANGED_ADJ: R.RANGED_ADJ_MELEE, R.R_PLATE_WATER: 8, R.R_WINS_ON_EXIT: 1,
        R.R_REST_SPAWN: R.REST_SPAWN_SKIPPED, R.R_ELECTRIC_TURNS: R.ELECTRIC_DM_TURNS, R.R_REVIVE_LAVA: 0,
        R.R_START_WEAPON: 0, R.R_START_ARMOR: 0, R.R_LAVA_WALK: R.LAVA_WALK_FLYERS, R.R_SPAWN_OPTIONAL: 1,
        R.R_CHICKEN_SIXES: 2, R.R_TRIPLE_SIXES: 3,
    }
    # the contract's fixed slots
    assert (R.R_HP, R.R_ELECTRIC, R.R_WATER, R.R_WINS_ON_EXIT) == (0, 25, 32, 42)
    got = {k: int(r[k]) for k in expected}
    assert got == expected
    assert sorted(expected) == list(range(R.N_R))  # every slot in use


def test_shipped_monster_table_is_the_printed_one(shipped):
    assert shipped.monster_names == ("skeleton", "necromancer", "ghoul", "mummy", "cacodemon", "ogre", "stone_golem",
                                     "storm_golem", "fire_golem", "chicken")
    assert shipped.kind_index == {n: i for i, n in enumerate(shipped.monster_names)}
    U, D, G, H, B = R.K_UNDEAD, R.K_DEMON, R.K_GOLEM, R.K_HUMANOID, R.K_BEAST
    #            hp dice move atk kind large boss range fly lava reviver 666 storm spawn mod resurrects
    expected = np.array([
        [2, 2, 1, 1, U, 0, 0, 0, 0, 0, 0, 0, 0, U, 0, 1],  # skeleton
        [3, 2, 1, 1, U, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0, 0],  # necromancer (boss, revives skeletons)
        [3, 2, 1, 1, U, 0, 0, 0, 0, 0, 0, 0, 0, U, 0, 1],  # ghoul
        [4, 2, 1, 1, U, 0, 0, 0, 0, 0, 0, 0, 0, U, 0, 1],  # mummy
        [5, 3, 2, 1, D, 0, 0, 3, 1, 0, 0, 0, 0, D, 0, 0],  # cacodemon (flies, shoots 3)
        [10, 3, 4, 2, H, 1, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0],  # ogre (large boss, three sixes)
        [8, 2, 2, 1, G, 0, 0, 0, 0, 0, 0, 0, 0, G, 0, 0],  # stone golem
        [8, 2, 2, 1, G, 0, 0, 0, 0, 0, 0, 0, 1, G, 0, 0],  # storm golem
        [8, 2, 2, 1, G, 0, 0, 3, 0, 1, 0, 0, 0, G, 0, 0],  # fire golem (fireballs 3, lava)
        [1, 1, 1, 1, B, 0, 0, 0, 0, 0, 0, 0, 0, -1, -2, 0],  # chicken
    ], dtype=np.int64)
    assert shipped.monsters.shape == (10, R.M_COLS) == (10, 16)
    np.testing.assert_array_equal(shipped.monsters, expected)


def test_shipped_weapons_armour_and_charts(shipped):
    assert shipped.weapon_names == ("bare hands", "mace", "axe", "sword", "spear", "bow", "mage_staff")
    np.testing.assert_array_equal(shipped.weapons, [
        [0, -1, 0, 0, 0], [1, R.K_UNDEAD, 1, 0, 0], [1, R.K_HUMANOID, 1, 0, 0], [1, R.K_DEMON, 1, 0, 0],
        [1, -1, 0, 2, 0], [1, -1, 0, 3, 0], [2, -1, 0, 2, 1]])
    assert shipped.armor_names == ("no armour", "tattered_robes", "quilted_leather", "chain_mail", "plate_mail",
                                   "wooden_buckler", "kite_shield")
    np.testing.assert_array_equal(shipped.armors, [
        [0, 0, 100], [2, 0, 100], [1, 1, 100], [0, 2, 100], [0, 4, 150], [0, 1, 100], [0, 2, 100]])
    c = shipped.charts
    N, L, M, T = R.LOOT_NOTHING, R.LOOT_NORMAL, R.LOOT_MAGIC, R.LOOT_TRAP
    assert list(c[R.C_LOOT_MONSTER:][:6]) == [L, N, N, N, N, N]
    assert list(c[R.C_LOOT_BOSS:][:6]) == [L, L, N, N, N, M]
    assert list(c[R.C_LOOT_BARREL:][:6]) == [L, L, N, N, N, N]
    assert list(c[R.C_LOOT_CHEST:][:6]) == [L, L, L, L, L, T]
    assert list(c[R.C_LOOT_MAGIC_CHEST:][:6]) == [M] * 6
    assert list(c[R.C_LOOT_SARCOPHAGUS:][:6]) == [L, L, N, N, R.LOOT_SPAWN_MUMMY, R.LOOT_SPAWN_SKELETON]
    assert list(c[R.C_NORMAL:][:6]) == [R.N_WEAPON, R.N_ARMOR, R.N_POTION, R.N_FOOD, R.N_FOOD, R.N_FOOD]
    assert list(c[R.C_POTION:][:6]) == [R.PO_HEALTH] * 2 + [R.PO_STAMINA] * 2 + [R.PO_MYSTERY] * 2
    assert list(c[R.C_MAGIC:][:6]) == list(range(6))
    assert list(c[R.C_SHRINE:][:6]) == list(range(6))
    assert list(c[R.C_SPAWN:][:6]) == [R.K_UNDEAD] * 3 + [R.K_GOLEM, R.K_DEMON, R.SPAWN_NOTHING]
    assert list(c[R.C_WEAPON:][:6]) == [1, 2, 3, 4, 5, 6] and list(c[R.C_ARMOR:][:6]) == [1, 2, 3, 4, 5, 6]
    assert (c[R.C_KIND_MUMMY], c[R.C_KIND_SKELETON], c[R.C_KIND_CHICKEN]) == (3, 0, 9)
    assert c.shape == (R.N_C,)


def test_set_changes_one_monster_number_and_one_ruling(shipped):
    rs = R.load_ruleset(None, ["monsters.ogre.hp=12", "monsters.skeleton.dice=3", "rulings.ties=reroll",
                               "rulings.spawn6=any"])
    diff = np.argwhere(rs.monsters != shipped.monsters)
    assert [tuple(d) for d in diff] == [(0, R.M_DICE), (5, R.M_HP)]
    assert rs.monsters[5, R.M_HP] == 12 and rs.monsters[0, R.M_DICE] == 3
    changed = np.flatnonzero(rs.rules != shipped.rules)
    assert list(changed) == [R.R_TIES, R.R_SPAWN6] and rs.rules[R.R_TIES] == R.TIES_REROLL
    assert rs.charts[R.C_SPAWN + 5] == R.SPAWN_ANY  # the printed chart's unspecified 6 follows the ruling
    assert rs.rulings["ties"] == "reroll"
    over = {a.key: a for a in rs.assumptions if a.overridden}
    assert set(over) == {"rulings.ties", "rulings.spawn6"}


@pytest.mark.parametrize("ruling, value, slot, code", [
    ("water", "plate_printed", R.R_WATER, R.WATER_PLATE_PRINTED),
    ("modifier", "damage", R.R_MODIFIER, R.MOD_DAMAGE),
    ("mystery_potion", "gamble", R.R_MYSTERY, R.MYSTERY_GAMBLE),
    ("advancing", "in_sight_only", R.R_ADVANCING, R.ADV_IN_SIGHT_ONLY),
    ("monsters_block", "false", R.R_MON_BLOCK, 0),
    ("overheal_decay", "2", R.R_OVERHEAL_DECAY, 2),
    ("ranged_adjacent", "ranged", R.R_RANGED_ADJ, R.RANGED_ADJ_RANGED),
    ("spawn6", "reroll", R.R_SPAWN6, R.SPAWN6_REROLL),
])
def test_each_ruling_value_lands_in_its_slot(ruling, value, slot, code):
    rs = R.load_ruleset(None, [f"rulings.{ruling}={value}"])
    assert rs.rules[slot] == code


BAD_SETS = [
    ("monsters.ogre.hp=-1", "monsters.ogre.hp = -1 is below 1 (valid range 1..100)"),
    ("monsters.skeleton.dice=7", "monsters.skeleton.dice = 7 is above 6 (valid range 1..6)"),
    ("monsters.ogre.abilities=boss,flying", "monsters.ogre.abilities: unknown ability 'flying'"),
    ("rulings.ties=coin", "rulings.ties: unknown value 'coin' (known: nobody, reroll, player, monster)"),
    ("rulings.monsters_block=1", "rulings.monsters_block must be true or false, got 1"),
    ("monsters.ogre.spawns=true", "monsters.ogre: a boss monster never spawns (spawns must be false)"),
    ("monsters.ghoul.kind=elf", "monsters.ghoul.kind: unknown monster kind 'elf'"),
    ("loot.spawn[4]=dragon", "loot.spawn[4]: unknown spawn category 'dragon'"),
    ("loot.spawn[4]=humanoid", "loot.spawn[4] (face 5): no monster of category 'humanoid' can spawn"),
    ("loot.chest=normal,trap", "loot.chest must list 6 entries, one per face of the d6"),
    ("loot.weapon[0]=club", "loot.weapon[0]: unknown weapon 'club'"),
    ("weapons.mace.vs=dragon", "weapons.mace.vs: unknown monster kind 'dragon'"),
    ("armors.plate_mail.move_pct=20", "armors.plate_mail.move_pct = 20 is below 50"),
    ("player.hp=0", "player.hp = 0 is below 1"),
    ("loot.spawn=unspecified", "loot.spawn must list 6 entries"),
    ("abilities.chicken_sixes=0", "abilities.chicken_sixes = 0 is below 1 (valid range 1..6)"),
    ("abilities.triple_six_sixes=7", "abilities.triple_six_sixes = 7 is above 6 (valid range 1..6)"),
    ("abilities.chicken_sixes=two", "abilities.chicken_sixes"),
]


def test_a_spawn_chart_that_always_rolls_again_is_refused():
    with pytest.raises(InputError) as e:
        R.load_ruleset(None, ["loot.spawn=unspecified,unspecified,unspecified,unspecified,unspecified,unspecified",
                              "rulings.spawn6=reroll"])
    assert e.value.where.startswith("--set loot.spawn=") and "every face rolls again" in str(e.value)
    rs = R.load_ruleset(None, ["loot.spawn=unspecified,unspecified,unspecified,unspecified,unspecified,unspecified"])
    assert list(rs.charts[R.C_SPAWN:][:6]) == [R.SPAWN_NOTHING] * 6


@pytest.mark.parametrize("setting, message", BAD_SETS)
def test_bad_set_is_one_line_naming_the_set(setting, message):
    with pytest.raises(InputError) as e:
        R.load_ruleset(None, [setting])
    assert e.value.where.startswith(f"--set {setting.split('=')[0]}")
    assert message in str(e.value) and "\n" not in str(e.value)


def test_bad_rules_file_points_at_file_line_column(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text("[player]\nhp = 12\n\n[monsters.ogre]\nhp = -3\n")
    with pytest.raises(InputError) as e:
        R.load_ruleset(str(f))
    assert e.value.where == f"{f}:5:1" and "monsters.ogre.hp = -3 is below 1" in str(e.value)
    f.write_text("[monsters.imp]\nhp = 2\ndice = 1\nap_move = 1\nap_attack = 1\nkind = \"demon\"\nsize = \"small\"\n"
                 "range = 0\nattack_mod = 0\nspawns = true\nabilities = [\"teleports\"]\n")
    with pytest.raises(InputError) as e:
        R.load_ruleset(str(f))
    assert e.value.where == f"{f}:11:1" and "unknown ability 'teleports'" in str(e.value)
    f.write_text("[rulings]\nwater = \"swim\"\n")
    with pytest.raises(InputError) as e:
        R.load_ruleset(str(f))
    assert e.value.where == f"{f}:2:1" and "rulings.water: unknown value 'swim'" in str(e.value)
    f.write_text("[monsters.imp]\nhp = 2\n")
    with pytest.raises(InputError) as e:
        R.load_ruleset(str(f))
    assert e.value.where == f"{f}:1:1" and "monsters.imp lacks 'dice'" in str(e.value)


MONSTER = ('hp = 2\ndice = 1\nap_move = 1\nap_attack = 1\nkind = "demon"\nsize = "small"\nrange = 0\nattack_mod = 0\n'
           'spawns = true\nabilities = []\n')


@pytest.mark.parametrize("text, line, message", [
    # 10 shipped monsters + 23: the 33rd is the 23rd the file adds (12 lines each), at its header
    ("".join(f"[monsters.m{i}]\n{MONSTER}\n" for i in range(23)), 22 * 12 + 1,
     "monsters: a table of 1..32 monsters, not 33 ('m22' is kind 33)"),
    ('[weapons.club]\nbonus = 1\nvs = ""\nvs_bonus = 0\nreach = 0\nchicken = false\n', 1,
     "weapons: a table of 1..6 kinds (the chart is a d6), not 7 ('club' is kind 7)"),
    ("armors.a1.ap = 0\narmors.a1.defense = 0\n", 1,
     "armors: a table of 1..6 kinds (the chart is a d6), not 7 ('a1' is kind 7)"),
    ("# my imp\nmonsters.imp.hp = 2\n\n[player]\nhp = 12\n", 2, "monsters.imp lacks 'dice'"),
])
def test_a_table_a_user_file_spells_out_only_by_its_entries_is_placed_at_its_line(tmp_path, text, line, message):
    """A user's file adds a monster, a weapon, an armour as a table of its own (``[monsters.imp]``) or dotted keys
    (``monsters.imp.hp = 2``): it never names the table itself, and a fault of the table (one kind too many, a
    monster short of a field) was placed at the file alone. It is at the first kind too many, or at the first line
    inside the table."""
    f = tmp_path / "mine.toml"
    f.write_text(text)
    with pytest.raises(InputError) as e:
        R.load_ruleset(str(f))
    assert e.value.where == f"{f}:{line}:1"
    assert e.value.message.startswith(message)


def test_a_user_monster_is_added_after_the_shipped_ones(tmp_path):
    f = tmp_path / "imp.toml"
    f.write_text("[monsters.imp]\nhp = 2\ndice = 1\nap_move = 1\nap_attack = 1\nkind = \"demon\"\nsize = \"small\"\n"
                 "range = 2\nattack_mod = 1\nspawns = true\nabilities = [\"flies\"]\n")
    rs = R.load_ruleset(str(f))
    assert rs.monster_names[-1] == "imp" and rs.kind_index["imp"] == 10
    assert list(rs.monsters[10]) == [2, 1, 1, 1, R.K_DEMON, 0, 0, 2, 1, 0, 0, 0, 0, R.K_DEMON, 1, 0]


def test_a_chart_may_repeat_faces():
    rs = R.load_ruleset(None, ["loot.weapon=mace,mace,mace,bow,bow,bow", "loot.potion[4]=health"])
    assert list(rs.charts[R.C_WEAPON:][:6]) == [1, 1, 1, 5, 5, 5]
    assert list(rs.charts[R.C_POTION:][:6]) == [R.PO_HEALTH] * 2 + [R.PO_STAMINA] * 2 + [R.PO_HEALTH, R.PO_MYSTERY]


def test_assumptions_are_listed_with_their_plausible_values(shipped):
    got = {a.key: (a.value, a.range, a.alternatives) for a in shipped.assumptions if a.key.split(".")[0] != "level"}
    assert got == {
        "game.turn_cap": (60, [40, 120], []),
        "items.gamble_hp": (2, [1, 3], []),
        "monsters.chicken.dice": (1, [1, 2], []),
        "monsters.chicken.ap_move": (1, None, []),
        "monsters.chicken.ap_attack": (1, None, []),
        "monsters.chicken.kind": ("beast", None, []),
        "weapons.spear.reach": (2, None, [1]),
        "armors.plate_mail.move_pct": (150, None, [200]),
        "rulings.water": ("double", None, ["plate_printed"]),
        "rulings.ties": ("nobody", None, ["reroll", "player", "monster"]),
        "rulings.modifier": ("roll", None, ["damage"]),
        "rulings.spawn6": ("nothing", None, ["any", "reroll"]),
        "rulings.mystery_potion": ("dud", None, ["health", "stamina", "gamble"]),
        "rulings.advancing": ("awake_with_path", None, ["in_sight_only"]),
        "rulings.monsters_block": (True, None, [False]),
        "rulings.overheal_decay": (0, [0, 2], []),
        "rulings.ranged_adjacent": ("melee", None, ["ranged"]),
        "rulings.rest_spawn": ("skipped", None, ["rolled"]),
        "rulings.electric_turns": ("dm", None, ["every"]),
        "rulings.revive_lava": (False, None, [True]),
        "rulings.lava_walk": ("flyers", None, ["immune_too"]),
    }
    # every ruling is an assumption with every other option as an alternative
    for name, (_slot, values) in R.RULINGS.items():
        if values:
            a = next(a for a in shipped.assumptions if a.key == f"rulings.{name}")
            assert [a.value, *a.alternatives] == list(values)
    assert R.heroes(shipped) == ["adventurer"]



def test_every_number_has_a_valid_range_documented_in_the_rules_doc():
    shipped = load(R.DEFAULT_RULES).data
    used = set()
    for key, v in whole_numbers(shipped):
        lo, hi = range_of(R.RANGES, key)
        assert lo <= v <= hi, key
        for pat in R.RANGES:
            try:
                range_of({pat: (0, 0)}, key)
            except KeyError:
                continue
            used.add(pat)
            break
    assert used == set(R.RANGES)
    text = DOC.read_text()
    table = text.split("<!-- valid-ranges:begin -->\n", 1)[1].split("<!-- valid-ranges:end -->", 1)[0]
    assert table == ranges_markdown(R.RANGES)


def test_every_ruling_and_option_is_in_the_rules_doc():
    text = DOC.read_text()
    for name, (_slot, values) in R.RULINGS.items():
        assert f"`rulings.{name} = " in text, name
        for v in values or ():
            assert f'"{v}"' in text, (name, v)


def test_an_unknown_level_is_one_line_naming_the_map_option():
    with pytest.raises(InputError) as e:
        R.load_ruleset(None, None, "no_such_level_anywhere")
    assert e.value.where.startswith("--map") and "\n" not in str(e.value)


def test_the_level_is_the_map_option_packed_with_the_rulesets_monster_rows(shipped, tmp_path):
    from foury_sim.games.tactics.level import load_level, pack_level

    assert R.DEFAULT_LEVEL == "crypt" and shipped.level.path.endswith("crypt.txt")
    np.testing.assert_array_equal(shipped.lv, pack_level(load_level("crypt"), shipped.kind_index))
    ogre = R.load_ruleset(None, None, "ogre")
    assert ("ogre", 149) in ogre.level.monsters and ogre.lv.dtype == np.int64
    # a monster a user's rules file adds may stand in a level file
    rules = tmp_path / "imp.toml"
    rules.write_text("[monsters.imp]\nhp = 2\ndice = 1\nap_move = 1\nap_attack = 1\nkind = \"demon\"\n"
                     "size = \"small\"\nrange = 0\nattack_mod = 0\nspawns = true\nabilities = []\n")
    level = tmp_path / "imp.txt"
    level.write_text("name: imp room\n\ngrid:\n#####\n#@.>#\n#...#\n#####\n\nmonster: imp 3,3\n")
    rs = R.load_ruleset(str(rules), None, str(level))
    assert rs.level.monsters == [("imp", 12)]
    lv_mon = list(rs.lv[-2:])
    assert lv_mon == [rs.kind_index["imp"], 12]
    with pytest.raises(InputError) as e:
        R.load_ruleset(None, None, str(level))  # without the rules file the imp is unknown
    assert e.value.where.startswith(f"{level}:9:") and "\n" not in str(e.value)


def test_every_plausible_value_is_a_valid_value(shipped):
    """Each assumption's range lies in the valid range and each alternative loads (a robustness study never picks
    a value the engine refuses)."""
    found = [a for a in shipped.assumptions if not a.key.startswith("level.")]
    for a in found:
        if a.range is not None:
            lo, hi = range_of(R.RANGES, a.key)
            assert lo <= a.range[0] <= a.range[1] <= hi, a.key
        for alt in a.alternatives:
            rs = R.load_ruleset(None, {a.key: alt})
            assert next(x for x in rs.assumptions if x.key == a.key).value == alt


def test_run_options_are_kept_for_the_engine():
    assert R.load_ruleset(None, None, None, dm="ruthless").options == {"dm": "ruthless"}


def test_fuzzed_rules_files_and_sets_load_or_are_refused_at_their_place(tmp_path):
    """Seeded mutations of rules.toml (the shared fuzz's mutations) and --set values: each loads, or is refused in
    one line naming the file (line, column) or --set KEY; never a traceback."""
    import random

    from test_fuzz_rules import BAD_TOKENS, HUGE, _check_where, _leaves, _mutate_text

    shipped = load(R.DEFAULT_RULES)
    keys = _leaves(shipped.data)
    refused = 0
    for n in range(60):
        rng = random.Random(f"tactics-{n}")
        if n % 3 == 0:
            key = rng.choice(keys)
            value = rng.choice(BAD_TOKENS + [str(h) for h in HUGE] + ["undead", "any", "boss", "reroll"])
            case, place, args = f"--set {key}={value}", "--set", (None, [f"{key}={value}"])
        else:
            text, case = _mutate_text(rng, shipped.text)
            f = tmp_path / f"m{n}.toml"
            f.write_bytes(text if isinstance(text, bytes) else text.encode())
            place, args = str(f), (str(f),)
        try:
            R.load_ruleset(*args)
        except InputError as e:
            refused += 1
            _check_where(e, case, place)
    assert 20 <= refused < 60


def test_a_placed_monster_on_lava_must_fly_or_ignore_lava():
    forge = R.load_ruleset(None, None, "forge")
    assert ("fire_golem", 201) in forge.level.monsters and forge.level.tile[201] == 5  # T_LAVA
    with pytest.raises(InputError) as e:
        R.load_ruleset(None, ["monsters.fire_golem.abilities=[]"], "forge")
    assert e.value.where.startswith(forge.level.path + ":") and "a fire golem cannot stand on lava" in str(e.value)
    R.load_ruleset(None, ["monsters.fire_golem.abilities=[\"flies\"]"], "forge")  # flying will do


UNDEAD_OFF = ["monsters.skeleton.spawns=false", "monsters.mummy.spawns=false", "monsters.ghoul.spawns=false",
              "monsters.necromancer.spawns=false"]


def test_a_spawn_category_the_user_emptied_is_blamed_on_the_users_change(tmp_path):
    """No undead can spawn because the user's ``--set`` or rules file turned their ``spawns`` off (or moved one
    to another kind): the error names that change, not the shipped chart's line (it said rules.toml:300)."""
    with pytest.raises(InputError) as e:
        R.load_ruleset(None, UNDEAD_OFF)
    assert e.value.where == "--set monsters.skeleton.spawns=false"
    assert "loot.spawn[0] (face 1): no monster of category 'undead' can spawn" in e.value.message
    f = tmp_path / "r.toml"
    f.write_text('[monsters.skeleton]\nspawns = false\n[monsters.ghoul]\nspawns = false\n[monsters.mummy]\n'
                 'kind = "demon"\n')
    with pytest.raises(InputError) as e:
        R.load_ruleset(str(f))
    assert e.value.where == f"{f}:2:1" and "category 'undead'" in e.value.message
    every = [f"monsters.{n}.spawns=false" for n in R.load_ruleset().monster_names]
    with pytest.raises(InputError) as e:  # (every category and 'any' empty: the first face's category is said)
        R.load_ruleset(None, every)
    assert e.value.where.startswith("--set monsters.")
