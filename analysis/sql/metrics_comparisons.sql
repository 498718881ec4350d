-- How much the second design saves over the first (manifest order, e.g. focused over granular) on
-- each metric: both medians and the saving in percent of the first's median; then, over the
-- (case, repetition) pairs where both have a value, the median of the paired differences
-- (second - first) and its 95 % bootstrap interval (percentiles 2.5 and 97.5 of the resampled
-- medians; getvariable('bootstrap_resamples') resamples, default 2000, seeded by
-- getvariable('bootstrap_seed'), default 20261008).
-- The bootstrap itself is in bootstrap.sql, which must run first.
WITH params AS (
    SELECT designs[1] AS baseline, designs[2] AS other,
           coalesce(getvariable('bootstrap_resamples'), 2000)::BIGINT AS resamples,
           coalesce(getvariable('bootstrap_seed'), 20261008)::BIGINT AS seed
    FROM run_manifest
    WHERE len(designs) >= 2
), medians AS (
    SELECT cm.metric, cm.ord,
           median(cm.value) FILTER (WHERE cm.design = p.baseline) AS baseline_median,
           median(cm.value) FILTER (WHERE cm.design = p.other) AS other_median
    FROM conversation_metrics cm, params p
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
       p.resamples AS bootstrap_resamples, p.seed AS bootstrap_seed
FROM medians md
CROSS JOIN params p
LEFT JOIN sizes s USING (metric)
LEFT JOIN intervals i USING (metric)
ORDER BY md.ord;
