-- Which prices the priced conversations of each design used, each with the first response it priced
-- (conversation by conversation, turn by turn): the order prices and their sources are listed in.
-- Needs money_costs.sql.
SELECT c.design, t.price_id, min({'case': t.case_id, 'conversation': t.conversation_id, 'turn': t.turn}) AS first
FROM turn_costs t
JOIN conversation_costs c USING (conversation_id)
WHERE c.usd IS NOT NULL AND t.price_id IS NOT NULL
GROUP BY c.design, t.price_id
ORDER BY first;
