-- Lines of claims.jsonl (when the run has one) that do not hold: unreadable lines, another runId,
-- an unknown type, or a conversation attempt that is not a finished live one.
SELECT c.entry, c.conversationId AS conversation_id, c.attempt,
       CASE WHEN NOT c.readable THEN 'unreadable line'
            WHEN c.runId IS DISTINCT FROM m.run_id THEN 'another run: ' || c.runId
            WHEN c.type NOT IN ('summary_checked', 'claim_finding', 'claim_unchecked') THEN 'unknown type: ' || c.type
            ELSE 'not a finished live conversation attempt'
       END AS problem
FROM claim_lines c
CROSS JOIN run_manifest m
LEFT JOIN attempt_totals t ON t.conversation_id = c.conversationId AND t.attempt = c.attempt
                          AND t.finished_lines > 0
WHERE NOT c.readable OR c.runId IS DISTINCT FROM m.run_id
   OR c.type NOT IN ('summary_checked', 'claim_finding', 'claim_unchecked') OR t.conversation_id IS NULL
ORDER BY c.entry;
