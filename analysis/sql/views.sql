-- Views over a loaded run (load_run.sql and scoring.sql first): which attempts count, then
-- conversations, and, once load_details.sql has read the heavy fields, model requests turn by
-- turn, tool calls joined to their results and per-turn token growth.
--
-- Only this run's readable lines count (lines of another runId are reported by
-- check_foreign_lines.sql, never counted). The live attempt of a conversation is its highest
-- attempt not named by an attempt_superseded event; superseded attempts are excluded everywhere
-- and counted by check_superseded_attempts.sql.

-- hash_prefix(n) = hash(1) + ... + hash(n): what seq_hash or a turn hash adds up to when the values
-- are exactly 1..n (see event_groups in load_run.sql).
CREATE OR REPLACE TABLE hash_prefix AS
SELECT k AS n, sum(hash(k)::HUGEINT) OVER (ORDER BY k) AS total
FROM range(0, (SELECT coalesce(max(conversation_lines), 0) + 1 FROM event_groups)) t(k);

-- The run-level lines of this run (run_started, run_resumed, run_finished).
CREATE OR REPLACE VIEW run_lines AS
SELECT * FROM event_groups WHERE readable AND NOT foreign_run AND conversation_id IS NULL;

-- Every (conversation, attempt) of this run, whether it counts or not.
CREATE OR REPLACE TABLE attempts AS
SELECT conversation_id, attempt, conversation_lines AS events, superseded_marks > 0 AS superseded,
       attempt = max(attempt) FILTER (WHERE superseded_marks = 0 AND conversation_lines > 0)
                 OVER (PARTITION BY conversation_id) AS live
FROM event_groups
WHERE readable AND NOT foreign_run AND conversation_id IS NOT NULL AND attempt IS NOT NULL;

-- One row per live attempt: what its events add up to, with the finished line's objects parsed, and the
-- text items of its last model response joined as the agent loop joins them (last_response_text).
CREATE OR REPLACE TABLE attempt_totals AS
SELECT g.* EXCLUDE (assessment_json, score_json, claimed_json, started_ts, finished_ts, last_response_items),
       -- The items are parsed once (json_transform), each text as JSON so that a text that is not a string
       -- reads as json_extract_string reads it (a number keeps its spelling); items that are not a list read
       -- as no text, '' (json_transform gives NULL there). Taking each item apart with json_extract_string
       -- parsed it twice more: 0.33 s of this table's 0.77 s at 100,000 conversations, now 0.21 s.
       coalesce(array_to_string(list_transform(
           list_filter(json_transform(g.last_response_items, '[{"type": "VARCHAR", "text": "JSON"}]'),
                       lambda item: item.type = 'text'),
           lambda item: coalesce(json_extract_string(item.text, '$'), '')), ''),
                CASE WHEN g.last_response_items IS NOT NULL THEN '' END) AS last_response_text,
       try_cast(g.started_ts AS TIMESTAMPTZ) AS started_at,
       try_cast(g.finished_ts AS TIMESTAMPTZ) AS finished_at,
       g.assessment_json AS assessment_text,
       json_transform(g.assessment_json, '{"deliveredSkus": ["VARCHAR"], "outstandingSkus": ["VARCHAR"],
           "delayReasons": ["VARCHAR"], "deliveryEstimate": "VARCHAR", "missingEvidence": ["VARCHAR"],
           "paymentStatus": "VARCHAR"}') AS assessment,
       -- a field the case did not ask has no entry in the stored score: it reads as NULL
       json_transform(g.score_json, '{"fields": {"deliveredSkus": "BOOLEAN", "outstandingSkus": "BOOLEAN",
           "delayReasons": "BOOLEAN", "deliveryEstimate": "BOOLEAN", "missingEvidence": "BOOLEAN",
           "paymentStatus": "BOOLEAN"}, "passed": "BOOLEAN"}') AS stored_score,
       json_transform(g.claimed_json, '{"turns": "BIGINT", "toolCalls": "BIGINT", "inputTokens": "BIGINT",
           "outputTokens": "BIGINT", "cachedTokens": "BIGINT", "reasoningTokens": "BIGINT",
           "elapsedMs": "DOUBLE", "elapsedExact": "BOOLEAN", "lookups": {"orders": "BIGINT",
           "payments": "BIGINT", "reservations": "BIGINT", "tracking": "BIGINT", "notFound": "BIGINT"}}') AS claimed
FROM event_groups g
JOIN attempts a USING (conversation_id, attempt)
WHERE g.readable AND NOT g.foreign_run AND a.live;

-- The latest score line per (conversation, attempt) from scores.jsonl, when there is one.
CREATE OR REPLACE TABLE latest_scores AS
SELECT conversationId AS conversation_id, attempt,
       arg_max(score, try_cast(ts AS TIMESTAMPTZ)) AS score,
       arg_max(expected, try_cast(ts AS TIMESTAMPTZ)) AS expected
FROM score_lines
WHERE readable AND type = 'score' AND runId = getvariable('run_id')
GROUP BY ALL;

