-- Loads one run folder: the manifest (run_manifest, cases, plan), one pass over events.jsonl that
-- adds up every (conversation, attempt) into event_groups, and line_census, which tells whether
-- some line of events.jsonl is not a readable event.
--
-- Point it at a run first, then run the views and any check or metric file:
--   SET VARIABLE run_dir = 'runs/sample-offline';
--   .read analysis/sql/load_run.sql
--   .read analysis/sql/scoring.sql
--   .read analysis/sql/views.sql
--
-- Why one aggregating pass and no events table: parsing the JSON is most of the cost of any query
-- on a run, and storing a million parsed events costs more than parsing them again. So
-- events.jsonl is read once, with explicit columns and only the light fields (the heavy text:
-- tool results, history items, raw output, the final text, stays in the file; load_details.sql
-- reads it for the conversation pages), and every figure a check or a metric needs is added up
-- per (conversation, attempt) on the way. Checks then look at ~one row per conversation. Money
-- needs each model response (its model, time and tokens): they are kept as a short list per
-- conversation (`response_usage`), which costs far less than a second pass.
-- Lines that are not JSON become all-NULL rows (ignore_errors) and are counted, never dropped.
--
-- maximum_object_size is also read_json's buffer size, so it stays at DuckDB's default of 16 MiB
-- unless the variable maximum_object_size says otherwise: a 256 MiB buffer leaves one buffer per
-- 256 MiB of file for the threads to share (a 100 MB file is read by one thread) and costs a fifth
-- more time at any size. A longer line can make read_json stop with an error (it never drops the
-- line); wismo then sets the variable to 268435456 (lines up to 256 MiB) and runs the file again.

CREATE OR REPLACE TABLE run_manifest AS
SELECT m.runId AS run_id, m.schemaVersion AS schema_version, m.designs, m.repetitions,
       m.dataset.hash AS dataset_hash, m.provider, m.model, m.baseUrl AS base_url,
       m.tokenCounts AS token_counts, m.dataset, m.instructions, m.tools, m.budgets,
       m.startedAt AS started_at, m.finishedAt AS finished_at, m.cases, m.plan,
       m.structuredOutput AS structured_output, m.toolChoice AS tool_choice,
       coalesce(m.baseline, m.designs[1]) AS baseline, m.designSources AS design_sources,
       coalesce(m.textToolCalls, false) AS text_tool_calls, m.userInstructions AS user_instructions
FROM (SELECT json_transform(content, '{
        "schemaVersion": "BIGINT", "runId": "VARCHAR", "designs": ["VARCHAR"], "repetitions": "BIGINT",
        "provider": {"name": "VARCHAR", "label": "VARCHAR", "isLanguageModel": "BOOLEAN",
                     "pricingVendor": "VARCHAR"},
        "model": "VARCHAR", "baseUrl": "VARCHAR", "tokenCounts": "VARCHAR",
        "dataset": {"name": "VARCHAR", "hash": "VARCHAR", "clock": "VARCHAR"},
        "instructions": "VARCHAR", "tools": "JSON", "budgets": "JSON",
        "startedAt": "VARCHAR", "finishedAt": "VARCHAR",
        "structuredOutput": {"requested": "VARCHAR", "used": "VARCHAR",
                             "fallbacks": [{"rejected": "VARCHAR", "reason": "VARCHAR", "at": "VARCHAR", "cause": "VARCHAR",
                                            "discardedTokens": {"input": "BIGINT", "output": "BIGINT"}}]},
        "toolChoice": "VARCHAR", "baseline": "VARCHAR", "designSources": "JSON", "textToolCalls": "BOOLEAN",
        "userInstructions": {"file": "VARCHAR", "sha256": "VARCHAR"},
        "cases": [{"caseId": "VARCHAR", "orderId": "VARCHAR", "question": "VARCHAR", "asks": ["VARCHAR"],
                   "expected": {"deliveredSkus": ["VARCHAR"], "outstandingSkus": ["VARCHAR"],
                                "delayReasons": ["VARCHAR"], "deliveryEstimate": "VARCHAR",
                                "missingEvidence": ["VARCHAR"], "paymentStatus": "VARCHAR"},
                   "orderLines": "BIGINT"}],
        "plan": [{"conversationId": "VARCHAR", "caseId": "VARCHAR", "design": "VARCHAR",
                  "repetition": "BIGINT", "pairIndex": "BIGINT", "pairPosition": "BIGINT"}]}') AS m
      FROM read_text(getvariable('run_dir') || '/manifest.json'));

