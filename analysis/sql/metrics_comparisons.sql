-- How much the second design saves over the first (manifest order, e.g. focused over granular) on
-- each metric, over the (case, repetition) pairs where BOTH designs answered correctly: both
-- medians over those pairs' conversations and the saving in percent of the first's median; the
-- median of the paired differences (second - first) over those pairs where both have a value
-- (paired_n) and its 95 % bootstrap interval (percentiles 2.5 and 97.5 of the resampled medians;
-- getvariable('bootstrap_resamples') resamples, default 2000, seeded by
-- getvariable('bootstrap_seed'), default 20261008). A wrong answer that cost less is no saving, so
-- failed and errored conversations stay out. The all_* columns are the same medians and saving over
-- every finished conversation, shown beside them, labelled.
-- The bootstrap itself is in bootstrap.sql, which must run first.
WITH params AS (
    SELECT designs[1] AS baseline, designs[2] AS other,
           coalesce(getvariable('bootstrap_resamples'), 2000)::BIGINT AS resamples,
           coalesce(getvariable('bootstrap_seed'), 20261008)::BIGINT AS seed
    FROM run_manifest
    WHERE len(designs) >= 2
), correct AS (
    SELECT b.case_id, b.repetition
    FROM params p
    JOIN conversations b ON b.design = p.baseline AND b.passed
    JOIN conversations o ON o.design = p.other AND o.passed AND o.case_id = b.case_id
                        AND o.repetition = b.repetition
), medians AS (
    SELECT cm.metric, cm.ord,
           median(cm.value) FILTER (WHERE cm.design = p.baseline AND c.case_id IS NOT NULL) AS baseline_median,
           median(cm.value) FILTER (WHERE cm.design = p.other AND c.case_id IS NOT NULL) AS other_median,
           median(cm.value) FILTER (WHERE cm.design = p.baseline) AS all_baseline_median,
           median(cm.value) FILTER (WHERE cm.design = p.other) AS all_other_median
    FROM conversation_metrics cm
    CROSS JOIN params p
    LEFT JOIN correct c ON c.case_id = cm.case_id AND c.repetition = cm.repetition
    GROUP BY cm.metric, cm.ord
), sizes AS (
    SELECT metric, count(*) AS n, median(d) AS median_difference FROM paired_differences GROUP BY metric
), intervals AS (
    SELECT metric, quantile_cont(median, 0.025) AS ci_low, quantile_cont(median, 0.975) AS ci_high
    FROM bootstrap_medians GROUP BY metric
)
SELECT md.metric, p.baseline, p.other, md.baseline_median, md.other_median,
       CASE WHEN md.baseline_median <> 0
            THEN (md.baseline_median - md.other_median) / md.baseline_median * 100 END AS saving_pct,
       coalesce(s.n, 0) AS paired_n, s.median_difference, i.ci_low, i.ci_high,
       p.resamples AS bootstrap_resamples, p.seed AS bootstrap_seed,
       md.all_baseline_median, md.all_other_median,
       CASE WHEN md.all_baseline_median <> 0
            THEN (md.all_baseline_median - md.all_other_median) / md.all_baseline_median * 100
       END AS all_saving_pct
FROM medians md
CROSS JOIN params p
LEFT JOIN sizes s USING (metric)
LEFT JOIN intervals i USING (metric)
ORDER BY md.ord;
