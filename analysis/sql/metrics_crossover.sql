-- The crossover view: per design, question kind (the case's `asks`, in the case's order) and order
-- size (the manifest's orderLines of the case; NULL in runs recorded before it was stored): the
-- finished conversations, how many passed and the pass rate, and the median turns, tool calls,
-- backend lookups, total tokens and elapsed ms over those conversations (failed ones included: the
-- pass rate stands beside every median), and how many a budget stopped (--max-turns, --max-tool-calls:
-- a large order can exhaust one, which is not a wrong answer). A median is NULL where no
-- conversation reported the figure.
SELECT c.design, k.asks, k.order_lines, count(*) AS conversations, count_if(c.passed) AS passed,
       count_if(c.passed) / count(*) AS pass_rate, count_if(c.status = 'budget_exhausted') AS budget_stopped,
       median(c.turns) AS turns, median(c.tool_calls) AS tool_calls,
       median(c.backend_lookups) AS backend_lookups, median(c.total_tokens) AS total_tokens,
       median(c.elapsed_ms) AS elapsed_ms,
       -- kinds in the order of their first case, then sizes from small to large
       min(min(k.case_order)) OVER (PARTITION BY k.asks) AS kind_order
FROM conversations c
JOIN cases k USING (case_id)
CROSS JOIN run_manifest m
GROUP BY c.design, k.asks, k.order_lines, m.designs
ORDER BY kind_order, k.order_lines NULLS LAST, list_position(m.designs, c.design), c.design;
