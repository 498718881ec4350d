-- The pairs `wismo compare` compares (run on a connection holding baseline_rows and candidate_rows,
-- each compare_rows.sql's rows of one run, with `usd`, the conversation's cost, NULL when unpriced):
-- every (case, design, repetition) finished in both runs, one row each, both sides of every figure side by
-- side. A figure either side did not record (backend lookups of an old run, an unknown price) is NULL on
-- both sides of that pair, so the pair counts for none of that figure's sums and for every other figure.
-- i numbers a case's pairs of a design and n_case counts them: compare_bootstrap.sql resamples pairs
-- within each case (a case asks one kind of question, so the same draws serve its kind and every kind).
CREATE OR REPLACE TABLE compare_pairs AS
WITH joined AS (
    SELECT b.design, b.asks, b.case_order, b.case_id, b.repetition,
           b.passed::INT::DOUBLE AS b_passed, c.passed::INT::DOUBLE AS c_passed,
           b.total_tokens::DOUBLE AS b_tokens, c.total_tokens::DOUBLE AS c_tokens,
           b.turns::DOUBLE AS b_turns, c.turns::DOUBLE AS c_turns,
           b.tool_calls::DOUBLE AS b_calls, c.tool_calls::DOUBLE AS c_calls,
           b.backend_lookups::DOUBLE AS b_lookups, c.backend_lookups::DOUBLE AS c_lookups,
           b.usd AS b_usd, c.usd AS c_usd
    FROM baseline_rows b
    JOIN candidate_rows c USING (case_id, design, repetition)
)
SELECT design, asks, case_order, case_id, repetition, b_passed, c_passed,
       CASE WHEN c_tokens IS NOT NULL THEN b_tokens END AS b_tokens,
       CASE WHEN b_tokens IS NOT NULL THEN c_tokens END AS c_tokens,
       CASE WHEN c_turns IS NOT NULL THEN b_turns END AS b_turns,
       CASE WHEN b_turns IS NOT NULL THEN c_turns END AS c_turns,
       CASE WHEN c_calls IS NOT NULL THEN b_calls END AS b_calls,
       CASE WHEN b_calls IS NOT NULL THEN c_calls END AS c_calls,
       CASE WHEN c_lookups IS NOT NULL THEN b_lookups END AS b_lookups,
       CASE WHEN b_lookups IS NOT NULL THEN c_lookups END AS c_lookups,
       CASE WHEN c_usd IS NOT NULL THEN b_usd END AS b_usd,
       CASE WHEN b_usd IS NOT NULL THEN c_usd END AS c_usd,
       row_number() OVER (PARTITION BY design, case_id ORDER BY repetition) AS i,
       count(*) OVER (PARTITION BY design, case_id) AS n_case,
       dense_rank() OVER (ORDER BY design) AS design_number
FROM joined;

