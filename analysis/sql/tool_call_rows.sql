-- One row per tool call of every finished conversation (live attempt), joined to its result by call
-- id, in the order the calls were made. Needs load_details.sql.
SELECT t.conversation_id, t.attempt, t.turn, t.call_id, t.name, t.arguments, t.result_text, t.is_error,
       t.error_kind, t.bytes, t.latency_ms, t.lookups
FROM tool_calls t
JOIN conversations c USING (conversation_id, attempt)
ORDER BY t.conversation_id, t.attempt, t.call_seq;
