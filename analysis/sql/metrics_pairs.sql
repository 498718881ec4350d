-- The (case, repetition) pairs of the first two designs (manifest order) where both finished: how
-- many, in how many both answered correctly (every saving is computed over those), and in how many
-- only the first or only the second did. No row when the run has fewer than two designs.
WITH params AS (
    SELECT designs[1] AS baseline, designs[2] AS other FROM run_manifest WHERE len(designs) >= 2
)
SELECT p.baseline, p.other, count(*) AS pairs, count_if(b.passed AND o.passed) AS correct_pairs,
       count_if(b.passed AND NOT o.passed) AS only_baseline, count_if(o.passed AND NOT b.passed) AS only_other
FROM params p
JOIN conversations b ON b.design = p.baseline
JOIN conversations o ON o.design = p.other AND o.case_id = b.case_id AND o.repetition = b.repetition
GROUP BY p.baseline, p.other;
