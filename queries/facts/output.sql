-- Output facts: detector.<id> for every detector a judged case declares.
-- A detector fires when some sentence in its scope matches `any` (and every `all` pattern)
-- and that match is not negated, hedged or demoted (facts/detector_match.sql). A match left
-- only by weak consequence wording ("the panic caused a CPU hotspot", "导致 X") is demoted
-- only when another root_cause detector of the case has a surviving match in the same
-- sentence; otherwise it still counts (j_detector_fire). The evidence is the first firing
-- sentence; when nothing fires, the detail says why the first plain match did not count --
-- exactly what a plain keyword search would have got wrong -- and, when no sentence matched
-- at all, names an output.txt / transcript.json that exists but could not be read or parsed
-- (raw_file status other than ok / not_utf8), so "no sentence matches" is not mistaken for
-- an answer that said nothing.
CREATE OR REPLACE TEMP VIEW j_detector_fire AS
SELECT h.*,
       h.in_scope AND h.all_ok
       AND (h.strong OR (h.weak AND NOT EXISTS (
               SELECT 1 FROM j_detector_hit AS o
               WHERE o.run_id = h.run_id AND o.case_id = h.case_id
                 AND o.section_idx = h.section_idx AND o.sentence_idx = h.sentence_idx
                 AND o.detector_id <> h.detector_id AND o.scope = 'root_cause'
                 AND o.in_scope AND o.all_ok AND o.strong))) AS fires
FROM j_detector_hit AS h;

CREATE OR REPLACE TEMP VIEW fx_output AS
WITH d AS (
    SELECT k.run_id, k.case_id, r.detector_id, r.scope, r.negation
    FROM j_scope AS k
    JOIN rule_detector AS r ON r.case_id = k.case_id AND r.rules_hash = k.rules_hash
),
h AS (
    SELECT * FROM j_detector_fire
),
unread AS (
    SELECT run_id, case_id,
           string_agg(file || CASE status WHEN 'parse_error' THEN ' not parsed ('
                                          ELSE ' not read (' END
                      || status || coalesce(': ' || detail, '') || ')', '; ' ORDER BY file) AS note
    FROM fx_file
    WHERE kind IN ('output', 'transcript') AND status NOT IN ('ok', 'not_utf8')
    GROUP BY run_id, case_id
),
pick AS (
    SELECT * FROM h
    QUALIFY row_number() OVER (PARTITION BY run_id, case_id, detector_id
                               ORDER BY NOT fires, section_idx, sentence_idx) = 1
)
SELECT d.run_id, d.case_id, 'detector.' || d.detector_id AS fact,
       coalesce(p.fires, false) AS value, 0 AS rank,
       CASE
           WHEN p.run_id IS NULL THEN 'no sentence of the answer matches'
                                      || coalesce('; ' || u.note, '')
           WHEN p.fires THEN 'fired in ' || CASE WHEN coalesce(p.section, '') = ''
                                                  THEN 'the opening text'
                                                  ELSE 'section "' || p.section || '"' END
                             || ' (scope ' || d.scope || ')'
           WHEN NOT p.in_scope THEN 'matched only outside scope ' || d.scope
                                    || ', first in ' || CASE WHEN coalesce(p.section, '') = ''
                                                            THEN 'the opening text'
                                                            ELSE 'section "' || p.section || '"'
                                                        END
           WHEN NOT p.all_ok THEN 'matched, but not every `all` pattern in the same sentence'
           WHEN p.negated THEN 'matched only negated mentions (e.g. "ruled out", "not caused by")'
           WHEN p.hedged THEN 'matched only hedged mentions (' || p.decided_by || ')'
           WHEN p.demoted THEN 'matched only mentions not named as the cause ('
                               || p.decided_by || ')'
           ELSE 'matched only as a consequence of another asserted cause ('
                || p.decided_by || ')'
       END AS detail,
       CASE WHEN p.run_id IS NULL THEN NULL
            WHEN p.section_kind = 'followup' THEN 'transcript.json'
            ELSE 'output.txt' END AS evidence_file,
       NULL::VARCHAR AS evidence_path,
       p.line_no AS evidence_line,
       left(p.text, 300) AS evidence_excerpt
FROM d
LEFT JOIN pick AS p
       ON p.run_id = d.run_id AND p.case_id = d.case_id AND p.detector_id = d.detector_id
LEFT JOIN unread AS u ON u.run_id = d.run_id AND u.case_id = d.case_id;
