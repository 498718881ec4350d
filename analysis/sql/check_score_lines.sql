-- Lines of scores.jsonl (when the run has one) that do not hold: unreadable lines, another runId,
-- a conversation attempt that is not a finished live one, a caseId that is not the conversation's,
-- and scores that differ from a re-computation from the conversation's parsed answer and the
-- line's own `expected` and `asks` (one row per differing field; a line written before `asks`
-- existed scored the five default fields).
WITH lines AS (
    SELECT s.*, t.conversation_id IS NOT NULL AS finished_live, t.case_id AS conversation_case,
           t.assessment
    FROM score_lines s
    LEFT JOIN attempt_totals t ON t.conversation_id = s.conversationId AND t.attempt = s.attempt
                              AND t.finished_lines > 0
), rescored AS (
    SELECT entry, conversationId, attempt, score,
           rescore_fields(assessment, expected,
                          coalesce(asks, ['deliveredSkus', 'outstandingSkus', 'delayReasons', 'deliveryEstimate',
                                          'missingEvidence'])) AS recomputed
    FROM lines
    WHERE readable AND type = 'score' AND finished_live
), compared AS (
    SELECT entry, conversationId, attempt, unnest(score_comparison(score, recomputed), recursive := true)
    FROM rescored
)
SELECT entry, conversationId AS conversation_id, attempt,
       CASE WHEN NOT readable THEN 'unreadable line'
            WHEN type <> 'score' THEN 'not a score line: ' || type
            WHEN runId IS DISTINCT FROM (SELECT run_id FROM run_manifest) THEN 'another run: ' || runId
            WHEN NOT finished_live THEN 'not a finished live conversation attempt'
            ELSE 'caseId ' || caseId || ' but the conversation is ' || conversation_case
       END AS problem
FROM lines
WHERE NOT readable OR type <> 'score' OR runId IS DISTINCT FROM (SELECT run_id FROM run_manifest)
   OR NOT finished_live OR caseId IS DISTINCT FROM conversation_case
UNION ALL
SELECT entry, conversationId, attempt,
       field || ' stored ' || coalesce(stored_value::VARCHAR, 'null') || ', recomputed ' || recomputed::VARCHAR
FROM compared
WHERE stored_value IS DISTINCT FROM recomputed
ORDER BY entry, problem;
