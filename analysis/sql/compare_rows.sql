-- What `wismo compare` and `wismo plan` need of one loaded run (views.sql first): one row per finished
-- conversation (live attempt), keyed by (case, design, repetition), with its question kind (the case's
-- `asks`, joined by ','; case_order orders the kinds by their first case) and the figures compared:
-- passed, total tokens, turns, tool calls and backend lookups (NULL when the run recorded none).
SELECT c.conversation_id, c.case_id, c.design, c.repetition, array_to_string(k.asks, ',') AS asks,
       k.case_order, c.passed, c.status, c.total_tokens, c.turns, c.tool_calls, c.backend_lookups,
       c.elapsed_ms
FROM conversations c
JOIN cases k USING (case_id)
ORDER BY k.case_order, c.design, c.repetition;
