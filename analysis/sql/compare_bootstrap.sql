-- The interval of every compare_figures.sql change: a percentile bootstrap that resamples each case's
-- pairs with replacement within that case (the cases are the dataset's, fixed; what varies between runs
-- is what a repetition gives), B = getvariable('compare_resamples') resamples seeded by
-- getvariable('compare_seed'), at the confidence in getvariable('compare_low_quantile') and
-- getvariable('compare_high_quantile') (0.025 and 0.975 for 95 %). A case with one pair contributes itself to every resample: it says nothing about noise,
-- which is why analysis/compare.py gives no interval to a model's figure with a case of one repetition.
-- Each draw is hash(seed, group, resample, case, pair) modulo the case's pair count: the same runs and
-- seed give the same interval. Cost: B x pairs rows per figure and scope.
WITH params AS (
    SELECT coalesce(getvariable('compare_resamples'), 2000)::BIGINT AS resamples,
           coalesce(getvariable('compare_seed'), 20261008)::BIGINT AS seed
), draws AS (
    SELECT p.g, p.case_id, r.b, (hash(params.seed, p.g, r.b, p.case_id, p.i) % p.n_case::UBIGINT)::BIGINT + 1 AS j
    FROM compare_pairs p, params, range((SELECT resamples FROM params)) r(b)
), resampled AS (
    SELECT d.g, d.b, any_value(p.figure) AS figure, sum(p.base) AS base_sum, sum(p.cand) AS cand_sum,
           count(*) AS n
    FROM draws d
    JOIN compare_pairs p ON p.g = d.g AND p.case_id = d.case_id AND p.i = d.j
    GROUP BY d.g, d.b
), statistics AS (
    SELECT g, CASE WHEN figure = 'passed' THEN (cand_sum - base_sum) / n
                   ELSE cand_sum / nullif(base_sum, 0) - 1 END AS change
    FROM resampled
)
-- (the quantile levels must be constants: the two variables hold (1 - confidence) / 2 and 1 - that)
SELECT g, quantile_cont(change, getvariable('compare_low_quantile')) AS ci_low,
       quantile_cont(change, getvariable('compare_high_quantile')) AS ci_high, count(change) AS resamples
FROM statistics
GROUP BY g
ORDER BY g;
