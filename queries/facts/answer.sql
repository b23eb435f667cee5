-- Structured-answer facts: answer.* (docs/judge.md "Structured root causes").
-- A structured root cause is a family (and optionally a component) the answer states as data
-- rather than prose: the report's $.analysis.structured_root_cause {family, component}
-- (what the incident tools' submit_report writes when root_cause is an object), else an RCA
-- response (docs/rca-response-contract.md) saved as evidences/rca_response.json,
-- $.root_cause {family, component}. Names compare normalised: lower case, every run of
-- non-alphanumerics read as '_', leading/trailing '_' dropped. The truth and its synonyms
-- are rule_truth's (judge.yaml ground_truth.root_cause), which the agent never sees.
-- Same row shape as facts/trace.sql (witness rows are true; base.sql fills false).
CREATE OR REPLACE TEMP MACRO answer_norm(x) AS
    trim(regexp_replace(lower(trim(x)), '[^a-z0-9]+', '_', 'g'), '_');

CREATE OR REPLACE TEMP VIEW fx_structured_answer AS
SELECT run_id, case_id, pick.file, pick.path, pick.family, pick.component
FROM (
    SELECT run_id, case_id,
           first({'file': file, 'path': base, 'family': family, 'component': component}
                 ORDER BY prio) AS pick
    FROM (
        SELECT run_id, case_id, file, src.prio, src.base,
               max(value_text) FILTER (WHERE path = src.base || '.family') AS family,
               max(value_text) FILTER (WHERE path = src.base || '.component') AS component
        FROM fx_json
        JOIN (VALUES (1, 'evidences/workspace_evidence_report.json',
                      '$.analysis.structured_root_cause'),
                     (2, 'evidences/rca_response.json', '$.root_cause'))
             AS src(prio, f, base) ON fx_json.file = src.f
        WHERE type = 'string' AND path IN (src.base || '.family', src.base || '.component')
        GROUP BY run_id, case_id, file, src.prio, src.base
    )
    WHERE family IS NOT NULL
    GROUP BY run_id, case_id
);

CREATE OR REPLACE TEMP VIEW fx_answer_match AS
SELECT a.run_id, a.case_id, a.file, a.path, a.family, a.component,
       t.family AS truth_family, t.component AS truth_component,
       list_contains(list_transform(list_prepend(t.family, coalesce(t.family_synonyms, [])),
                                    lambda x: answer_norm(x)), answer_norm(a.family))
           AS family_ok,
       t.component IS NULL OR a.component IS NULL
           OR coalesce(list_contains(list_transform(
                  list_prepend(t.component, coalesce(t.component_synonyms, [])),
                  lambda x: answer_norm(x)), answer_norm(a.component)), false)
           AS component_ok
FROM fx_structured_answer AS a
JOIN j_scope AS k ON k.run_id = a.run_id AND k.case_id = a.case_id
JOIN rule_truth AS t ON t.case_id = k.case_id AND t.rules_hash = k.rules_hash;

CREATE OR REPLACE TEMP VIEW fx_answer AS
-- answer.structured_root_cause: the answer states a root-cause family as data
SELECT run_id, case_id, 'answer.structured_root_cause' AS fact, true AS value, 1 AS rank,
       'structured root cause: family ' || family
           || coalesce(', component ' || component, '') || ' (' || file || ' ' || path || ')'
           AS detail,
       file AS evidence_file, path AS evidence_path, NULL::INTEGER AS evidence_line,
       family || coalesce(' / ' || component, '') AS evidence_excerpt
FROM fx_structured_answer

UNION ALL
-- answer.structured_family_matches: that family is the truth's or a declared synonym
SELECT run_id, case_id, 'answer.structured_family_matches', true, 1,
       'structured family ' || family || ' = ground-truth family'
           || CASE WHEN answer_norm(family) = answer_norm(truth_family) THEN ''
                   ELSE ' (a declared synonym)' END,
       file, path || '.family', NULL, family
FROM fx_answer_match
WHERE family_ok

UNION ALL
-- answer.structured_component_matches: its component is the truth's (or a synonym), or
-- the truth or the answer names no component (an RCA response has no component field)
SELECT run_id, case_id, 'answer.structured_component_matches', true, 1,
       CASE WHEN truth_component IS NULL
            THEN 'the ground truth names no component'
            WHEN component IS NULL THEN 'the answer names no component (not checked)'
            ELSE 'structured component ' || component || ' = ground-truth component'
                 || CASE WHEN answer_norm(component) = answer_norm(truth_component) THEN ''
                         ELSE ' (a declared synonym)' END END,
       file, path || '.component', NULL, component
FROM fx_answer_match
WHERE component_ok;
