-- What `wismo plan` needs of a pilot run (views.sql first): per design pair and figure, the paired
-- differences' mean and their variance between repetitions of the same case (pooled over the cases:
-- the cases are the dataset's, fixed, so only what a repetition gives is noise), and the baseline's mean.
-- Two kinds of pair: every design against the baseline, within the run (second - first), and every
-- design against itself in a second run, which is what `wismo compare` pairs: two independent
-- repetitions differ with twice one repetition's variance. pooled_variance is NULL when no case has
-- two repetitions (nothing to tell the noise by). Also the per-conversation means a study's cost is
-- estimated from: turns (requests), total tokens, elapsed ms.
WITH base AS (
    SELECT baseline FROM run_manifest
), values_of AS (
    SELECT c.design, c.case_id, c.repetition, c.turns, c.total_tokens, c.elapsed_ms,
           unnest([{'figure': 'passed', 'ord': 1, 'v': c.passed::INT::DOUBLE},
                   {'figure': 'totalTokens', 'ord': 2, 'v': c.total_tokens::DOUBLE},
                   {'figure': 'turns', 'ord': 3, 'v': c.turns::DOUBLE},
                   {'figure': 'toolCalls', 'ord': 4, 'v': c.tool_calls::DOUBLE},
                   {'figure': 'backendLookups', 'ord': 5, 'v': c.backend_lookups::DOUBLE}], recursive := true)
    FROM conversations c
), between_designs AS (
    SELECT f.design AS first, s.design AS second, false AS rerun, f.figure, f.ord, f.case_id, f.repetition,
           s.v - f.v AS d, f.v AS first_value,
           (f.turns + s.turns) / 2 AS turns, (f.total_tokens + s.total_tokens) / 2 AS total_tokens,
           (f.elapsed_ms + s.elapsed_ms) / 2 AS elapsed_ms
    FROM values_of f
    JOIN base ON f.design = base.baseline
    JOIN values_of s ON s.design <> f.design AND s.case_id = f.case_id AND s.repetition = f.repetition
                    AND s.figure = f.figure
), reruns AS (
    SELECT design AS first, design AS second, true AS rerun, figure, ord, case_id, repetition, v AS d,
           v AS first_value, turns, total_tokens, elapsed_ms
    FROM values_of
), all_pairs AS (
    SELECT * FROM between_designs WHERE d IS NOT NULL
    UNION ALL
    SELECT * FROM reruns WHERE d IS NOT NULL
), by_case AS (
    SELECT first, second, rerun, figure, ord, case_id, count(*) AS n, sum(d) AS sum_d,
           coalesce(var_samp(d) * (count(*) - 1), 0) AS squares, sum(first_value) AS sum_first,
           sum(turns) AS sum_turns, sum(total_tokens) AS sum_tokens, sum(elapsed_ms) AS sum_elapsed
    FROM all_pairs
    GROUP BY ALL
)
SELECT b.first, b.second, b.rerun, b.figure, any_value(b.ord) AS ord, count(*) AS cases, sum(b.n) AS pairs,
       min(b.n) AS fewest_repetitions, sum(b.sum_first) / sum(b.n) AS baseline_mean,
       CASE WHEN b.rerun THEN 0 ELSE sum(b.sum_d) / sum(b.n) END AS mean_difference,
       sum(b.squares) / nullif(sum(b.n) - count(*), 0) * CASE WHEN b.rerun THEN 2 ELSE 1 END AS pooled_variance,
       sum(b.sum_turns) / sum(b.n) AS turns, sum(b.sum_tokens) / sum(b.n) AS total_tokens,
       sum(b.sum_elapsed) / sum(b.n) AS elapsed_ms
FROM by_case b
CROSS JOIN run_manifest m
GROUP BY b.first, b.second, b.rerun, b.figure, m.designs
ORDER BY b.rerun, list_position(m.designs, b.second), list_position(m.designs, b.first), ord;
