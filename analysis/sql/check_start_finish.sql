-- Live conversation attempts without exactly one conversation_started and exactly one
-- conversation_finished (a conversation counts only with its conversation_finished line).
SELECT conversation_id, attempt, started_lines, finished_lines
FROM attempt_totals
WHERE started_lines <> 1 OR finished_lines <> 1
ORDER BY conversation_id, attempt;
