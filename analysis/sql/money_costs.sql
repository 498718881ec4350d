-- What each finished conversation cost: turn_costs prices every response of money_turns with the price
-- in force at its time for its prompt size (money_prices), and conversation_costs adds them up. Amounts
-- are integers, USD × 10^money_scale (getvariable('money_scale')), so sums and medians are exact.
-- Run after money_turns.sql once money_prices is filled.
--
-- As analysis/prices.py prices one response: (input - cached) × the input rate + cached × the cached
-- input rate + output × the output rate (reasoning tokens are part of the output), plus the request
-- fee of the few models that bill each request. A conversation is unknown (`unknown`, never $0):
-- 'estimate' when its tokens are wismo's estimates and no model was named to price them as,
-- 'no tokens' when no response reported any, 'no price' when a response has no price (price_reason
-- says why: the first such response's reason, in turn order).
CREATE OR REPLACE TABLE turn_costs AS
SELECT t.conversation_id, t.case_id, t.turn, t.written_at, t.asked, t.reported, t.needs_price, t.by_name,
       t.input_tokens, t.cached_tokens, p.price_id, p.reason,
       (coalesce(t.input_tokens, 0) - coalesce(t.cached_tokens, 0)) * p.rate_input
           + coalesce(t.cached_tokens, 0) * p.rate_cached + coalesce(t.output_tokens, 0) * p.rate_output
           + p.fee AS usd
FROM money_turns t
LEFT JOIN money_prices p
       ON t.needs_price AND p.asked = t.asked AND p.by_name = t.by_name AND p.day IS NOT DISTINCT FROM t.day
      AND (p.period_start IS NULL OR (t.written_at >= p.period_start AND t.written_at < p.period_end))
      AND coalesce(t.input_tokens, 0) > p.above AND (p.upto IS NULL OR coalesce(t.input_tokens, 0) <= p.upto);

CREATE OR REPLACE TABLE conversation_costs AS
WITH totals AS (
    SELECT conversation_id, count(*) AS responses, count_if(reported) AS reported,
           bool_or(by_name) AS estimated,
           count_if(needs_price AND price_id IS NULL) AS unpriced,
           arg_min(reason, turn) FILTER (WHERE needs_price AND price_id IS NULL) AS price_reason,
           arg_min(asked, turn) FILTER (WHERE needs_price AND price_id IS NULL) AS unpriced_model,
           sum(usd) AS usd,
           bool_or(reported AND cached_tokens IS NULL AND coalesce(input_tokens, 0) <> 0) AS cached_unreported,
           min(written_at::DATE) AS first_day, max(written_at::DATE) AS last_day
    FROM turn_costs
    GROUP BY conversation_id
), costs AS (
    SELECT c.conversation_id, c.case_id, c.design, c.repetition, c.passed,
           coalesce(t.estimated, false) AS estimated, coalesce(t.responses, 0) AS responses,
           coalesce(t.reported, 0) AS reported, t.price_reason, t.unpriced_model, t.cached_unreported,
           t.first_day, t.last_day,
           CASE WHEN t.estimated AND getvariable('price_as') IS NULL THEN 'estimate'
                WHEN coalesce(t.reported, 0) = 0 THEN 'no tokens'
                WHEN t.unpriced > 0 THEN 'no price' END AS unknown,
           t.usd
    FROM conversations c
    LEFT JOIN totals t USING (conversation_id)
)
SELECT * REPLACE (CASE WHEN unknown IS NULL THEN usd END AS usd)
FROM costs;
