-- The full captures of some analyses (for knowledge candidates): one JSON object per valid
-- capture whose harness analysis_hash is in $hashes, latest capture first.
-- reads: capture_input, capture_problem (validate_captures.sql)
-- params: $hashes -- the analysis hashes of the reviews being promoted
SELECT i.src, i.line, json_extract_string(i.harness, '$.analysis_hash') AS analysis_hash,
       json_object('capture_id', i.capture_id, 'captured_at', i.captured_at,
                   'stage', i.stage, 'population', i.population,
                   'incident_id', i.incident_id, 'response', i.response,
                   'harness', i.harness, 'labels', i.labels,
                   'tool_executions', i.tool_executions,
                   'knowledge_activations', i.knowledge_activations,
                   'outage_test', i.outage_test, 'review_ids', i.review_ids) AS capture
FROM capture_input i ANTI JOIN capture_problem p ON p.src = i.src AND p.line = i.line
WHERE list_contains($hashes, json_extract_string(i.harness, '$.analysis_hash'))
ORDER BY TRY_CAST(json_extract_string(i.captured_at, '$') AS TIMESTAMPTZ) DESC, i.src, i.line;
