-- pass^k per design for k = 1..repetitions, tau-bench's definition: for each case, with n its
-- conversations in that design and c how many passed, C(c, k) / C(n, k) (the chance that k of
-- them drawn without replacement all pass), averaged over the cases. C(c, k) / C(n, k) is the
-- running product of (c - i) / (n - i) for i = 0..k-1, so every k costs one multiplication.
WITH per_case AS (
    SELECT design, case_id, count(*) AS n, count_if(passed) AS c FROM conversations GROUP BY ALL
), factors AS (
    SELECT p.design, p.case_id, p.n, k.k, greatest(p.c - (k.k - 1), 0)::DOUBLE / (p.n - (k.k - 1)) AS factor
    FROM per_case p
    CROSS JOIN (SELECT unnest(range(1, repetitions + 1)) AS k FROM run_manifest) k
    WHERE k.k <= p.n
), ratios AS (
    SELECT design, case_id, k,
           product(factor) OVER (PARTITION BY design, case_id ORDER BY k
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS ratio
    FROM factors
)
SELECT r.design, r.k, avg(r.ratio) AS pass_hat_k, count(*) AS cases
FROM ratios r, run_manifest m
GROUP BY r.design, r.k, m.designs
ORDER BY list_position(m.designs, r.design), r.design, r.k;
