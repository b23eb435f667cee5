-- Migration 0017: the list item a sentence of the final answer belongs to.
-- raw_output_sentence.item is the number of the numbered list item ("3." / "3)" / "(3)") whose
-- paragraph holds the sentence, NULL outside numbered items. The output detectors bind a later
-- pick ("It's (3)", "结论是第 2 个") to the item it names (docs/registry.md, "Detector
-- grammar"). Rows extracted before this migration have NULL: judge the audits again to read
-- picks in them.
ALTER TABLE raw_output_sentence ADD COLUMN IF NOT EXISTS item VARCHAR;
