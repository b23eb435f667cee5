-- Output detectors, one compiled pattern set at a time: the sentences of the final answer
-- (and follow-up answers) where a detector's `any` patterns match, with scope and every cue
-- stage decided (docs/registry.md, "Detector grammar"). Run once per distinct
-- rule_detector.pattern_key (detectors of any case sharing the same scope and compiled
-- regexes) over every judged run carrying such a detector; the RE2 patterns are bound as
-- parameters so DuckDB compiles each once per query instead of once per row. What a
-- sentence's own text decides (misspelling, candidate, lead, stages, cues, `all` patterns) is
-- computed once per distinct text (u, x0..x) and joined back to the sentences carrying it;
-- what depends on other sentences (the line's label, a pick, the next sentence's claim, the
-- heading) per sentence, and only in the scopes that read it. The CTEs are MATERIALIZED:
-- inlined, DuckDB compiled each bound regex several times per query, a fixed cost that
-- dominated the query (bench/RESULTS.md, session 18). Parameters:
--   $pattern_key $scope
--   $fuzzy_words               '|'-joined words a `fuzzy: true` detector reads one-edit
--                              misspellings of (Damerau-Levenshtein 1, words of 5+ letters;
--                              '' when off); patterns run on the corrected text
--   $any_regex                 (?i) alternation of the `any` patterns
--   $all_regexes               list of (?i) `all` patterns (matched only on candidate rows)
--   $neg_pre $neg_post         negated-occurrence regexes (rcaeval/grammar/_compile.py)
--   $hedge_pre $hedge_post     hedged occurrences        (root_cause scope only)
--   $role_pre $role_post       symptom / contributing / consequence occurrences (idem)
--   $weak_pre $weak_post       weak consequence wording (idem; see facts/output.sql)
--   $*_cue                     the cue vocabularies alone, to name the deciding cue
--   $clause_break              clause breaks rewritten to ';' before any cue stage
--   $subject_break             a new subject ("and the ..."): ';' inserted before it for the
--                              role stage only, so a role cue names the mention it follows
--   $causal                    a causal cue (to name it)
--   $causal_bound              a match sharing a clause with a causal cue, or after a colon
--                              the cue and more words precede (a cue in another clause, or
--                              ending a label before a colon, does not count)
--   $pick                      a sentence picking a numbered list item ("It's (3)"; group 1
--                              the number): that item's sentences are in scope, even in a
--                              candidate list
--   $anaphora_in $anaphora_next a later clause / the next sentence of the section claiming
--                              the cause just named ("that is the root cause"); $anaphora_cue
--   $heading_*                 a section heading naming conclusion / alternatives / role
--   $label $label_*            the inline `Label:` of the sentence's line, and its kind
--   $lead $bold_lead $lead_*   the line's longer lead (up to twelve words before its first
--                              colon, or an opening bold span) and its kind (starts with it)
--   $subordinate               a conclusion word governed by another head: not a conclusion
-- The cue naming a stage's decision: facts/detector_cue.sql's macro (the step runs it first).
-- Scope root_cause, in order: an inline label or lead of kind alternatives/role/evidence puts
-- the sentence out, of kind conclusion in; then the section heading likewise; then a causal cue puts it
-- in. Cue stages: each blanks its spans (cue + window + match, or match + window + cue) out
-- of what the previous stage left; the sentence counts only if the pattern still matches.
INSERT INTO j_detector_hit
WITH f0 AS MATERIALIZED (   -- every sentence of the case versions declaring the set
    SELECT o.run_id, o.case_id, r.detector_id, o.section_idx, o.sentence_idx, o.line_no,
           o.section, o.section_kind, o.text AS raw_text, o.item
    FROM j_raw_output_sentence AS o
    JOIN j_scope AS k ON k.run_id = o.run_id AND k.case_id = o.case_id
    JOIN rule_detector AS r ON r.case_id = k.case_id AND r.rules_hash = k.rules_hash
    WHERE r.pattern_key = $pattern_key
),
u AS MATERIALIZED (    -- each distinct sentence text once, misspellings read (if fuzzy)
    SELECT raw_text,
           CASE WHEN $fuzzy_words = '' THEN raw_text
                ELSE array_to_string(list_transform(
                         regexp_extract_all(raw_text, '[A-Za-z]+|[^A-Za-z]+'),
                         lambda t: CASE
                             WHEN length(t) < 5 OR NOT regexp_full_match(t, '[A-Za-z]+')
                               OR list_contains(string_split($fuzzy_words, '|'), lower(t))
                             THEN t
                             ELSE coalesce(list_first(list_filter(
                                      string_split($fuzzy_words, '|'),
                                      lambda w: damerau_levenshtein(lower(t), w) = 1)), t)
                         END), '') END AS text
    FROM (SELECT DISTINCT raw_text FROM f0)
),
x0 AS MATERIALIZED (   -- candidate texts: a pattern matches (misspellings read, if fuzzy)
    SELECT raw_text, text,
           CASE WHEN text <> raw_text AND NOT regexp_matches(raw_text, $any_regex)
                THEN 'misspelling read: "' || raw_text || '" as "' || text || '"; ' END
               AS misspelling,
           nullif(regexp_extract(raw_text, $label, 1), '') AS own_label,
           -- a lead scopes its own sentence only
           coalesce(nullif(regexp_extract(raw_text, $lead, 1), ''),
                    nullif(regexp_extract(raw_text, $bold_lead, 1), '')) AS lead,
           regexp_replace(text, $clause_break, ';', 'g') AS t0,
           regexp_replace(text, $clause_break, ';\0', 'g') AS tc   -- clauses, words kept
    FROM u
    WHERE regexp_matches(text, $any_regex)
),
x1 AS MATERIALIZED (
    SELECT x0.*,
           regexp_replace(regexp_replace(t0, $neg_pre, ' ', 'g'), $neg_post, ' ', 'g') AS t1
    FROM x0
),
x2 AS MATERIALIZED (
    SELECT x1.*,
           regexp_replace(regexp_replace(t1, $hedge_pre, ' ', 'g'), $hedge_post, ' ', 'g')
               AS t2
    FROM x1
),
x3 AS MATERIALIZED (
    SELECT x2.*,
           regexp_replace(regexp_replace(regexp_replace(t2, $subject_break, ';\0', 'g'),
                                         $role_pre, ' ', 'g'), $role_post, ' ', 'g') AS t3
    FROM x2
),
x4 AS MATERIALIZED (
    SELECT x3.*,
           regexp_replace(regexp_replace(t3, $weak_pre, ' ', 'g'), $weak_post, ' ', 'g')
               AS t4,
           regexp_matches(t1, $any_regex) AS m1,
           regexp_matches(t2, $any_regex) AS m2,
           regexp_matches(t3, $any_regex) AS m3
    FROM x3
),
x AS MATERIALIZED (    -- what a candidate text decides on its own: its stages and cues
    SELECT raw_text, text, misspelling, own_label, lead, m1, m2, m3, m4,
           CASE WHEN lead IS NULL THEN NULL
                WHEN regexp_matches(lead, $lead_alternatives) THEN 'alternatives'
                WHEN regexp_matches(lead, $lead_role) THEN 'role'
                WHEN regexp_matches(lead, $lead_evidence) THEN 'evidence'
                WHEN regexp_matches(lead, $lead_conclusion) THEN 'conclusion'
           END AS lead_kind,
           CASE WHEN regexp_matches(text, $causal_bound)
                    THEN 'causal cue "' || regexp_extract(text, $causal, 0) || '"'
                WHEN regexp_matches(tc, $anaphora_in)
                    THEN 'claimed by "' || regexp_extract(tc, $anaphora_cue, 0) || '"'
           END AS own_claim,
           CASE WHEN regexp_matches(text, $causal)
                THEN 'causal cue "' || regexp_extract(text, $causal, 0)
                     || '" in another clause' END AS other_clause,
           coalesce(list_bool_and(list_transform($all_regexes::VARCHAR[],
                                                 lambda p: regexp_matches(text, p))), true)
               AS all_ok,
           CASE
               WHEN NOT m1 THEN 'negated by "'
                   || detector_cue(t0, $neg_pre, $neg_post, $neg_before_cue, $neg_after_cue)
                   || '"'
               WHEN NOT m2 THEN 'hedged by "'
                   || detector_cue(t1, $hedge_pre, $hedge_post, $hedge_before_cue,
                                   $hedge_after_cue) || '"'
               WHEN NOT m3 THEN 'named as symptom / contributing factor / consequence by "'
                   || detector_cue(t2, $role_pre, $role_post, $role_before_cue,
                                   $role_after_cue) || '"'
               WHEN NOT m4 THEN 'consequence wording "'
                   || detector_cue(t3, $weak_pre, $weak_post, $weak_before_cue,
                                   $weak_after_cue) || '"'
           END AS decided_by
    FROM (SELECT x4.*, regexp_matches(t4, $any_regex) AS m4 FROM x4)
),
s AS MATERIALIZED (    -- candidates: the sentences whose text is a candidate
    SELECT f0.*, x.text, x.misspelling, x.own_label, x.lead, x.lead_kind, x.own_claim,
           x.other_clause, x.all_ok, x.m1, x.m2, x.m3, x.m4, x.decided_by
    FROM f0
    JOIN x ON x.raw_text = f0.raw_text
),
lines AS (   -- the first sentence of every line a candidate sits on: where a label would be
    SELECT o.run_id, o.case_id, o.section_idx, o.line_no,
           arg_min(o.text, o.sentence_idx) AS head
    FROM j_raw_output_sentence AS o
    JOIN (SELECT DISTINCT run_id, case_id, section_idx, line_no FROM s) AS l
      ON l.run_id = o.run_id AND l.case_id = o.case_id AND l.section_idx = o.section_idx
     AND l.line_no = o.line_no
    WHERE $scope <> 'anywhere'   -- scope anywhere reads no label
    GROUP BY ALL
),
pick_runs AS MATERIALIZED (  -- the sentences of answers where a candidate sits in a
                             -- numbered item (root_cause scope only: no other reads a pick)
    SELECT p.run_id, p.case_id, p.section_idx, p.sentence_idx, p.text
    FROM j_raw_output_sentence AS p
    JOIN (SELECT DISTINCT run_id, case_id FROM s WHERE item IS NOT NULL) AS k
      ON k.run_id = p.run_id AND k.case_id = p.case_id
    WHERE $scope = 'root_cause'
),
pick_texts AS MATERIALIZED (  -- each distinct such text picking a numbered item ("It's (3)")
    SELECT text, regexp_extract(text, $pick, 1) AS n, regexp_extract(text, $pick, 0) AS cue
    FROM (SELECT DISTINCT text FROM pick_runs)
    WHERE regexp_matches(text, $pick)
),
picks AS (   -- a sentence picking a numbered item, in an answer where a candidate sits in
             -- a numbered item
    SELECT p.run_id, p.case_id, p.section_idx AS p_sec, p.sentence_idx AS p_sent, t.n, t.cue
    FROM pick_runs AS p
    JOIN pick_texts AS t ON t.text = p.text
),
picked AS (  -- the list it picks from: the last section before the pick holding that item
    SELECT run_id, case_id, item, section_idx, min(cue) AS pick_cue
    FROM (SELECT pk.run_id, pk.case_id, pk.n AS item, max(o.section_idx) AS section_idx,
                 pk.cue
          FROM picks AS pk
          JOIN j_raw_output_sentence AS o
            ON o.run_id = pk.run_id AND o.case_id = pk.case_id AND o.item = pk.n
           AND (o.section_idx < pk.p_sec
                OR (o.section_idx = pk.p_sec AND o.sentence_idx < pk.p_sent))
          GROUP BY pk.run_id, pk.case_id, pk.n, pk.p_sec, pk.p_sent, pk.cue)
    GROUP BY ALL
),
c AS MATERIALIZED (
    SELECT s.*, pd.pick_cue,
           CASE WHEN coalesce(s.section_kind, '') = 'followup' OR coalesce(s.section, '') = ''
                    THEN NULL
                WHEN regexp_matches(s.section, $heading_alternatives) THEN 'alternatives'
                WHEN regexp_matches(s.section, $heading_role) THEN 'role'
                WHEN regexp_matches(s.section, $heading_conclusion)
                     AND (NOT regexp_matches(s.section, $subordinate)
                          OR regexp_matches(s.section, $lead_conclusion)) THEN 'conclusion'
           END AS heading_kind,
           -- the sentence's own label, else its line's (a label scopes the rest of its line)
           coalesce(s.own_label, nullif(regexp_extract(l.head, $label, 1), '')) AS label,
           nx.text AS next_text
    FROM s
    LEFT JOIN j_raw_output_sentence AS nx
           ON nx.run_id = s.run_id AND nx.case_id = s.case_id
          AND nx.section_idx = s.section_idx AND nx.sentence_idx = s.sentence_idx + 1
          AND $scope = 'root_cause'   -- the next sentence's claim counts in root_cause only
    LEFT JOIN picked AS pd
           ON pd.run_id = s.run_id AND pd.case_id = s.case_id
          AND pd.section_idx = s.section_idx AND pd.item = s.item
    LEFT JOIN lines AS l
           ON l.run_id = s.run_id AND l.case_id = s.case_id AND l.section_idx = s.section_idx
          AND l.line_no = s.line_no
),
d AS (
    SELECT c.*,
           CASE WHEN label IS NULL THEN NULL
                WHEN regexp_matches(label, $label_alternatives) THEN 'alternatives'
                WHEN regexp_matches(label, $label_role) THEN 'role'
                WHEN regexp_matches(label, $label_evidence) THEN 'evidence'
                WHEN regexp_matches(label, $label_conclusion)
                     AND NOT regexp_matches(label, $subordinate) THEN 'conclusion'
           END AS label_kind
    FROM c
),
h AS (
    SELECT d.*,
           CASE WHEN label_kind IS NOT NULL THEN label_kind || ' label "' || label || '"'
                WHEN lead_kind IS NOT NULL THEN lead_kind || ' lead "' || lead || '"'
                WHEN heading_kind IS NOT NULL THEN heading_kind || ' heading "' || section || '"'
           END AS structure,
           coalesce(label_kind, lead_kind, heading_kind) AS kind,
           coalesce(own_claim,
                    CASE WHEN regexp_matches(coalesce(next_text, ''), $anaphora_next)
                         THEN 'claimed by the next sentence "'
                              || regexp_extract(next_text, $anaphora_cue, 0) || '"' END)
               AS claim
    FROM d
)
SELECT run_id, case_id, detector_id, $scope AS scope, section_idx, sentence_idx, line_no,
       section, section_kind, raw_text AS text,
       CASE $scope
           WHEN 'anywhere' THEN true
           WHEN 'alternatives' THEN coalesce(kind = 'alternatives', false)
           ELSE CASE WHEN pick_cue IS NOT NULL THEN true
                     WHEN kind IN ('alternatives', 'role', 'evidence') THEN false
                     WHEN kind = 'conclusion' THEN true
                     ELSE claim IS NOT NULL END
       END AS in_scope,
       coalesce(misspelling, '') || CASE $scope
           WHEN 'anywhere' THEN 'scope anywhere'
           ELSE coalesce(CASE WHEN $scope = 'root_cause' AND pick_cue IS NOT NULL
                              THEN 'item ' || item || ' picked by "' || pick_cue || '"' END,
                         structure,
                         CASE WHEN $scope <> 'root_cause' THEN NULL
                              WHEN claim IS NOT NULL THEN claim
                              ELSE other_clause END,
                         'no conclusion heading, label or causal cue')
       END AS scope_rule,
       all_ok,
       NOT m1 AS negated,
       m1 AND NOT m2 AS hedged,
       m2 AND NOT m3 AS demoted,
       m3 AND NOT m4 AS weak,
       m4 AS strong,
       decided_by
FROM h;