SET VARIABLE run_id = (SELECT run_id FROM run_manifest);

-- `asks` names the answer fields a case asks (only those are scored); a manifest written before
-- cases could ask for part of the answer has none, and its cases asked the five default fields.
-- order_lines (the order's size, for the crossover view) is NULL in runs recorded before it was stored.
CREATE OR REPLACE TABLE cases AS
SELECT c.caseId AS case_id, c.orderId AS order_id, c.expected,
       coalesce(c.asks, ['deliveredSkus', 'outstandingSkus', 'delayReasons', 'deliveryEstimate',
                         'missingEvidence']) AS asks,
       i AS case_order, c.orderLines AS order_lines
FROM (SELECT unnest(cases) AS c, generate_subscripts(cases, 1) AS i FROM run_manifest);

CREATE OR REPLACE TABLE plan AS
SELECT p.conversationId AS conversation_id, p.caseId AS case_id, p.design, p.repetition,
       p.pairIndex AS pair_index, p.pairPosition AS pair_position
FROM (SELECT unnest(plan) AS p FROM run_manifest);

-- One row per (readable, foreign_run, conversation, attempt). Run-level lines (run_started,
-- run_resumed, run_finished) group under a null conversation; an attempt_superseded line groups
-- with the attempt it names; lines of another runId and unreadable lines group apart, so they
-- never mix into this run's figures. `v` is read as text: 1 reads as '1'.
-- seq_hash and the turn hashes add up hash(value) over the events: compared with the sum over
-- 1..n (hash_prefix in views.sql) they tell whether the values are exactly 1..n, each once, without
-- a per-value count (a distinct count would cost a quarter of the scan; a false match needs two
-- 64-bit hash sums to collide).
-- The per-type figures are written agg(CASE WHEN type = ... THEN x END), not agg(x) FILTER (WHERE
-- type = ...): the same rows count (min, max, sum and any_value skip NULLs), and DuckDB does it
-- 7 % faster at 100k conversations and 13 % at 10k. list() keeps NULLs, so it keeps its FILTER.
CREATE OR REPLACE TABLE event_groups AS
WITH lines AS (
    SELECT *,
           type IS NOT NULL AND v = '1' AS readable,
           runId IS DISTINCT FROM getvariable('run_id') AS foreign_run,
           type IN ('conversation_started', 'model_request', 'model_response', 'tool_call',
                    'tool_result', 'conversation_finished') AS in_conversation,
           CASE
               WHEN type IS NULL OR v IS DISTINCT FROM '1' THEN NULL
               WHEN type NOT IN ('run_started', 'run_resumed', 'run_finished', 'attempt_superseded',
                                 'conversation_started', 'model_request', 'model_response', 'tool_call',
                                 'tool_result', 'conversation_finished')
                   THEN 'unknown event type ' || type
               WHEN ts IS NULL THEN type || ' without ts'
               WHEN type IN ('conversation_started', 'model_request', 'model_response', 'tool_call',
                             'tool_result', 'conversation_finished', 'attempt_superseded')
                    AND (conversationId IS NULL OR attempt IS NULL OR attempt < 1)
                   THEN type || ' without conversationId or attempt'
               WHEN type <> 'attempt_superseded' AND conversationId IS NOT NULL AND (seq IS NULL OR seq < 1)
                   THEN type || ' without seq'
               WHEN type = 'conversation_started'
                    AND (caseId IS NULL OR design IS NULL OR repetition IS NULL OR pairIndex IS NULL
                         OR pairPosition IS NULL OR pairPosition < 1)
                   THEN 'conversation_started without caseId, design, repetition or pair'
               WHEN type IN ('model_request', 'model_response', 'tool_call', 'tool_result')
                    AND (turn IS NULL OR turn < 1)
                   THEN type || ' without turn'
               WHEN type = 'model_response' AND usage IS NULL THEN 'model_response without usage'
               WHEN type IN ('tool_call', 'tool_result') AND callId IS NULL THEN type || ' without callId'
               WHEN type = 'conversation_finished'
                    AND (status IS NULL OR status NOT IN ('answered', 'invalid_answer', 'provider_error',
                                                          'tool_error', 'budget_exhausted', 'timeout',
                                                          'interrupted', 'provider_limit', 'refused'))
                   THEN 'conversation_finished with unknown status ' || coalesce(status, 'null')
               WHEN type = 'conversation_finished' AND (score IS NULL OR claimed IS NULL)
                   THEN 'conversation_finished without score or claimed'
           END AS shape_problem
    FROM read_json(getvariable('run_dir') || '/events.jsonl', format = 'newline_delimited',
                   ignore_errors = true,
                   maximum_object_size = coalesce(getvariable('maximum_object_size'), 16777216), columns = {
        v: 'VARCHAR', type: 'VARCHAR', runId: 'VARCHAR', ts: 'VARCHAR',
        conversationId: 'VARCHAR', attempt: 'BIGINT', seq: 'BIGINT',
        caseId: 'VARCHAR', design: 'VARCHAR', repetition: 'BIGINT', pairIndex: 'BIGINT',
        pairPosition: 'BIGINT', turn: 'BIGINT', callId: 'VARCHAR', bytes: 'BIGINT',
        isError: 'BOOLEAN', fromText: 'BOOLEAN',
        lookups: 'STRUCT(orders BIGINT, payments BIGINT, reservations BIGINT, tracking BIGINT, notFound BIGINT)',
        usage: 'STRUCT(inputTokens BIGINT, outputTokens BIGINT, cachedTokens BIGINT, reasoningTokens BIGINT,
                      estimated BOOLEAN)', model: 'VARCHAR',
        status: 'VARCHAR', budgetHit: 'VARCHAR', error: 'VARCHAR',
        -- objects kept as their JSON text here; views.sql parses the ~one per conversation
        assessment: 'VARCHAR', score: 'VARCHAR', claimed: 'VARCHAR',
        -- the answer's text and the responses' items, only to hold the one to the other (check_answers.sql)
        finalText: 'VARCHAR', outputItems: 'VARCHAR',
        planned: 'BIGINT', repairedLine: 'BIGINT'})
)
SELECT readable, foreign_run, conversationId AS conversation_id, attempt,
       count(*) AS lines,
       any_value(runId) AS run_id,
       count_if(in_conversation)::BIGINT AS conversation_lines,
       count_if(type = 'conversation_started')::BIGINT AS started_lines,
       count_if(type = 'conversation_finished')::BIGINT AS finished_lines,
       count_if(type = 'model_request')::BIGINT AS requests,
       count_if(type = 'model_response')::BIGINT AS responses,
       count_if(type = 'tool_call')::BIGINT AS calls,
       count_if(type = 'tool_result')::BIGINT AS results,
       count_if(type = 'attempt_superseded')::BIGINT AS superseded_marks,
       count_if(type = 'run_started')::BIGINT AS run_started_lines,
       any_value(CASE WHEN type = 'run_started' THEN planned END) AS planned,
       list(repairedLine) FILTER (WHERE type = 'run_resumed' AND repairedLine IS NOT NULL) AS repaired_lines,
       count_if(shape_problem IS NOT NULL)::BIGINT AS shape_problems,
       any_value(shape_problem) AS shape_problem,
       min(CASE WHEN in_conversation THEN seq END) AS seq_min,
       max(CASE WHEN in_conversation THEN seq END) AS seq_max,
       sum(CASE WHEN in_conversation THEN hash(seq)::HUGEINT END) AS seq_hash,
       min(CASE WHEN type = 'conversation_started' THEN seq END) AS started_seq,
       max(CASE WHEN type = 'conversation_finished' THEN seq END) AS finished_seq,
       any_value(CASE WHEN type = 'conversation_started' THEN ts END) AS started_ts,
       any_value(CASE WHEN type = 'conversation_finished' THEN ts END) AS finished_ts,
       min(CASE WHEN type = 'model_request' THEN turn END) AS request_turn_min,
       max(CASE WHEN type = 'model_request' THEN turn END) AS request_turn_max,
       sum(CASE WHEN type = 'model_request' THEN hash(turn)::HUGEINT END) AS request_turn_hash,
       sum(CASE WHEN type = 'model_response' THEN hash(turn)::HUGEINT END) AS response_turn_hash,
       min(CASE WHEN type IN ('model_response', 'tool_call', 'tool_result') THEN turn END) AS step_turn_min,
       max(CASE WHEN type IN ('model_response', 'tool_call', 'tool_result') THEN turn END) AS step_turn_max,
       sum(CASE WHEN type = 'tool_call' THEN hash(turn, callId)::HUGEINT END) AS call_hash,
       sum(CASE WHEN type = 'tool_result' THEN hash(turn, callId)::HUGEINT END) AS result_hash,
       sum(CASE WHEN type = 'model_response' THEN usage.inputTokens END) AS input_tokens,
       sum(CASE WHEN type = 'model_response' THEN usage.outputTokens END) AS output_tokens,
       sum(CASE WHEN type = 'model_response' THEN usage.cachedTokens END) AS cached_tokens,
       sum(CASE WHEN type = 'model_response' THEN usage.reasoningTokens END) AS reasoning_tokens,
       -- what money needs of each model response (analysis/sql/money_turns.sql prices them)
       list({'turn': turn, 'ts': ts, 'model': model, 'input_tokens': usage.inputTokens,
             'output_tokens': usage.outputTokens, 'cached_tokens': usage.cachedTokens,
             'estimated': usage.estimated}) FILTER (WHERE type = 'model_response') AS response_usage,
       sum(CASE WHEN type = 'tool_result' THEN bytes END) AS result_bytes,
       -- results that were not errors: the records the conversation gathered before it answered
       count_if(type = 'tool_result' AND isError IS NOT DISTINCT FROM false)::BIGINT AS records_gathered,
       -- calls read from the model's text (--text-tool-calls), not made natively
       count_if(type = 'tool_call' AND fromText IS NOT DISTINCT FROM true)::BIGINT AS text_calls,
       sum(CASE WHEN type = 'tool_result' THEN lookups.orders END) AS lookups_orders,
       sum(CASE WHEN type = 'tool_result' THEN lookups.payments END) AS lookups_payments,
       sum(CASE WHEN type = 'tool_result' THEN lookups.reservations END) AS lookups_reservations,
       sum(CASE WHEN type = 'tool_result' THEN lookups.tracking END) AS lookups_tracking,
       sum(CASE WHEN type = 'tool_result' THEN lookups.notFound END) AS lookups_not_found,
       any_value(CASE WHEN type = 'conversation_started' THEN caseId END) AS case_id,
       any_value(CASE WHEN type = 'conversation_started' THEN design END) AS design,
       any_value(CASE WHEN type = 'conversation_started' THEN repetition END) AS repetition,
       any_value(CASE WHEN type = 'conversation_started' THEN pairIndex END) AS pair_index,
       any_value(CASE WHEN type = 'conversation_started' THEN pairPosition END) AS pair_position,
       any_value(CASE WHEN type = 'conversation_finished' THEN status END) AS status,
       any_value(CASE WHEN type = 'conversation_finished' THEN budgetHit END) AS budget_hit,
       any_value(CASE WHEN type = 'conversation_finished' THEN error END) AS error,
       any_value(CASE WHEN type = 'conversation_finished' THEN assessment END) AS assessment_json,
       any_value(CASE WHEN type = 'conversation_finished' THEN score END) AS score_json,
       any_value(CASE WHEN type = 'conversation_finished' THEN claimed END) AS claimed_json,
       any_value(CASE WHEN type = 'conversation_finished' THEN finalText END) AS final_text,
       -- the items of the last model response (views.sql joins their texts as the agent loop does): kept as
       -- text and read once per conversation, not once per response (a fifth of this pass at 100k)
       arg_max(CASE WHEN type = 'model_response' THEN outputItems END,
               CASE WHEN type = 'model_response' THEN turn END) AS last_response_items,
       max(CASE WHEN type = 'model_response' THEN turn END) AS last_response_turn
