-- Event lines from another run: readable events whose runId is not the manifest's runId (for
-- example a line pasted from another run's file), per conversation attempt. They are never counted.
SELECT run_id, conversation_id, attempt, lines
FROM event_groups
WHERE readable AND foreign_run
ORDER BY conversation_id, attempt, run_id;
