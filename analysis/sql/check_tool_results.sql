-- Live conversation attempts whose tool calls and tool results do not pair up: as many results as
-- calls, and the same (turn, call id) on both sides (tested with sums of hash(turn, callId), see
-- check_seq.sql), so every call has a result with its call id and no result is orphaned. A
-- conversation stopped by its deadline was cancelled mid-turn: fewer results than calls is
-- accepted there. Limit: a call id used twice in one turn with a result for each passes as paired.
SELECT conversation_id, attempt, calls, results,
       CASE WHEN calls <> results THEN calls || ' tool calls but ' || results || ' tool results'
            ELSE 'the results do not carry the call ids (and turns) of the calls'
       END AS problem
FROM attempt_totals
WHERE (calls <> results OR coalesce(call_hash, 0) <> coalesce(result_hash, 0))
  AND NOT (status = 'timeout' AND budget_hit = 'deadline' AND results < calls)
ORDER BY conversation_id, attempt;
