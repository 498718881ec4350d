-- Live conversation attempts whose turns are not numbered 1..n: the n model_request events must
-- carry turns 1..n, each once; the model_response events the same turns, each once; every
-- response, tool call and tool result must name a requested turn. A conversation stopped by its
-- deadline was cancelled while waiting, so its last request may have no response.
-- "Exactly 1..n" is tested as in check_seq.sql, with sums of hash(turn).
WITH a AS (
    SELECT t.*, p.total AS expected_hash,
           t.status = 'timeout' AND t.budget_hit = 'deadline' AS cut_by_deadline
    FROM attempt_totals t LEFT JOIN hash_prefix p ON p.n = t.requests
)
SELECT conversation_id, attempt, requests, responses,
       'model_request turns are not 1..' || requests || ' (lowest ' || coalesce(request_turn_min::VARCHAR, '-')
       || ', highest ' || coalesce(request_turn_max::VARCHAR, '-') || ')' AS problem
FROM a
WHERE requests > 0 AND (request_turn_min <> 1 OR request_turn_max <> requests
                        OR request_turn_hash IS DISTINCT FROM expected_hash)
UNION ALL
SELECT conversation_id, attempt, requests, responses,
       responses || ' model_response events for ' || requests || ' requests, or on other turns'
FROM a
WHERE NOT (responses = requests AND coalesce(response_turn_hash, 0) = coalesce(expected_hash, 0))
  AND NOT (cut_by_deadline AND responses = requests - 1
           AND coalesce(response_turn_hash, 0) = expected_hash - hash(requests))
UNION ALL
SELECT conversation_id, attempt, requests, responses,
       'a response, tool call or result names turn ' || CASE WHEN step_turn_min < 1 THEN step_turn_min
                                                             ELSE step_turn_max END
       || ', outside 1..' || requests
FROM a
WHERE step_turn_min < 1 OR step_turn_max > requests
ORDER BY conversation_id, attempt, problem;
