-- One row per model request of every finished conversation (live attempt), turn by turn: tokens
-- with what was carried from the previous request and what is new, latency, request size, the
-- history items appended since the previous request, the output items, the error, the model, the
-- reasoning tokens, the stop reason, how the answer schema was asked for and the server's timings
-- (llama-server's; NULL when it sent none); and, for the timeline, when the request was sent and its
-- response recorded, in milliseconds after the conversation's first request (from the lines' own
-- timestamps; NULL where a timestamp does not parse or the response is missing).
-- Needs load_details.sql.
SELECT t.conversation_id, t.attempt, t.turn, t.input_tokens, t.output_tokens, t.cached_tokens,
       t.carried_tokens, t.new_tokens, t.estimated, t.latency_ms, t.request_bytes, t.history_length,
       q.new_items, q.output_items, q.error, q.model, t.reasoning_tokens, q.stop_reason, q.answer_format,
       q.server_timings,
       (epoch_us(q.requested_at) - epoch_us(min(q.requested_at) OVER conversation)) / 1000.0 AS started_ms,
       (epoch_us(q.responded_at) - epoch_us(min(q.requested_at) OVER conversation)) / 1000.0 AS finished_ms
FROM turn_tokens t
JOIN model_requests q USING (conversation_id, attempt, turn)
JOIN conversations c USING (conversation_id, attempt)
WINDOW conversation AS (PARTITION BY t.conversation_id, t.attempt)
ORDER BY t.conversation_id, t.attempt, t.turn;
