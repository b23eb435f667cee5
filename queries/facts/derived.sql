-- Stage-2 facts, derived from stage-1 facts (the materialised j_fact):
--   channel.query_or_metric_observed        queries or metrics observed
--   channel.events_attempted_implies_persisted  not attempted, or an events artifact persisted
--   analysis.all_refs_resolvable            all four analysis.*_refs_resolvable
-- Each carries the evidence of the fact that decided it.
CREATE OR REPLACE TEMP VIEW fact_derived AS
WITH f AS (
    SELECT * FROM j_fact
    WHERE fact IN ('channel.queries_observed', 'channel.metrics_observed',
                   'channel.events_collection_attempted', 'channel.events_output_present',
                   'analysis.metric_refs_resolvable', 'analysis.query_refs_resolvable',
                   'analysis.log_refs_resolvable', 'analysis.event_refs_resolvable')
)
SELECT q.run_id, q.case_id, 'channel.query_or_metric_observed' AS fact,
       q.value OR m.value AS value,
       CASE WHEN q.value THEN 'queries observed: ' || q.detail
            WHEN m.value THEN 'metrics observed: ' || m.detail
            ELSE 'neither queries nor metrics observed' END AS detail,
       CASE WHEN q.value THEN q.evidence_file ELSE m.evidence_file END AS evidence_file,
       CASE WHEN q.value THEN q.evidence_path ELSE m.evidence_path END AS evidence_path,
       CASE WHEN q.value THEN q.evidence_line ELSE m.evidence_line END AS evidence_line,
       CASE WHEN q.value THEN q.evidence_excerpt ELSE m.evidence_excerpt END AS evidence_excerpt
FROM f AS q
JOIN f AS m ON m.run_id = q.run_id AND m.case_id = q.case_id
           AND m.fact = 'channel.metrics_observed'
WHERE q.fact = 'channel.queries_observed'

UNION ALL
SELECT a.run_id, a.case_id, 'channel.events_attempted_implies_persisted',
       NOT a.value OR o.value,
       CASE WHEN NOT a.value THEN 'no events collection was attempted'
            WHEN o.value THEN 'events collection attempted and persisted: ' || o.detail
            ELSE 'events collection was attempted (' || a.detail
                 || ') but no events.json / report evidence.events was persisted' END,
       CASE WHEN a.value AND NOT o.value THEN a.evidence_file ELSE o.evidence_file END,
       CASE WHEN a.value AND NOT o.value THEN a.evidence_path ELSE o.evidence_path END,
       CASE WHEN a.value AND NOT o.value THEN a.evidence_line ELSE o.evidence_line END,
       CASE WHEN a.value AND NOT o.value THEN a.evidence_excerpt ELSE o.evidence_excerpt END
FROM f AS a
JOIN f AS o ON o.run_id = a.run_id AND o.case_id = a.case_id
           AND o.fact = 'channel.events_output_present'
WHERE a.fact = 'channel.events_collection_attempted'

UNION ALL
SELECT run_id, case_id, 'analysis.all_refs_resolvable',
       bool_and(value),
       CASE WHEN bool_and(value) THEN 'metric, query, log and event refs all resolve'
            ELSE arg_min(fact || ': ' || detail, (value, fact)) END,
       arg_min(evidence_file, (value, fact)),
       arg_min(evidence_path, (value, fact)),
       arg_min(evidence_line, (value, fact)),
       arg_min(evidence_excerpt, (value, fact))
FROM f
WHERE fact LIKE 'analysis.%_refs_resolvable'
GROUP BY run_id, case_id;
