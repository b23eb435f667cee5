-- Labelling sheet, the evidence the answer cited (docs/calibration.md, "Export"): one row per
-- reference of each item of the analysis patch of run $run_id, with an excerpt of what the
-- reference resolves to in the extracted bundle (a log line's text, a metric series' name and
-- labels, a query's SQL, an event's reason and message; NULL when it resolves to nothing,
-- which is itself what a labeller should see). Decides the evidence lines of a sheet.
WITH logs AS (
    SELECT run_id, case_id, entry_id, any_value(text) AS text
    FROM raw_log_line WHERE run_id = $run_id AND entry_id IS NOT NULL GROUP BY ALL
), metrics AS (
    SELECT run_id, case_id, series_id,
           any_value(name) || ' ' || any_value(labels)::VARCHAR
           || ' max ' || round(max(value), 4)::VARCHAR AS text
    FROM raw_metric_point WHERE run_id = $run_id AND series_id IS NOT NULL GROUP BY ALL
), queries AS (
    SELECT run_id, case_id, query_id, any_value(sql_text) AS text
    FROM raw_query WHERE run_id = $run_id AND query_id IS NOT NULL GROUP BY ALL
), events AS (
    SELECT run_id, case_id, event_id, any_value(reason) || ': ' || any_value(message) AS text
    FROM raw_event WHERE run_id = $run_id AND event_id IS NOT NULL GROUP BY ALL
)
SELECT i.case_id, i.idx, i.item_id, i.role, i.claim, r.ref_type, r.ref_id,
       left(CASE r.ref_type WHEN 'log' THEN l.text WHEN 'metric' THEN m.text
                            WHEN 'query' THEN q.text WHEN 'event' THEN e.text END, 240)
           AS excerpt
FROM raw_patch_item i
LEFT JOIN raw_patch_ref r
       ON r.run_id = i.run_id AND r.case_id = i.case_id AND r.item_idx = i.idx
LEFT JOIN logs l ON r.ref_type = 'log' AND l.run_id = i.run_id AND l.case_id = i.case_id
                AND l.entry_id = r.ref_id
LEFT JOIN metrics m ON r.ref_type = 'metric' AND m.run_id = i.run_id
                   AND m.case_id = i.case_id AND m.series_id = r.ref_id
LEFT JOIN queries q ON r.ref_type = 'query' AND q.run_id = i.run_id
                   AND q.case_id = i.case_id AND q.query_id = r.ref_id
LEFT JOIN events e ON r.ref_type = 'event' AND e.run_id = i.run_id
                  AND e.case_id = i.case_id AND e.event_id = r.ref_id
WHERE i.run_id = $run_id
ORDER BY i.case_id, i.idx, r.ref_idx;