FROM lines
GROUP BY readable, foreign_run, conversationId, attempt;

-- Why a census: read_json skips blank lines without a trace and has no line numbers. Counting the
-- lines with the CSV reader (no quoting, a NUL delimiter, one column) costs far less than
-- numbering every line, and when lines = rows = readable rows there is no malformed line to
-- number; otherwise number_lines.sql numbers them exactly.
CREATE OR REPLACE TABLE line_census AS
WITH csv_lines AS (
    SELECT count(*) AS lines
    FROM read_csv(getvariable('run_dir') || '/events.jsonl', columns = {'line': 'VARCHAR'},
                  delim = chr(0), quote = '', escape = '', header = false, auto_detect = false,
                  new_line = '\n', strict_mode = false, ignore_errors = true,
                  buffer_size = 33554432)
), parsed AS (
    SELECT sum(lines) AS rows, coalesce(sum(lines) FILTER (WHERE readable), 0) AS readable_rows
    FROM event_groups
)
SELECT lines, rows, readable_rows, lines <> rows OR rows <> readable_rows AS needs_line_numbers
FROM csv_lines, parsed;

-- Filled by number_lines.sql when line_census.needs_line_numbers.
CREATE OR REPLACE TABLE malformed_lines (line_no BIGINT, reason VARCHAR, excerpt VARCHAR);

