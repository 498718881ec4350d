-- Notice: attempts that a resume superseded (attempt_superseded), with how many of their events are
-- excluded from every figure. Their lines stay in the file; they are counted here, never used.
SELECT conversation_id, attempt, events AS events_excluded
FROM attempts
WHERE superseded
ORDER BY conversation_id, attempt;
