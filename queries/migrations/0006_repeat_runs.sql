-- Migration 0006: repeat groups (`rcaeval run --repeat K`, docs/running.md#repeats).
-- A repeat runs every case of a suite K times, each repeat an ordinary run (its own
-- eval_runs / eval_case_runs / judgment rows, fresh workspaces, resumable). This table says
-- which runs form a group and in which order; the group id is what the user named (--run-id)
-- or was given, and is what --resume takes. Every attempt of every case stays in the store.
CREATE TABLE IF NOT EXISTS eval_repeat_runs (
    group_id     VARCHAR NOT NULL,    -- the repeat group
    run_id       VARCHAR NOT NULL,    -- one run of it (eval_runs.run_id): <group_id>-r<i>
    repeat_index INTEGER NOT NULL,    -- 1 .. repeats
    repeats      INTEGER NOT NULL,    -- K, the same on every row of the group
    PRIMARY KEY (group_id, repeat_index)
);
