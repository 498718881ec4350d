-- The model responses of every finished conversation (live attempt), ready to price: money_turns holds
-- each response's tokens, the model it is priced as (`asked`) and the UTC day that picks its price;
-- money_prices is filled by analysis/price_table.py with the prices in force on those days.
-- Run after load_run.sql and views.sql (the responses come from load_run.sql's one pass); then
-- money_costs.sql adds it all up.
--
-- As analysis/prices.py's conversation_cost does in Python: a conversation any of whose responses
-- carries wismo's estimated tokens (the scripted policy's) is priced, every response of it, as the model
-- the caller names (getvariable('price_as'); looked up by its name alone, `by_name`), and stays unknown
-- when none is named; any other response is priced as the model it names, else the run's model, with the
-- run's provider. A response that reported no tokens (a failed request) adds nothing and needs no price.
CREATE OR REPLACE TABLE money_turns AS
WITH responses AS (    -- the live attempts that finished (the conversations view's rows)
    SELECT conversation_id, case_id, unnest(response_usage) AS r,
           list_bool_or(list_transform(response_usage, lambda x: coalesce(x.estimated, false))) AS by_name
    FROM attempt_totals
    WHERE finished_lines > 0
)
SELECT conversation_id, case_id, r.turn, written_at, r.input_tokens, r.output_tokens, r.cached_tokens, by_name,
       reported, reported AND (NOT by_name OR getvariable('price_as') IS NOT NULL) AS needs_price,
       CASE WHEN by_name THEN getvariable('price_as')
            ELSE coalesce(nullif(r.model, ''), (SELECT model FROM run_manifest), '') END AS asked,
       timezone('UTC', written_at)::DATE AS day
FROM (SELECT *, try_cast(r.ts AS TIMESTAMPTZ) AS written_at,
             r.input_tokens IS NOT NULL OR r.output_tokens IS NOT NULL AS reported
      FROM responses);

-- One row per (model, lookup, day) and span of that day and prompt size: the rates in force, as integers
-- (USD per million tokens × 10^(money_scale - 6), the request fee in USD × 10^money_scale: exact sums
-- in SQL), with price_id naming the price for the caller, or `reason` why there is none.
CREATE OR REPLACE TABLE money_prices (
    asked VARCHAR, by_name BOOLEAN, day DATE, period_start TIMESTAMPTZ, period_end TIMESTAMPTZ,
    above BIGINT, upto BIGINT, rate_input HUGEINT, rate_cached HUGEINT, rate_output HUGEINT, fee HUGEINT,
    price_id BIGINT, reason VARCHAR);

-- {n, low, high}: how many values, and the two middle ones once sorted (the same one when n is odd):
-- a median without rounding (the caller averages the two).
CREATE OR REPLACE TEMP MACRO middle_values(xs) AS
    {'n': coalesce(len(xs), 0), 'low': list_sort(xs)[(len(xs) + 1) // 2], 'high': list_sort(xs)[len(xs) // 2 + 1]};
