-- Conversations with more than one attempt that counts: every attempt below the live one (the
-- highest attempt not superseded) must be named by an attempt_superseded event.
SELECT conversation_id, attempt, events,
       max(attempt) FILTER (WHERE live) OVER (PARTITION BY conversation_id) AS live_attempt
FROM attempts
QUALIFY NOT superseded AND NOT coalesce(live, false) AND events > 0
ORDER BY conversation_id, attempt;
