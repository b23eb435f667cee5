-- The per-bucket machinery every bucket file (queries/buckets/<bucket>.sql) shares, so that a
-- bucket file holds only its "Decides" rule. Two table macros over j_check_eval / j_scope,
-- then three scalar macros for the rules several buckets share (below them):
--
-- bucket_checks(b, gate): the check rows bucket `b` judges (the columns of j_check).
--   gate = false: the checks of cases whose bundle resolved; an unresolved bundle leaves the
--                 bucket without checks (its file says `not_evaluated`).
--   gate = true:  every check of the bucket, and for an unresolved bundle the failing
--                 synthetic check `bundle_resolved` (required, weight 0, ord -1, reason:
--                 raw_bundle's status and reason), so a gate bucket fails on it.
--
-- bucket_agg(b, gate): one row per judged (run, case) of j_scope (a case without checks
--   included) with the counts, weights and failed-check lists the bucket rules read:
--   Soft checks (rule_check.soft, docs/scoring.md "Soft checks") are score only: every
--   count and list that decides a status leaves them out ("firm" checks); they count in
--   the weights (w_*), which the scores read.
--   n / n_pass                 checks / passed checks (soft ones included, for reasons)
--   n_firm / n_firm_pass       non-soft checks / passed non-soft checks
--   w_all / w_pass             weight of all checks / of passed checks (0 when none)
--   w_req / w_req_pass         weight of required checks / of passed required checks
--   has_required               some check is required (NULL when there are no checks)
--   w_req_firm / w_req_firm_pass  weight of required non-soft checks / of passed ones
--   n_req_failed, req_failed   failed required non-soft checks: count, ids in `ord` order
--   req_failed_any             failed required checks (ids; the gates, which have no soft
--                              check: the registry rejects one there)
--   opt_failed                 failed optional non-soft checks (ids)
--   soft_failed                failed soft checks (ids): a score deduction, never a status
--   failed                     every failed non-soft check (ids)
--   soft_note                  '; soft deduction: <soft_failed>' or '' (for reasons)
--   n_hard / n_hard_pass, n_sup / n_sup_pass, w_hard / w_hard_pass, w_sup / w_sup_pass,
--   hard_failed                the same by kind (hard / supporting: diagnosis); hard_failed
--                              lists non-soft hard checks only
--   resolved, rules_hash       from j_scope
CREATE OR REPLACE TEMP MACRO bucket_checks(b, gate) AS TABLE
SELECT run_id, case_id, bucket, check_id, kind, required, soft, weight, ord, passed, reason,
       evidence_file, evidence_path, evidence_line, evidence_excerpt
FROM j_check_eval
WHERE gate AND bucket = b
UNION ALL
SELECT e.run_id, e.case_id, e.bucket, e.check_id, e.kind, e.required, e.soft, e.weight, e.ord,
       e.passed, e.reason, e.evidence_file, e.evidence_path, e.evidence_line,
       e.evidence_excerpt
FROM j_check_eval AS e
JOIN j_scope AS k ON k.run_id = e.run_id AND k.case_id = e.case_id
WHERE NOT gate AND e.bucket = b AND k.resolved
UNION ALL
SELECT run_id, case_id, b, 'bundle_resolved', 'check', true, false, 0.0, -1, false,
       'failed: ' || bundle_status || ': ' || coalesce(bundle_reason, ''),
       NULL, NULL, NULL, NULL
FROM j_scope
WHERE gate AND NOT resolved;

CREATE OR REPLACE TEMP MACRO bucket_agg(b, gate) AS TABLE
SELECT k.run_id, k.case_id, k.resolved, k.rules_hash,
       count(c.check_id) AS n,
       count(c.check_id) FILTER (WHERE c.passed) AS n_pass,
       count(c.check_id) FILTER (WHERE NOT c.soft) AS n_firm,
       count(c.check_id) FILTER (WHERE NOT c.soft AND c.passed) AS n_firm_pass,
       coalesce(sum(c.weight), 0) AS w_all,
       coalesce(sum(c.weight) FILTER (WHERE c.passed), 0) AS w_pass,
       coalesce(sum(c.weight) FILTER (WHERE c.required), 0) AS w_req,
       coalesce(sum(c.weight) FILTER (WHERE c.required AND c.passed), 0) AS w_req_pass,
       coalesce(sum(c.weight) FILTER (WHERE c.required AND NOT c.soft), 0) AS w_req_firm,
       coalesce(sum(c.weight) FILTER (WHERE c.required AND NOT c.soft AND c.passed), 0)
           AS w_req_firm_pass,
       bool_or(c.required) AS has_required,
       count(c.check_id) FILTER (WHERE c.required AND NOT c.soft AND NOT c.passed)
           AS n_req_failed,
       string_agg(c.check_id, ', ' ORDER BY c.ord)
           FILTER (WHERE c.required AND NOT c.soft AND NOT c.passed) AS req_failed,
       string_agg(c.check_id, ', ' ORDER BY c.ord)
           FILTER (WHERE c.required AND NOT c.passed) AS req_failed_any,
       string_agg(c.check_id, ', ' ORDER BY c.ord)
           FILTER (WHERE NOT c.required AND NOT c.soft AND NOT c.passed) AS opt_failed,
       string_agg(c.check_id, ', ' ORDER BY c.ord)
           FILTER (WHERE c.soft AND NOT c.passed) AS soft_failed,
       string_agg(c.check_id, ', ' ORDER BY c.ord)
           FILTER (WHERE NOT c.soft AND NOT c.passed) AS failed,
       coalesce('; soft deduction: ' || string_agg(c.check_id, ', ' ORDER BY c.ord)
           FILTER (WHERE c.soft AND NOT c.passed), '') AS soft_note,
       count(c.check_id) FILTER (WHERE c.kind = 'hard') AS n_hard,
       count(c.check_id) FILTER (WHERE c.kind = 'hard' AND c.passed) AS n_hard_pass,
       count(c.check_id) FILTER (WHERE c.kind = 'supporting') AS n_sup,
       count(c.check_id) FILTER (WHERE c.kind = 'supporting' AND c.passed) AS n_sup_pass,
       coalesce(sum(c.weight) FILTER (WHERE c.kind = 'hard'), 0) AS w_hard,
       coalesce(sum(c.weight) FILTER (WHERE c.kind = 'hard' AND c.passed), 0) AS w_hard_pass,
       coalesce(sum(c.weight) FILTER (WHERE c.kind = 'supporting'), 0) AS w_sup,
       coalesce(sum(c.weight) FILTER (WHERE c.kind = 'supporting' AND c.passed), 0)
           AS w_sup_pass,
       string_agg(c.check_id, ', ' ORDER BY c.ord)
           FILTER (WHERE c.kind = 'hard' AND NOT c.soft AND NOT c.passed) AS hard_failed
FROM j_scope AS k
LEFT JOIN bucket_checks(b, gate) AS c ON c.run_id = k.run_id AND c.case_id = k.case_id
GROUP BY k.run_id, k.case_id, k.resolved, k.rules_hash;

-- tiered_status(req_failed, opt_failed) / tiered_reason(req_failed, opt_failed, n_pass, n):
--   the three-tier rule (execution_contract, evidence_collection, evidence_routing): a failed
--   required check fails the bucket, else a failed optional check makes it partial, else it
--   passes; the reason names the failed checks, or counts the passed ones. Arguments are
--   bucket_agg's columns of the same names.
CREATE OR REPLACE TEMP MACRO tiered_status(req_failed, opt_failed) AS
    CASE WHEN req_failed IS NOT NULL THEN 'fail'
         WHEN opt_failed IS NOT NULL THEN 'partial'
         ELSE 'pass' END;

CREATE OR REPLACE TEMP MACRO tiered_reason(req_failed, opt_failed, n_pass, n) AS
    CASE WHEN req_failed IS NOT NULL THEN 'required check(s) failed: ' || req_failed
         WHEN opt_failed IS NOT NULL THEN 'optional check(s) failed: ' || opt_failed
         ELSE n_pass::VARCHAR || '/' || n::VARCHAR || ' check(s) passed' END;

-- required_frac(has_required, w_req, w_req_pass, w_all, w_pass): the score fraction of the
--   buckets scored on their required checks (evidence_routing, workflow): passed required
--   weight / required weight; all checks' when the bucket has no required check (or they
--   weigh nothing); 1 when it has no weight at all.
CREATE OR REPLACE TEMP MACRO required_frac(has_required, w_req, w_req_pass, w_all, w_pass) AS
    CASE WHEN coalesce(has_required, false) AND w_req > 0 THEN w_req_pass / w_req
         WHEN w_all > 0 THEN w_pass / w_all
         ELSE 1.0 END;
