-- The interval of every compare_figures.sql change: a percentile bootstrap that resamples each case's
-- pairs with replacement within that case (the cases are the dataset's, fixed; what varies between runs
-- is what a repetition gives), B = getvariable('compare_resamples') resamples seeded by
-- getvariable('compare_seed'), at the levels getvariable('compare_low_quantile') and
-- getvariable('compare_high_quantile') (0.025 and 0.975 for 95 %). A case with one pair contributes
-- itself to every resample: it says nothing about noise, which is why analysis/compare.py gives no
-- interval to a model's figure with a case of one repetition.
--
-- Each draw is hash(seed, design, resample, case, pair) modulo the case's pair count: the same runs and
-- seed give the same interval. One draw per pair and resample serves every figure, and, since a case asks
-- one kind of question, both its kind's scope and every kind's: the work is B x pairs rows in all.
WITH params AS (
    SELECT coalesce(getvariable('compare_resamples'), 2000)::BIGINT AS resamples,
           coalesce(getvariable('compare_seed'), 20261008)::BIGINT AS seed
), draws AS (
    SELECT p.design_number, p.case_id, r.b,
           (hash(params.seed, p.design_number, r.b, p.case_id, p.i) % p.n_case::UBIGINT)::BIGINT + 1 AS j
    FROM compare_pairs p, params, range((SELECT resamples FROM params)) r(b)
), by_kind AS (
    SELECT p.design, p.asks, d.b, count(*) AS n,
           sum(p.b_passed) AS b_passed, sum(p.c_passed) AS c_passed, sum(p.b_tokens) AS b_tokens,
           sum(p.c_tokens) AS c_tokens, sum(p.b_turns) AS b_turns, sum(p.c_turns) AS c_turns,
           sum(p.b_calls) AS b_calls, sum(p.c_calls) AS c_calls, sum(p.b_lookups) AS b_lookups,
           sum(p.c_lookups) AS c_lookups, sum(p.b_usd) AS b_usd, sum(p.c_usd) AS c_usd
    FROM draws d
    JOIN compare_pairs p ON p.design_number = d.design_number AND p.case_id = d.case_id AND p.i = d.j
    GROUP BY p.design, p.asks, d.b
), scoped AS (
    SELECT * FROM by_kind
    UNION ALL
    SELECT design, '*', b, sum(n), sum(b_passed), sum(c_passed), sum(b_tokens), sum(c_tokens), sum(b_turns),
           sum(c_turns), sum(b_calls), sum(c_calls), sum(b_lookups), sum(c_lookups), sum(b_usd), sum(c_usd)
    FROM by_kind
    GROUP BY design, b
), statistics AS (
    SELECT design, asks,
           unnest([{'figure': 'passed', 'change': (c_passed - b_passed) / n},
                   {'figure': 'totalTokens', 'change': c_tokens / nullif(b_tokens, 0) - 1},
                   {'figure': 'turns', 'change': c_turns / nullif(b_turns, 0) - 1},
                   {'figure': 'toolCalls', 'change': c_calls / nullif(b_calls, 0) - 1},
                   {'figure': 'backendLookups', 'change': c_lookups / nullif(b_lookups, 0) - 1},
                   {'figure': 'costUsd', 'change': c_usd / nullif(b_usd, 0) - 1}], recursive := true)
    FROM scoped
)
-- (the quantile levels must be constants: the two variables hold (1 - confidence) / 2 and 1 - that)
SELECT design, asks, figure, quantile_cont(change, getvariable('compare_low_quantile')) AS ci_low,
       quantile_cont(change, getvariable('compare_high_quantile')) AS ci_high, count(change) AS resamples
FROM statistics
GROUP BY design, asks, figure
ORDER BY design, asks, figure;
