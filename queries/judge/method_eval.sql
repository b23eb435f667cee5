-- Critical-evidence method results (docs/judge.md "Critical-evidence
-- methods"): method_eval, one row per (run_id, case_id, bucket, check_id, cond_idx) of every
-- method condition (mx_cond, facts/methods.sql) with `holds` and the first piece of evidence
-- that made it hold. Reads mx_witness / mx_miss, the UNION ALL of every registered method's
-- mx_w_<method> / mx_miss_<method> (queries/methods/<method>.sql).
-- The first witness: lowest rank, then evidence file, line, path, detail, excerpt.
-- A condition with no witness whose file(s) exist but were not parsed (raw_file status other
-- than ok / not_utf8: parse_error, too_large, outside_bundle, unreadable) says so in its
-- detail, with extraction's status and detail, instead of only "no ... contains ...".

-- The files each method condition reads that exist but could not be parsed (keyword_any
-- reads by `source`; every other method reads its `file`).
CREATE OR REPLACE TEMP VIEW mx_unread AS
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx,
       string_agg(f.file || CASE f.status WHEN 'parse_error' THEN ' not parsed ('
                                          ELSE ' not read (' END
                  || f.status || coalesce(': ' || f.detail, '') || ')', '; '
                  ORDER BY f.file) AS note
FROM mx_cond AS c
JOIN fx_file AS f ON f.run_id = c.run_id AND f.case_id = c.case_id
WHERE f.status NOT IN ('ok', 'not_utf8')
  AND CASE WHEN c.method = 'keyword_any' AND c.source = 'logs'
                THEN starts_with(f.file, 'logs/') OR f.file = 'evidences/logs.json'
           WHEN c.method = 'keyword_any'
                THEN f.file IN (c.source, 'evidences/' || c.source, 'logs/' || c.source)
           ELSE f.file = c.file_rel END
GROUP BY c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx;

CREATE OR REPLACE TEMP VIEW method_eval AS
WITH best AS (   -- an ordered aggregate (one row kept per group) rather than a sort of
                 -- every witness, as in facts/base.sql; the excerpt breaks any last tie
    SELECT run_id, case_id, bucket, check_id, cond_idx, unnest(pick)
    FROM (
        SELECT run_id, case_id, bucket, check_id, cond_idx,
               first({'detail': detail, 'evidence_file': evidence_file,
                      'evidence_path': evidence_path, 'evidence_line': evidence_line,
                      'evidence_excerpt': evidence_excerpt}
                     ORDER BY rank, evidence_file, evidence_line NULLS LAST,
                              evidence_path NULLS LAST, detail, evidence_excerpt NULLS LAST)
                   AS pick
        FROM mx_witness
        GROUP BY run_id, case_id, bucket, check_id, cond_idx
    )
)
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx,
       b.run_id IS NOT NULL AS holds,
       coalesce(b.detail, m.detail || coalesce('; ' || u.note, '')) AS detail,
       b.evidence_file, b.evidence_path, b.evidence_line, b.evidence_excerpt
FROM mx_cond AS c
LEFT JOIN best AS b
       ON b.run_id = c.run_id AND b.case_id = c.case_id AND b.bucket = c.bucket
      AND b.check_id = c.check_id AND b.cond_idx = c.cond_idx
LEFT JOIN mx_miss AS m
       ON m.run_id = c.run_id AND m.case_id = c.case_id AND m.bucket = c.bucket
      AND m.check_id = c.check_id AND m.cond_idx = c.cond_idx
LEFT JOIN mx_unread AS u
       ON u.run_id = c.run_id AND u.case_id = c.case_id AND u.bucket = c.bucket
      AND u.check_id = c.check_id AND u.cond_idx = c.cond_idx;