-- The derived files are optional; these stay empty unless load_scores.sql, load_claims.sql or
-- load_comparison.sql fill them.
CREATE OR REPLACE TABLE score_lines (
    readable BOOLEAN, entry BIGINT, type VARCHAR, runId VARCHAR, ts VARCHAR, conversationId VARCHAR,
    attempt BIGINT, caseId VARCHAR,
    expected STRUCT(deliveredSkus VARCHAR[], outstandingSkus VARCHAR[], delayReasons VARCHAR[],
                    deliveryEstimate VARCHAR, missingEvidence VARCHAR[], paymentStatus VARCHAR),
    asks VARCHAR[],
    score STRUCT(fields STRUCT(deliveredSkus BOOLEAN, outstandingSkus BOOLEAN, delayReasons BOOLEAN,
                 deliveryEstimate BOOLEAN, missingEvidence BOOLEAN, paymentStatus BOOLEAN), passed BOOLEAN),
    scorerVersion BIGINT, datasetHash VARCHAR);
CREATE OR REPLACE TABLE claim_lines (
    readable BOOLEAN, entry BIGINT, type VARCHAR, runId VARCHAR, ts VARCHAR, conversationId VARCHAR,
    attempt BIGINT, checkerVersion VARCHAR, findings BIGINT, kind VARCHAR, severity VARCHAR,
    sentence VARCHAR, claim VARCHAR, evidence VARCHAR, sku VARCHAR, "start" BIGINT, "end" BIGINT,
    unchecked BIGINT, reason VARCHAR);
