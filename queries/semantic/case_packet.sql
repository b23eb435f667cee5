-- One case run's semantic packet (rcaeval explain, docs/semantic.md): the shadow's packet
-- JSON, whether it came from the cache, and the blended judgment when the second pass made
-- one (NULL when the deterministic judgment stands). No row when the case run has no shadow.
-- Parameters: $run_id, $case_id.
SELECT s.packet_json, s.cache_hit, b.judgment_json AS blended_json
FROM eval_semantic AS s
LEFT JOIN eval_judgment_blended AS b ON b.run_id = s.run_id AND b.case_id = s.case_id
WHERE s.run_id = $run_id AND s.case_id = $case_id;
