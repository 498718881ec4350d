-- Every finished conversation's cost, one row each in the order they come (case, conversation id): the
-- amount (USD × 10^money_scale; NULL when unknown), why it is unknown, the prices its responses used
-- turn by turn, the days they were written, and what the cost's notes need. Needs money_costs.sql.
SELECT c.conversation_id, c.case_id, c.design, c.repetition, c.passed, c.estimated, c.usd, c.unknown,
       c.price_reason, c.unpriced_model, c.cached_unreported, c.responses - c.reported AS unreported,
       list(t.price_id ORDER BY t.turn) FILTER (WHERE t.price_id IS NOT NULL) AS price_ids,
       list_sort(list_distinct(list(t.written_at::DATE) FILTER (WHERE t.written_at IS NOT NULL))) AS days
FROM conversation_costs c
LEFT JOIN turn_costs t USING (conversation_id)
GROUP BY ALL
ORDER BY c.case_id, c.conversation_id;
