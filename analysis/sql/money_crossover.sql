-- The crossover view's money (metrics_crossover.sql groups the other figures the same way): per design,
-- question kind (the case's asks) and order size, how many finished conversations there are, how many
-- have a price, and the two middle costs (USD × 10^money_scale). The view shows a median only when every
-- conversation of the group has a price: a median over the priced part would pass for the group's.
-- Needs money_costs.sql.
SELECT c.design, k.asks, k.order_lines, count(*) AS conversations, count(c.usd) AS priced,
       middle_values(list(c.usd) FILTER (WHERE c.usd IS NOT NULL)) AS median
FROM conversation_costs c
JOIN cases k USING (case_id)
WHERE k.order_lines IS NOT NULL
GROUP BY c.design, k.asks, k.order_lines;
