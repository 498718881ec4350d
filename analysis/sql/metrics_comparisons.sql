-- How much each design saves over the baseline (the manifest's `baseline`, else its first design;
-- e.g. focused over granular) on each metric, over the (case, repetition) groups where BOTH that
-- design and the baseline answered correctly: both medians over those groups' conversations and the
-- saving in percent of the baseline's median; the median of the paired differences (design -
-- baseline) over those groups where both have a value (paired_n) and its 95 % bootstrap interval
-- (percentiles 2.5 and 97.5 of the resampled medians; getvariable('bootstrap_resamples') resamples,
-- default 2000, seeded by getvariable('bootstrap_seed'), default 20261008). A wrong answer that cost
-- less is no saving, so failed and errored conversations stay out. The all_* columns are the same
-- medians and saving over every finished conversation, shown beside them, labelled. One row per
-- (design, metric), the designs in the manifest's order; none for a run of one design.
-- The bootstrap itself is in bootstrap.sql, which must run first.
WITH params AS (
    SELECT baseline, other, row_number() OVER (ORDER BY position) AS other_index,
           coalesce(getvariable('bootstrap_resamples'), 2000)::BIGINT AS resamples,
           coalesce(getvariable('bootstrap_seed'), 20261008)::BIGINT AS seed
    FROM (SELECT baseline, unnest(designs) AS other, generate_subscripts(designs, 1) AS position
          FROM run_manifest)
    WHERE other IS DISTINCT FROM baseline
), correct AS (
    SELECT p.other, b.case_id, b.repetition
    FROM params p
    JOIN conversations b ON b.design = p.baseline AND b.passed
    JOIN conversations o ON o.design = p.other AND o.passed AND o.case_id = b.case_id
                        AND o.repetition = b.repetition
), medians AS (         -- the baseline's rows once per design compared, each other design's once
    SELECT p.other, cm.metric, cm.ord,
           median(cm.value) FILTER (WHERE cm.design = p.baseline AND c.case_id IS NOT NULL) AS baseline_median,
           median(cm.value) FILTER (WHERE cm.design = p.other AND c.case_id IS NOT NULL) AS other_median,
           median(cm.value) FILTER (WHERE cm.design = p.baseline) AS all_baseline_median,
           median(cm.value) FILTER (WHERE cm.design = p.other) AS all_other_median
    FROM conversation_metrics cm
    JOIN params p ON cm.design = p.baseline OR cm.design = p.other
    LEFT JOIN correct c ON c.other = p.other AND c.case_id = cm.case_id AND c.repetition = cm.repetition
    GROUP BY p.other, cm.metric, cm.ord
), sizes AS (
    SELECT other, metric, count(*) AS n, median(d) AS median_difference
    FROM paired_differences GROUP BY other, metric
), intervals AS (
    SELECT other, metric, quantile_cont(median, 0.025) AS ci_low, quantile_cont(median, 0.975) AS ci_high
    FROM bootstrap_medians GROUP BY other, metric
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
JOIN params p USING (other)
LEFT JOIN sizes s USING (other, metric)
LEFT JOIN intervals i USING (other, metric)
ORDER BY p.other_index, md.ord;
