-- Per design, scope (a question kind, or '*' for every kind) and figure: the pairs, the cases they
-- cover and the fewest repetitions any case has, both runs' means, the mean paired difference
-- (candidate - baseline) and the change: for `passed` the pass rate's difference (a share, 0.1 = 10
-- points), for every other figure the relative change of the total (candidate sum / baseline sum - 1;
-- NULL when the baseline's sum is 0). changed_pairs counts the pairs whose two values differ.
SELECT design, asks, figure, any_value(ord) AS ord, min(case_order) AS kind_order, any_value(g) AS g,
       count(*) AS pairs, count(DISTINCT case_id) AS cases, min(n_case) AS fewest_repetitions,
       avg(base) AS baseline_mean, avg(cand) AS candidate_mean, avg(cand - base) AS mean_difference,
       CASE WHEN figure = 'passed' THEN avg(cand) - avg(base)
            ELSE sum(cand) / nullif(sum(base), 0) - 1 END AS change,
       count_if(cand <> base) AS changed_pairs
FROM compare_pairs
GROUP BY design, asks, figure
ORDER BY design, kind_order, asks, ord;
