-- For each design other than the baseline (the manifest's `baseline`, else its first design), in the
-- manifest's order: the (case, repetition) groups where both it and the baseline finished, how many,
-- in how many both answered correctly (every saving is computed over those), and in how many only
-- the baseline or only that design did. No row when the run has a single design.
WITH params AS (
    SELECT baseline, other, row_number() OVER (ORDER BY position) AS other_index
    FROM (SELECT baseline, unnest(designs) AS other, generate_subscripts(designs, 1) AS position
          FROM run_manifest)
    WHERE other IS DISTINCT FROM baseline
)
SELECT p.baseline, p.other, count(*) AS pairs, count_if(b.passed AND o.passed) AS correct_pairs,
       count_if(b.passed AND NOT o.passed) AS only_baseline, count_if(o.passed AND NOT b.passed) AS only_other
FROM params p
JOIN conversations b ON b.design = p.baseline
JOIN conversations o ON o.design = p.other AND o.case_id = b.case_id AND o.repetition = b.repetition
GROUP BY p.baseline, p.other, p.other_index
ORDER BY p.other_index;
