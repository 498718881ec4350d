-- The pairs `wismo compare` compares (run on a connection holding baseline_rows and candidate_rows,
-- each compare_rows.sql's rows of one run, with `usd`, the conversation's cost, NULL when unpriced):
-- every (case, design, repetition) finished in both runs, one row per figure, in two scopes: the
-- question kind (asks) and every kind at once (asks = '*'). A figure either run did not record for that
-- conversation (backend lookups of an old run, an unknown price) leaves that pair out of that figure only.
-- g numbers the (design, scope, figure) groups for the bootstrap's random streams; i numbers a case's
-- pairs within its group and n_case counts them: compare_bootstrap.sql resamples pairs within each case.
CREATE OR REPLACE TABLE compare_pairs AS
WITH paired AS (
    SELECT b.design, b.asks, b.case_order, b.case_id, b.repetition,
           unnest([{'figure': 'passed', 'ord': 1, 'base': b.passed::INT::DOUBLE, 'cand': c.passed::INT::DOUBLE},
                   {'figure': 'totalTokens', 'ord': 2, 'base': b.total_tokens::DOUBLE, 'cand': c.total_tokens::DOUBLE},
                   {'figure': 'turns', 'ord': 3, 'base': b.turns::DOUBLE, 'cand': c.turns::DOUBLE},
                   {'figure': 'toolCalls', 'ord': 4, 'base': b.tool_calls::DOUBLE, 'cand': c.tool_calls::DOUBLE},
                   {'figure': 'backendLookups', 'ord': 5, 'base': b.backend_lookups::DOUBLE,
                    'cand': c.backend_lookups::DOUBLE},
                   {'figure': 'costUsd', 'ord': 6, 'base': b.usd, 'cand': c.usd}], recursive := true)
    FROM baseline_rows b
    JOIN candidate_rows c USING (case_id, design, repetition)
), scoped AS (
    SELECT design, asks, case_order, case_id, repetition, figure, ord, base, cand FROM paired
    UNION ALL
    SELECT design, '*', 0, case_id, repetition, figure, ord, base, cand FROM paired
)
SELECT *,
       dense_rank() OVER (ORDER BY design, asks, ord) AS g,
       row_number() OVER (PARTITION BY design, asks, ord, case_id ORDER BY repetition) AS i,
       count(*) OVER (PARTITION BY design, asks, ord, case_id) AS n_case
FROM scoped
WHERE base IS NOT NULL AND cand IS NOT NULL;
