-- The model responses of every finished conversation (live attempt), for pricing (analysis/costs.py):
-- the tokens the provider reported (or wismo estimated), the model the response named and when it
-- was written, with the conversation's repetition and verdict (money compares both-correct pairs). A light second pass over events.jsonl (model_response lines' usage, model and ts
-- only). Run after load_run.sql and views.sql; turn_usage_rows.sql reads the table in order.
CREATE OR REPLACE TABLE turn_usage AS
WITH responses AS (
    SELECT conversationId AS conversation_id, attempt, turn, ts, model, usage
    FROM read_json(getvariable('run_dir') || '/events.jsonl', format = 'newline_delimited',
                   ignore_errors = true,
                   maximum_object_size = coalesce(getvariable('maximum_object_size'), 16777216), columns = {
        type: 'VARCHAR', runId: 'VARCHAR', conversationId: 'VARCHAR', attempt: 'BIGINT', turn: 'BIGINT',
        ts: 'VARCHAR', model: 'VARCHAR',
        usage: 'STRUCT(inputTokens BIGINT, outputTokens BIGINT, cachedTokens BIGINT, estimated BOOLEAN)'})
    WHERE type = 'model_response' AND runId = getvariable('run_id')
)
SELECT c.conversation_id, c.attempt, c.design, c.case_id, c.repetition, c.passed, r.turn,
       try_cast(r.ts AS TIMESTAMPTZ) AS at, r.model, r.usage.inputTokens AS input_tokens,
       r.usage.outputTokens AS output_tokens, r.usage.cachedTokens AS cached_tokens, coalesce(r.usage.estimated, false) AS estimated
FROM conversations c
LEFT JOIN responses r USING (conversation_id, attempt);
