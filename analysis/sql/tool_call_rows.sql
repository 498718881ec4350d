-- One row per tool call of every finished conversation (live attempt), joined to its result by call
-- id, in the order the calls were made; with, for the timeline, when the call was made and its result
-- recorded, in milliseconds after the conversation's first model request (from the lines' own
-- timestamps; NULL where one does not parse or the result is missing). Needs load_details.sql.
WITH first_request AS (
    SELECT conversation_id, attempt, min(requested_at) AS at
    FROM model_requests
    GROUP BY ALL
)
SELECT t.conversation_id, t.attempt, t.turn, t.call_id, t.name, t.arguments, t.result_text, t.is_error,
       t.error_kind, t.bytes, t.latency_ms, t.lookups,
       (epoch_us(t.called_at) - epoch_us(f.at)) / 1000.0 AS started_ms,
       (epoch_us(t.returned_at) - epoch_us(f.at)) / 1000.0 AS finished_ms
FROM tool_calls t
JOIN conversations c USING (conversation_id, attempt)
LEFT JOIN first_request f USING (conversation_id, attempt)
ORDER BY t.conversation_id, t.attempt, t.call_seq;
