-- The paired differences behind each comparison and their bootstrap: paired_differences holds,
-- per design other than the baseline (the manifest's `baseline`, else its first design) and metric,
-- that design - the baseline over the (case, repetition) groups where both answered correctly (a
-- cheap wrong answer is no saving) and both have a value, sorted (r = rank); bootstrap_medians holds
-- the median of each of B resamples (B = getvariable('bootstrap_resamples'), default 2000, seeded by
-- getvariable('bootstrap_seed'), default 20261008). metrics_comparisons.sql reads both.
--
-- How the bootstrap stays cheap. Building B resamples of n differences costs B x n draws (10^8 per
-- metric at 50 000 pairs). Each resample's median is drawn instead from its exact distribution,
-- which is the same bootstrap at a cost that grows with sqrt(n), not B x n:
--   with the differences sorted, d_1 <= ... <= d_n, a resample's median is d at K1, the m-th
--   smallest of the n indices it drew (m = (n + 1) // 2), or for even n the mean of d at K1 and at
--   K2, the (m+1)-th smallest. K1 <= j exactly when at least m draws are <= j, so
--     P(K1 <= j) = P(Binomial(n, j / n) >= m).
--   Given K1 = i, K2 = i unless exactly m draws are <= i; then the n - m others are uniform on
--   i+1..n and K2 is their minimum, so
--     P(K2 > i | K1 = i) = (P(m draws <= i) - P(m draws <= i - 1, none = i)) / P(K1 = i).
-- K1 is drawn by inverting the first distribution with one uniform, K2 from the second with another.
-- The distribution is evaluated only within w = 4 sqrt(n) + 2 of m (8 standard deviations of K1;
-- beyond, it is 0 or 1 to 1e-14), each binomial tail over the w terms that are not negligible, and
-- once per distinct n, not per metric or design. The uniforms come from SplitMix64 over (seed,
-- design, metric, resample, draw) in exact integer arithmetic, so a run and a seed give the same
-- interval anywhere. With N designs the work is N - 1 times one comparison's (B uniforms per design
-- and metric, one merge per distinct n): linear in the number of designs.
--
-- Random streams: the first design compared (other_index 1) keeps the streams a two-design run has
-- always had, (ord - 1) * B onwards, so its intervals do not change; design k starts
-- (k - 1) * 64 metric slots later. 64 is a fixed slot count, not the number of metrics, so adding a
-- metric (a new ord) leaves every design's intervals unchanged.
CREATE OR REPLACE TABLE paired_differences AS
WITH params AS (      -- every design but the baseline, numbered in the manifest's order
    SELECT baseline, other, row_number() OVER (ORDER BY position) AS other_index
    FROM (SELECT baseline, unnest(designs) AS other, generate_subscripts(designs, 1) AS position
          FROM run_manifest)
    WHERE other IS DISTINCT FROM baseline
), pairs AS (
    SELECT p.other, p.other_index, b.case_id, b.repetition,
           unnest([{'metric': 'turns', 'ord': 1, 'd': o.turns::DOUBLE - b.turns},
                   {'metric': 'toolCalls', 'ord': 2, 'd': o.tool_calls::DOUBLE - b.tool_calls},
                   {'metric': 'inputTokens', 'ord': 3, 'd': o.input_tokens::DOUBLE - b.input_tokens},
                   {'metric': 'outputTokens', 'ord': 4, 'd': o.output_tokens::DOUBLE - b.output_tokens},
                   {'metric': 'totalTokens', 'ord': 5, 'd': o.total_tokens::DOUBLE - b.total_tokens},
                   {'metric': 'elapsedMs', 'ord': 6, 'd': o.elapsed_ms - b.elapsed_ms},
                   {'metric': 'uncachedInputTokens', 'ord': 7,
                    'd': o.uncached_input_tokens::DOUBLE - b.uncached_input_tokens},
                   {'metric': 'reasoningTokens', 'ord': 8,
                    'd': o.reasoning_tokens::DOUBLE - b.reasoning_tokens},
                   {'metric': 'backendLookups', 'ord': 9,
                    'd': o.backend_lookups::DOUBLE - b.backend_lookups},
                   {'metric': 'toolResultBytes', 'ord': 10,
                    'd': o.tool_result_bytes::DOUBLE - b.tool_result_bytes}], recursive := true)
    FROM params p
    JOIN conversations b ON b.design = p.baseline AND b.passed
    JOIN conversations o ON o.design = p.other AND o.passed AND o.case_id = b.case_id
                        AND o.repetition = b.repetition
)
SELECT other, other_index, metric, ord, case_id, repetition, d,
       row_number() OVER (PARTITION BY other, metric ORDER BY d) AS r
FROM pairs
WHERE d IS NOT NULL;

CREATE OR REPLACE TABLE bootstrap_medians AS
WITH params AS (
    SELECT coalesce(getvariable('bootstrap_resamples'), 2000)::BIGINT AS resamples,
           coalesce(getvariable('bootstrap_seed'), 20261008)::BIGINT AS seed
), sorted AS (
    SELECT other, metric, d, r FROM paired_differences
), sizes AS (
    SELECT other, metric, any_value(other_index) AS other_index, any_value(ord) AS ord, count(*) AS n,
           (count(*) + 1) // 2 AS m
    FROM paired_differences GROUP BY other, metric
), ns AS (
    SELECT DISTINCT n, m, ceil(4 * sqrt(n))::BIGINT + 2 AS w FROM sizes
), log_choose AS (      -- ln C(n, k) for the k the tails need
    SELECT n, k, lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) AS lc
    FROM (SELECT n, unnest(range(greatest(0, m - w), least(n, m + w) + 1)) AS k FROM ns)
), grid AS (            -- the positions j where K1 can fall
    SELECT n, m, least(n, m + w) AS j_top, unnest(range(greatest(1, m - w), least(n, m + w) + 1)) AS j
    FROM ns
), tails AS (           -- P(Binomial(n, j/n) >= m) below the middle, P(... < m) above it
    SELECT g.n, g.j, sum(exp(l.lc + l.k * ln(g.j / g.n) + (g.n - l.k) * ln(1 - g.j / g.n))) AS tail
    FROM grid g
    JOIN log_choose l ON l.n = g.n AND ((g.j < g.m AND l.k >= g.m) OR (g.j >= g.m AND l.k < g.m))
    WHERE g.j < g.n
    GROUP BY g.n, g.j
), cdf AS (             -- P(K1 <= j), made monotone against rounding; 1 at the top of the window
    SELECT g.n, g.m, g.j,
           greatest(0, least(1, max(CASE WHEN g.j = g.j_top THEN 1.0
                                         WHEN g.j < g.m THEN t.tail
                                         ELSE 1 - t.tail END)
                                    OVER (PARTITION BY g.n ORDER BY g.j ROWS UNBOUNDED PRECEDING))) AS f
    FROM grid g LEFT JOIN tails t USING (n, j)
), steps AS (           -- with q = P(K2 = j | K1 = j) for even n
    SELECT c.n, c.j, c.f,
           coalesce(CASE WHEN c.n % 2 = 1 OR c.j = c.n THEN 1.0
                ELSE greatest(0, least(1, 1 - (
                         exp(l.lc + c.m * ln(c.j / c.n) + (c.n - c.m) * ln(1 - c.j / c.n))
                         - CASE WHEN c.j > 1
                                THEN exp(l.lc + c.m * ln((c.j - 1) / c.n) + (c.n - c.m) * ln((c.n - c.j) / c.n))
                                ELSE 0 END)
                     / nullif(c.f - coalesce(lag(c.f) OVER (PARTITION BY c.n ORDER BY c.j), 0), 0)))
           END, 1.0) AS q
    FROM cdf c JOIN log_choose l ON l.n = c.n AND l.k = c.m
), counters AS (
    SELECT s.other, s.metric, s.n, s.m, p.seed, unnest(range(p.resamples)) AS b,
           ((s.other_index - 1) * 64 + s.ord - 1) * p.resamples AS stream_start
    FROM sizes s, params p
), splitmix_a AS (      -- SplitMix64: state = seed + counter * golden gamma, then its finalizer;
    SELECT other, metric, n, m, b,  -- "& (2^64 - 1)" keeps the low 64 bits of each 128-bit product
           (seed::UHUGEINT + ((stream_start + b) * 2 + 1)::UHUGEINT * 11400714819323198485::UHUGEINT)
               & 18446744073709551615::UHUGEINT AS z1,
           (seed::UHUGEINT + ((stream_start + b) * 2 + 2)::UHUGEINT * 11400714819323198485::UHUGEINT)
               & 18446744073709551615::UHUGEINT AS z2
    FROM counters
), splitmix_b AS (
    SELECT other, metric, n, m, b,
           (xor(z1, z1 >> 30) * 13787848793156543929::UHUGEINT) & 18446744073709551615::UHUGEINT AS z1,
           (xor(z2, z2 >> 30) * 13787848793156543929::UHUGEINT) & 18446744073709551615::UHUGEINT AS z2
    FROM splitmix_a
), splitmix_c AS (
    SELECT other, metric, n, m, b,
           (xor(z1, z1 >> 27) * 10723151780598845931::UHUGEINT) & 18446744073709551615::UHUGEINT AS z1,
           (xor(z2, z2 >> 27) * 10723151780598845931::UHUGEINT) & 18446744073709551615::UHUGEINT AS z2
    FROM splitmix_b
), uniforms AS (        -- the top 53 bits, centred: strictly between 0 and 1
    SELECT other, metric, n, m, b,
           ((xor(z1, z1 >> 31) >> 11)::DOUBLE + 0.5) / 9007199254740992 AS u1,
           ((xor(z2, z2 >> 31) >> 11)::DOUBLE + 0.5) / 9007199254740992 AS u2
    FROM splitmix_c
), first_index AS (     -- K1: the smallest j with P(K1 <= j) >= u1, found by merging the sorted
    SELECT other, metric, n, m, b, u2, k1  -- uniforms into the sorted distribution (cheaper than a join)
    FROM (SELECT other, metric, n, m, b, u2, draw,
                 min(j) OVER (PARTITION BY n ORDER BY v, draw DESC, j
                              ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS k1
          FROM (SELECT other, metric, n, m, b, u1 AS v, u2, true AS draw, NULL::BIGINT AS j FROM uniforms
                UNION ALL
                SELECT NULL, NULL, n, NULL, NULL, f, NULL, false, j FROM steps))
    WHERE draw
), both_indices AS (
    SELECT i.other, i.metric, i.b, i.k1,
           CASE WHEN i.n % 2 = 1 OR i.u2 < s.q THEN i.k1
                ELSE least(i.n, i.k1 + greatest(1, ceil((i.n - i.k1)
                              * (1 - pow(1 - (i.u2 - s.q) / (1 - s.q), 1.0 / (i.n - i.m))))::BIGINT))
           END AS k2
    FROM first_index i JOIN steps s ON s.n = i.n AND s.j = i.k1
), resampled AS (
    SELECT i.other, i.metric, i.b, i.k1, i.k2, (s1.d + s2.d) / 2 AS median
    FROM both_indices i
    JOIN sorted s1 ON s1.other = i.other AND s1.metric = i.metric AND s1.r = i.k1
    JOIN sorted s2 ON s2.other = i.other AND s2.metric = i.metric AND s2.r = i.k2
)
SELECT * FROM resampled;