CREATE OR REPLACE TABLE comparison_orders (
    order_id VARCHAR, matched BOOLEAN, design VARCHAR, bytes BIGINT, interactions BIGINT, lookups BIGINT,
    lookups_not_found BIGINT);
CREATE OR REPLACE TABLE comparison_run (present BOOLEAN, passed BOOLEAN);
INSERT INTO comparison_run VALUES (false, NULL);

-- Filled by load_details.sql (the heavy fields, for the conversation pages).
CREATE OR REPLACE TABLE event_details (
    type VARCHAR, ts VARCHAR, conversationId VARCHAR, attempt BIGINT, seq BIGINT, turn BIGINT,
    historyLength BIGINT, requestBytes BIGINT, newItems JSON,
    outputItems JSON, usage STRUCT(inputTokens BIGINT, outputTokens BIGINT, cachedTokens BIGINT,
                                   reasoningTokens BIGINT, estimated BOOLEAN),
    model VARCHAR, latencyMs DOUBLE, retries BIGINT, error JSON, stopReason VARCHAR, answerFormat VARCHAR,
    callId VARCHAR, name VARCHAR, arguments VARCHAR, text VARCHAR, isError BOOLEAN,
    errorKind VARCHAR, bytes BIGINT, finalText VARCHAR, assessment JSON,
    lookups STRUCT(orders BIGINT, payments BIGINT, reservations BIGINT, tracking BIGINT, notFound BIGINT),
    serverTimings STRUCT(promptTokens BIGINT, cachedTokens BIGINT, promptMs DOUBLE, generatedTokens BIGINT, generatedMs DOUBLE));
