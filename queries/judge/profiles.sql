-- The scoring profiles as tables (built in Python from rcaeval/judge/profiles.yaml and
-- registered as __j_profile_in / __j_band_in): j_profile(profile, component, max_score), the
-- maximum points per scored component; j_band(profile, gate_floor, no_gate_ceiling), the
-- verdict band (judge/scores.sql, judge/verdict.sql).
CREATE OR REPLACE TEMP TABLE j_profile AS SELECT * FROM __j_profile_in;
CREATE OR REPLACE TEMP TABLE j_band AS SELECT * FROM __j_band_in;
