-- Every design but the baseline (the manifest's `baseline`, else its first design) against it in money,
-- as the headline compares tokens: over the (case, repetition) pairs where both answered correctly
-- (correct_pairs), and of those the ones where both conversations have a price (priced_pairs), the two
-- middle values of the baseline's costs, of the other's and of the paired differences (other -
-- baseline): their medians, USD × 10^money_scale. In the manifest's order. Needs money_costs.sql.
WITH others AS (
    SELECT baseline, other, position
    FROM (SELECT baseline, unnest(designs) AS other, generate_subscripts(designs, 1) AS position
          FROM run_manifest)
    WHERE other IS DISTINCT FROM baseline
), pairs AS (
    SELECT o.other, b.usd AS baseline_usd, x.usd AS other_usd,
           b.usd IS NOT NULL AND x.usd IS NOT NULL AS priced
    FROM others o
    JOIN conversation_costs b ON b.design = o.baseline AND b.passed
    JOIN conversation_costs x ON x.design = o.other AND x.passed AND x.case_id = b.case_id
                             AND x.repetition = b.repetition
)
SELECT o.baseline, o.other, count(p.other) AS correct_pairs, count_if(p.priced) AS priced_pairs,
       middle_values(list(p.baseline_usd) FILTER (WHERE p.priced)) AS baseline_median,
       middle_values(list(p.other_usd) FILTER (WHERE p.priced)) AS other_median,
       middle_values(list(p.other_usd - p.baseline_usd) FILTER (WHERE p.priced)) AS paired_median
FROM others o
LEFT JOIN pairs p USING (other)
GROUP BY o.baseline, o.other, o.position
ORDER BY o.position;
