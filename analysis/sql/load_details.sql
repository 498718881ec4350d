-- Loads the heavy fields of events.jsonl that the conversation pages show into event_details:
-- history items (newItems), output items, tool arguments and result text, latencies, errors, stop
-- reasons and answer formats, the final text and the whole parsed answer, and each tool result's
-- backend lookups, the server's timings of each response, and every line's timestamp (the timeline). A second pass over the file, run only when a page needs
-- it (validation and the metrics never do). Run after load_run.sql; views.sql's model_requests,
-- tool_calls and turn_tokens read it. maximum_object_size is set as in load_run.sql (which explains
-- why it starts at 16 MiB and when wismo raises it).
INSERT INTO event_details BY NAME
SELECT * EXCLUDE (runId)
FROM read_json(getvariable('run_dir') || '/events.jsonl', format = 'newline_delimited',
               ignore_errors = true,
               maximum_object_size = coalesce(getvariable('maximum_object_size'), 16777216), columns = {
    type: 'VARCHAR', ts: 'VARCHAR', runId: 'VARCHAR', conversationId: 'VARCHAR', attempt: 'BIGINT', seq: 'BIGINT',
    turn: 'BIGINT', historyLength: 'BIGINT', requestBytes: 'BIGINT', newItems: 'JSON',
    outputItems: 'JSON',
    usage: 'STRUCT(inputTokens BIGINT, outputTokens BIGINT, cachedTokens BIGINT, reasoningTokens BIGINT,
                   estimated BOOLEAN)',
    model: 'VARCHAR', latencyMs: 'DOUBLE', retries: 'BIGINT', error: 'JSON', stopReason: 'VARCHAR',
    answerFormat: 'VARCHAR', callId: 'VARCHAR',
    name: 'VARCHAR', arguments: 'VARCHAR', text: 'VARCHAR', isError: 'BOOLEAN', errorKind: 'VARCHAR',
    bytes: 'BIGINT', finalText: 'VARCHAR', assessment: 'JSON',
    lookups: 'STRUCT(orders BIGINT, payments BIGINT, reservations BIGINT, tracking BIGINT, notFound BIGINT)',
    serverTimings: 'STRUCT(promptTokens BIGINT, cachedTokens BIGINT, promptMs DOUBLE, generatedTokens BIGINT, generatedMs DOUBLE)'})
WHERE runId = getvariable('run_id')
  AND type IN ('model_request', 'model_response', 'tool_call', 'tool_result', 'conversation_finished');
