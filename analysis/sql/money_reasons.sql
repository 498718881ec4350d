-- Why conversations have no price, each distinct reason once, in the order the conversations come
-- (case, conversation id). Needs money_costs.sql.
SELECT unknown, price_reason, min({'case': case_id, 'conversation': conversation_id}) AS first
FROM conversation_costs
WHERE usd IS NULL
GROUP BY unknown, price_reason
ORDER BY first;
