-- apply_action analyze_table: refresh the planner statistics of one lab table.
ANALYZE :"table_name";
