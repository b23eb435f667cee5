-- The judgment of each case the registry cannot supply (rcaeval.judge._unloadable: not in the
-- registry, a case.yaml/judge.yaml that does not load, or bundle ids that cannot be path
-- parts), in the columns of the verdict frame (judge/frame_judgments.sql): verdict invalid at
-- precedence step 0, score 0, no case type, rules or profile, the subtype and reason the
-- registry's problem gave. Input: __rcaeval_unloadable (run_id, case_id, subtype, reason,
-- ord: the case dirs' order). Its packet and eval_judgment row are then built and written as
-- a judged case's are (rcaeval.judge._packet; judge/write_judgments.sql).
SELECT run_id, case_id, NULL::VARCHAR AS case_type, NULL::VARCHAR AS rules_hash,
       NULL::VARCHAR AS scoring_profile, 'invalid' AS verdict, subtype, 0::INTEGER AS step,
       0.0::DOUBLE AS score, 0.0::DOUBLE AS raw_score, false AS hard_gate, reason
FROM __rcaeval_unloadable
ORDER BY ord;
