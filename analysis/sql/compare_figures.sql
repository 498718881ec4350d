-- Per design, scope (a question kind, or '*' for every kind) and figure (compare_pairs.sql first): the
-- pairs that have the figure, the cases they cover and the fewest pairs any case has, both runs' means,
-- the mean paired difference (candidate - baseline) and the change: for `passed` the pass rate's
-- difference (a share, 0.1 = 10 points), for every other figure the relative change of the total
-- (candidate sum / baseline sum - 1; NULL when the baseline's sum is 0). changed_pairs counts the pairs
-- whose two values differ.
WITH long AS (
    SELECT design, asks, case_order, case_id, n_case,
           unnest([{'figure': 'passed', 'ord': 1, 'base': b_passed, 'cand': c_passed},
                   {'figure': 'totalTokens', 'ord': 2, 'base': b_tokens, 'cand': c_tokens},
                   {'figure': 'turns', 'ord': 3, 'base': b_turns, 'cand': c_turns},
                   {'figure': 'toolCalls', 'ord': 4, 'base': b_calls, 'cand': c_calls},
                   {'figure': 'backendLookups', 'ord': 5, 'base': b_lookups, 'cand': c_lookups},
                   {'figure': 'costUsd', 'ord': 6, 'base': b_usd, 'cand': c_usd}], recursive := true)
    FROM compare_pairs
), scoped AS (
    SELECT design, asks, case_order, case_id, n_case, figure, ord, base, cand FROM long
    UNION ALL
    SELECT design, '*', 0, case_id, n_case, figure, ord, base, cand FROM long
)
SELECT design, asks, figure, any_value(ord) AS ord, min(case_order) AS kind_order,
       count(*) AS pairs, count(DISTINCT case_id) AS cases, min(n_case) AS fewest_repetitions,
       avg(base) AS baseline_mean, avg(cand) AS candidate_mean, avg(cand - base) AS mean_difference,
       CASE WHEN figure = 'passed' THEN avg(cand) - avg(base)
            ELSE sum(cand) / nullif(sum(base), 0) - 1 END AS change,
       count_if(cand <> base) AS changed_pairs
FROM scoped
WHERE base IS NOT NULL
GROUP BY design, asks, figure
ORDER BY design, kind_order, asks, ord;
