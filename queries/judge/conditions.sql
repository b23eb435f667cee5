-- Check evaluation shared by every bucket: each rule condition evaluated for every judged
-- (run, case), then each check combined under all_of / any_of.
-- Inputs: rule_check, rule_condition, j_scope, j_fact (facts incl. detector.<id>),
-- j_method (facts/methods.sql, materialised).
--   a fact / detector condition holds when the fact's value equals `expect`; a fact the
--   judge does not know never holds (the reason says so);
--   a method condition holds as j_method says.
-- A check's deciding evidence is that of its first condition (by position) whose outcome
-- equals the check's outcome: the first failing one of a failed all_of, the first holding
-- one of a passed any_of, and so on.

CREATE OR REPLACE TEMP VIEW cond_eval AS
SELECT k.run_id, k.case_id, c.bucket, c.check_id, c.cond_idx, c.ctype, c.name, c.expect,
       CASE WHEN c.ctype = 'method' THEN coalesce(m.holds, false)
            ELSE coalesce(f.value = c.expect, false) END AS holds,
       CASE c.ctype
           WHEN 'method' THEN c.method || ': ' || coalesce(m.detail, 'not evaluated')
           WHEN 'detector' THEN
               CASE WHEN f.fact IS NULL THEN 'detector ' || c.name || ' is not declared'
                    ELSE 'detector ' || c.name
                         || CASE WHEN f.value THEN ' fired' ELSE ' did not fire' END
                         || CASE WHEN f.value = c.expect THEN '' ELSE ' (expected '
                                 || CASE WHEN c.expect THEN 'to fire' ELSE 'not to fire' END
                                 || ')' END
                         || ': ' || f.detail END
           ELSE
               CASE WHEN f.fact IS NULL THEN 'fact ' || c.name || ' is not in the catalog'
                    ELSE c.name || ' = ' || f.value::VARCHAR
                         || CASE WHEN f.value = c.expect THEN ''
                                 ELSE ' (expected ' || c.expect::VARCHAR || ')' END
                         || ': ' || f.detail END
       END AS reason,
       coalesce(m.evidence_file, f.evidence_file) AS evidence_file,
       coalesce(m.evidence_path, f.evidence_path) AS evidence_path,
       coalesce(m.evidence_line, f.evidence_line) AS evidence_line,
       coalesce(m.evidence_excerpt, f.evidence_excerpt) AS evidence_excerpt
FROM rule_condition AS c
JOIN j_scope AS k ON k.case_id = c.case_id AND k.rules_hash = c.rules_hash
LEFT JOIN j_fact AS f
       ON c.ctype IN ('fact', 'detector') AND f.run_id = k.run_id AND f.case_id = k.case_id
      AND f.fact = CASE WHEN c.ctype = 'detector' THEN 'detector.' || c.name ELSE c.name END
LEFT JOIN j_method AS m
       ON c.ctype = 'method' AND m.run_id = k.run_id AND m.case_id = k.case_id
      AND m.bucket = c.bucket AND m.check_id = c.check_id AND m.cond_idx = c.cond_idx;

CREATE OR REPLACE TEMP VIEW check_eval AS
WITH agg AS (
    SELECT run_id, case_id, bucket, check_id,
           bool_and(holds) AS all_hold, bool_or(holds) AS any_holds,
           count(*) AS n, count(*) FILTER (WHERE holds) AS n_hold
    FROM cond_eval
    GROUP BY run_id, case_id, bucket, check_id
),
chk AS (
    SELECT k.run_id, k.case_id, r.bucket, r.check_id, r.kind, r.required, r.soft, r.weight,
           r.ord, r.combinator, coalesce(a.n, 0) AS n, coalesce(a.n_hold, 0) AS n_hold,
           CASE r.combinator WHEN 'all' THEN coalesce(a.all_hold, false)
                             ELSE coalesce(a.any_holds, false) END AS passed
    FROM rule_check AS r
    JOIN j_scope AS k ON k.case_id = r.case_id AND k.rules_hash = r.rules_hash
    LEFT JOIN agg AS a ON a.run_id = k.run_id AND a.case_id = k.case_id
                      AND a.bucket = r.bucket AND a.check_id = r.check_id
),
decider AS (
    SELECT c.run_id, c.case_id, c.bucket, c.check_id,
           string_agg(e.reason, '; ' ORDER BY e.cond_idx) FILTER (WHERE e.holds = c.passed)
               AS reasons,
           arg_min_null(e.evidence_file, e.cond_idx) FILTER (WHERE e.holds = c.passed)
               AS evidence_file,
           arg_min_null(e.evidence_path, e.cond_idx) FILTER (WHERE e.holds = c.passed)
               AS evidence_path,
           arg_min_null(e.evidence_line, e.cond_idx) FILTER (WHERE e.holds = c.passed)
               AS evidence_line,
           arg_min_null(e.evidence_excerpt, e.cond_idx) FILTER (WHERE e.holds = c.passed)
               AS evidence_excerpt
    FROM chk AS c
    JOIN cond_eval AS e ON e.run_id = c.run_id AND e.case_id = c.case_id
                       AND e.bucket = c.bucket AND e.check_id = c.check_id
    GROUP BY c.run_id, c.case_id, c.bucket, c.check_id
)
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.kind, c.required, c.soft, c.weight,
       c.ord, c.passed,
       CASE WHEN c.passed THEN 'passed' ELSE 'failed' END
           || ' (' || c.combinator || '_of, ' || c.n_hold::VARCHAR || '/' || c.n::VARCHAR
           || ' hold): ' || coalesce(d.reasons, 'no conditions') AS reason,
       d.evidence_file, d.evidence_path, d.evidence_line, d.evidence_excerpt
FROM chk AS c
LEFT JOIN decider AS d ON d.run_id = c.run_id AND d.case_id = c.case_id
                      AND d.bucket = c.bucket AND d.check_id = c.check_id;
