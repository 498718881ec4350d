-- Per design, in the manifest's order: how many of its finished conversations have a price and how many
-- are unknown, whether their tokens were estimated, and the two middle costs of the priced ones (their
-- median; USD × 10^money_scale). Needs money_costs.sql.
SELECT d.design, count(c.usd) AS priced, count(c.conversation_id) - count(c.usd) AS unknown,
       coalesce(bool_or(c.estimated), false) AS estimated,
       middle_values(list(c.usd) FILTER (WHERE c.usd IS NOT NULL)) AS median
FROM (SELECT unnest(designs) AS design, generate_subscripts(designs, 1) AS position FROM run_manifest) d
LEFT JOIN conversation_costs c USING (design)
GROUP BY d.design, d.position
ORDER BY d.position;
