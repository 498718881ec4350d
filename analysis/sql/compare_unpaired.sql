-- Per design, the conversations finished in one run only (no partner with the same case and repetition
-- in the other): they are left out of every paired figure, and `wismo compare` says how many.
SELECT coalesce(b.design, c.design) AS design, count(*) FILTER (WHERE c.case_id IS NULL) AS baseline_only,
       count(*) FILTER (WHERE b.case_id IS NULL) AS candidate_only
FROM baseline_rows b
FULL OUTER JOIN candidate_rows c USING (case_id, design, repetition)
GROUP BY ALL
HAVING baseline_only + candidate_only > 0
ORDER BY design;