-- Finished conversations (live attempts only): turns = model responses, tool calls = tool_call
-- events, tokens = sums of the per-response usage (total = input + output; uncached input = input -
-- cached, null when no cached count was reported; reasoning tokens are part of the output),
-- elapsed = the claimed monotonic time (check_claimed_counters.sql holds it to the timestamps). The
-- score is the latest line of scores.jsonl when there is one, else the one stored when the
-- conversation finished.
-- Backend lookups are the servers' reports on the tool_result lines (`_meta`), added up per backend;
-- backend_lookups is their total and lookups_not_found the reads that found no record. They are NULL
-- ("not recorded"), never 0, unless the recorder claimed a total (claimed.lookups): runs recorded
-- before the servers reported them have none. tool_result_bytes adds up the result texts' bytes (0
-- when no tool was called; every run records bytes).
CREATE OR REPLACE TABLE conversations AS
SELECT t.conversation_id, t.attempt, t.case_id, t.design, t.repetition, t.pair_index, t.pair_position,
       t.status, t.budget_hit, t.error, t.assessment,
       coalesce(ls.score, t.stored_score) AS score,
       coalesce(coalesce(ls.score, t.stored_score).passed, false) AS passed,
       ls.score IS NOT NULL AS rescored,
       t.responses AS turns, t.calls AS tool_calls,
       t.input_tokens, t.output_tokens, t.cached_tokens, t.reasoning_tokens,
       t.input_tokens - t.cached_tokens AS uncached_input_tokens,
       t.input_tokens + t.output_tokens AS total_tokens,
       t.claimed.elapsedMs AS elapsed_ms,
       coalesce(t.result_bytes, 0) AS tool_result_bytes,
       coalesce(t.records_gathered, 0) AS records_gathered, coalesce(t.text_calls, 0) AS text_calls,
       CASE WHEN t.claimed.lookups IS NOT NULL THEN coalesce(t.lookups_orders, 0) END AS lookups_orders,
       CASE WHEN t.claimed.lookups IS NOT NULL THEN coalesce(t.lookups_payments, 0) END AS lookups_payments,
       CASE WHEN t.claimed.lookups IS NOT NULL THEN coalesce(t.lookups_reservations, 0) END AS lookups_reservations,
       CASE WHEN t.claimed.lookups IS NOT NULL THEN coalesce(t.lookups_tracking, 0) END AS lookups_tracking,
       CASE WHEN t.claimed.lookups IS NOT NULL THEN coalesce(t.lookups_not_found, 0) END AS lookups_not_found,
       CASE WHEN t.claimed.lookups IS NOT NULL
            THEN coalesce(t.lookups_orders, 0) + coalesce(t.lookups_payments, 0)
                 + coalesce(t.lookups_reservations, 0) + coalesce(t.lookups_tracking, 0) END AS backend_lookups
FROM attempt_totals t
LEFT JOIN latest_scores ls USING (conversation_id, attempt)
WHERE t.finished_lines > 0;

-- The figures of every finished conversation in long form (one row per metric of
-- analysis.model.METRICS); value is null where nothing was reported. ord numbers the metrics for
-- the bootstrap's random streams (so adding a metric leaves the others' intervals unchanged);
-- analysis.metrics puts them in METRICS order for display.
CREATE OR REPLACE VIEW conversation_metrics AS
SELECT c.conversation_id, c.design, c.case_id, c.repetition, c.passed, m.metric, m.ord,
       CASE m.metric
           WHEN 'turns' THEN c.turns::DOUBLE
           WHEN 'toolCalls' THEN c.tool_calls::DOUBLE
           WHEN 'inputTokens' THEN c.input_tokens::DOUBLE
           WHEN 'uncachedInputTokens' THEN c.uncached_input_tokens::DOUBLE
           WHEN 'outputTokens' THEN c.output_tokens::DOUBLE
           WHEN 'reasoningTokens' THEN c.reasoning_tokens::DOUBLE
           WHEN 'totalTokens' THEN c.total_tokens::DOUBLE
           WHEN 'elapsedMs' THEN c.elapsed_ms
           WHEN 'backendLookups' THEN c.backend_lookups::DOUBLE
           WHEN 'toolResultBytes' THEN c.tool_result_bytes::DOUBLE
       END AS value
FROM conversations c
CROSS JOIN (VALUES ('turns', 1), ('toolCalls', 2), ('inputTokens', 3), ('outputTokens', 4),
                   ('totalTokens', 5), ('elapsedMs', 6), ('uncachedInputTokens', 7),
                   ('reasoningTokens', 8), ('backendLookups', 9), ('toolResultBytes', 10)) m(metric, ord);

-- Claim findings (claims.jsonl) that count: this run's claim_finding lines for finished live
-- attempts, from the checker version of the latest summary_checked line of that attempt (all
-- versions when there is none), each distinct finding once.
CREATE OR REPLACE VIEW claim_findings_view AS
WITH latest_check AS (
    SELECT conversationId, attempt, arg_max(checkerVersion, try_cast(ts AS TIMESTAMPTZ)) AS version
    FROM claim_lines
    WHERE readable AND type = 'summary_checked' AND runId = getvariable('run_id')
    GROUP BY ALL
)
SELECT DISTINCT f.conversationId AS conversation_id, f.attempt, f.kind, f.severity, f.sentence,
       f.claim, f.evidence, f.sku, f."start", f."end", f.checkerVersion AS checker_version
