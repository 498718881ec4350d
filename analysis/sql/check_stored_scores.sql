-- Stored scores (conversation_finished.score) that differ from a re-computation, by the rules of
-- core/domain/scorer.py (scoring.sql), from the parsed answer (assessment) and the case's expectation
-- in the manifest, scoring only the fields the case asks: one row per differing field, `passed`
-- included.
WITH rescored AS (
    SELECT t.conversation_id, t.attempt, t.stored_score,
           rescore_fields(t.assessment, c.expected, c.asks) AS recomputed
    FROM attempt_totals t
    LEFT JOIN cases c USING (case_id)
    WHERE t.finished_lines > 0
), compared AS (
    SELECT conversation_id, attempt, unnest(score_comparison(stored_score, recomputed), recursive := true)
    FROM rescored
)
SELECT conversation_id, attempt, field, stored_value, recomputed
FROM compared
WHERE stored_value IS DISTINCT FROM recomputed
ORDER BY conversation_id, attempt, field;
