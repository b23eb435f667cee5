-- No progress bar on a release measurement connection: a measurement's output is the artifact
-- and the printed table. Inside a Jupyter kernel without ipywidgets DuckDB refuses any change
-- to this setting (and draws no bar there), so the caller ignores that refusal: measuring from
-- a notebook (notebooks/release_gate.ipynb with captures + window) must work.
SET enable_progress_bar = false;