FROM claim_lines f
JOIN attempt_totals t ON t.conversation_id = f.conversationId AND t.attempt = f.attempt
                     AND t.finished_lines > 0
LEFT JOIN latest_check l ON l.conversationId = f.conversationId AND l.attempt = f.attempt
WHERE f.readable AND f.type = 'claim_finding' AND f.runId = getvariable('run_id')
  AND (l.version IS NULL OR f.checkerVersion IS NOT DISTINCT FROM l.version);

-- Claims the checker could not check (claim_unchecked lines), chosen as claim_findings_view chooses
-- findings. They are never findings: counted and listed apart.
CREATE OR REPLACE VIEW claim_unchecked_view AS
WITH latest_check AS (
    SELECT conversationId, attempt, arg_max(checkerVersion, try_cast(ts AS TIMESTAMPTZ)) AS version
    FROM claim_lines
    WHERE readable AND type = 'summary_checked' AND runId = getvariable('run_id')
    GROUP BY ALL
)
SELECT DISTINCT u.conversationId AS conversation_id, u.attempt, u.kind, u.sentence, u.claim, u.reason,
       u."start", u."end", u.checkerVersion AS checker_version
FROM claim_lines u
JOIN attempt_totals t ON t.conversation_id = u.conversationId AND t.attempt = u.attempt
                     AND t.finished_lines > 0
LEFT JOIN latest_check l ON l.conversationId = u.conversationId AND l.attempt = u.attempt
WHERE u.readable AND u.type = 'claim_unchecked' AND u.runId = getvariable('run_id')
  AND (l.version IS NULL OR u.checkerVersion IS NOT DISTINCT FROM l.version);

-- The heavy fields of live attempts (empty until load_details.sql has run).
CREATE OR REPLACE VIEW live_details AS
SELECT d.* FROM event_details d
JOIN attempts a ON a.conversation_id = d.conversationId AND a.attempt = d.attempt AND a.live;

-- Model requests turn by turn, each with its response's usage, latency, error, stop reason and answer format,
-- and when the request was sent and its response recorded (the lines' own timestamps).
CREATE OR REPLACE VIEW model_requests AS
SELECT q.conversationId AS conversation_id, q.attempt, q.turn, q.seq AS request_seq,
       q.historyLength AS history_length, q.requestBytes AS request_bytes, q.newItems AS new_items,
       r.seq AS response_seq, r.usage.inputTokens AS input_tokens, r.usage.outputTokens AS output_tokens,
       r.usage.cachedTokens AS cached_tokens, r.usage.reasoningTokens AS reasoning_tokens,
       coalesce(r.usage.estimated, false) AS estimated,
       r.latencyMs AS latency_ms, r.retries, r.error, r.model, r.outputItems AS output_items,
       r.stopReason AS stop_reason, r.answerFormat AS answer_format, r.serverTimings AS server_timings,
       try_cast(q.ts AS TIMESTAMPTZ) AS requested_at, try_cast(r.ts AS TIMESTAMPTZ) AS responded_at
FROM live_details q
LEFT JOIN live_details r
       ON r.type = 'model_response' AND r.conversationId = q.conversationId AND r.attempt = q.attempt
      AND r.turn = q.turn
WHERE q.type = 'model_request';

-- Tool calls joined to their results by call id (within the same conversation attempt and turn), with
-- the backend lookups the server reported for each (NULL where it reported none), and when the call
-- was made and its result recorded.
CREATE OR REPLACE VIEW tool_calls AS
SELECT c.conversationId AS conversation_id, c.attempt, c.turn, c.seq AS call_seq, c.callId AS call_id,
       c.name, c.arguments, r.seq AS result_seq, r.text AS result_text, r.isError AS is_error,
       r.errorKind AS error_kind, r.bytes, r.latencyMs AS latency_ms, r.lookups,
       try_cast(c.ts AS TIMESTAMPTZ) AS called_at, try_cast(r.ts AS TIMESTAMPTZ) AS returned_at
FROM live_details c
LEFT JOIN live_details r
       ON r.type = 'tool_result' AND r.conversationId = c.conversationId AND r.attempt = c.attempt
      AND r.turn = c.turn AND r.callId = c.callId
WHERE c.type = 'tool_call';

-- Per-turn token growth: carried = the previous request's input tokens (0 on turn 1), new = the rest.
CREATE OR REPLACE VIEW turn_tokens AS
SELECT conversation_id, attempt, turn, input_tokens, output_tokens, cached_tokens, reasoning_tokens, estimated,
       CASE WHEN turn = 1 THEN 0
            ELSE lag(input_tokens) OVER (PARTITION BY conversation_id, attempt ORDER BY turn) END
           AS carried_tokens,
       input_tokens - CASE WHEN turn = 1 THEN 0
                           ELSE lag(input_tokens) OVER (PARTITION BY conversation_id, attempt ORDER BY turn)
                      END AS new_tokens,
       request_bytes, history_length, latency_ms
FROM model_requests;
