"""rcaeval.store.checkpoint runs under a lower memory limit, so the vacuum merge of many small
row groups (one per judging chunk) is written out instead of held (docs/store.md,
"Checkpoints")."""

from __future__ import annotations

import subprocess
import sys

import duckdb

import rcaeval.store as st

# A store whose `j` has 32 row groups of 1,000 wide rows (~19 KB of text each, ~600 MiB in
# all), as a bulk judge's eval_judgment has one per chunk; then one checkpoint that merges
# them. Prints how far the process's peak memory rose above what it held before that checkpoint
# (MiB; the peak reset through /proc/self/clear_refs), the row groups left, the rows and the
# memory limit afterwards.
MERGE = """
import sys
import rcaeval.store as st

s = st.connect(sys.argv[1], memory_limit="4GB", threads=2)
con = s.con
con.execute("SET enable_progress_bar = false")
con.execute("SET max_vacuum_tasks = 0")
con.execute("CREATE TABLE j (i BIGINT, js VARCHAR)")
for k in range(32):
    con.execute("INSERT INTO j SELECT range, repeat(md5(range::VARCHAR), 600)"
                " FROM range(?, ?)", [k * 1000, k * 1000 + 1000])
    con.execute("CHECKPOINT")
con.execute("RESET max_vacuum_tasks")
con.execute("INSERT INTO j VALUES (-1, 'x')")
def status(key):
    with open("/proc/self/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(key))

with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
    fh.write("5")  # the peak (VmHWM) starts again from what the process holds now
before = status("VmRSS")
if sys.argv[2] == "plain":
    con.execute("CHECKPOINT")
else:
    st.checkpoint(con)
grown = (status("VmHWM") - before) // 1024
groups = con.execute("SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('j')"
                     ).fetchall()[0][0]
rows = con.execute("SELECT count(*) FROM j").fetchall()[0][0]
limit = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
print(grown, groups, rows, limit)
"""


def _merge(tmp_path, how: str) -> tuple[int, int, int, str]:
    out = subprocess.run([sys.executable, "-c", MERGE, str(tmp_path / f"{how}.duckdb"), how],
                         capture_output=True, text=True, timeout=300, check=True)
    grown, groups, rows, limit = out.stdout.split(maxsplit=3)
    return int(grown), int(groups), int(rows), limit.strip()


def test_the_merge_is_written_out_not_held(tmp_path) -> None:
    grown, groups, rows, limit = _merge(tmp_path, "store")
    plain = _merge(tmp_path, "plain")
    assert groups == plain[1] == 1 and rows == plain[2] == 32001  # the same merge happened
    assert plain[0] > 360  # a bare CHECKPOINT holds the merged row group (~600 MiB of text)
    assert grown < 200, f"the checkpoint's peak grew {grown} MiB"
    assert limit == plain[3]  # the store's own limit is back


def test_the_limit_follows_the_threads(tmp_path) -> None:
    con = duckdb.connect(str(tmp_path / "s.duckdb"))
    con.execute("SET threads = 2")
    assert st.checkpoint_memory(con) == st.CHECKPOINT_MEMORY_MIN
    con.execute("SET threads = 16")
    assert st.checkpoint_memory(con) == 16 * st.CHECKPOINT_MEMORY_PER_THREAD


def test_an_in_memory_store_and_a_lower_limit_are_left_alone(tmp_path) -> None:
    mem = duckdb.connect()
    mem.execute("SET memory_limit = '2GB'")
    mem.execute("CREATE TABLE t AS SELECT range AS i FROM range(1000)")
    st.checkpoint(mem)
    assert mem.execute("SELECT current_setting('memory_limit')").fetchall() == [("1.8 GiB",)]
    small = duckdb.connect(str(tmp_path / "small.duckdb"))
    small.execute("SET memory_limit = '100MB'")  # already under the checkpoint's limit
    small.execute("CREATE TABLE t AS SELECT range AS i FROM range(1000)")
    st.checkpoint(small)
    assert small.execute("SELECT current_setting('memory_limit')").fetchall() == [("95.3 MiB",)]
    assert small.execute("SELECT count(*) FROM t").fetchall() == [(1000,)]
