-- Claim findings on the customer summaries (claims.jsonl, when present): per design and kind, how
-- many summaries have at least one finding of that kind, under kind 'any' how many have any, and
-- under kind 'checked' how many summaries the checker read (so "no finding" differs from "not run"),
-- and under kind 'unchecked' how many summaries hold a claim it could not check (never a finding).
-- Findings come from claim_findings_view (views.sql): live finished conversations only, the latest
-- checker version per conversation. Designs come in the manifest's order, as in every other table.
WITH counted AS (
    SELECT c.design, f.kind, count(DISTINCT f.conversation_id) AS summaries
    FROM claim_findings_view f JOIN conversations c USING (conversation_id, attempt)
    GROUP BY ALL
    UNION ALL
    SELECT c.design, 'any', count(DISTINCT f.conversation_id)
    FROM claim_findings_view f JOIN conversations c USING (conversation_id, attempt)
    GROUP BY ALL
    UNION ALL
    SELECT c.design, 'unchecked', count(DISTINCT u.conversation_id)
    FROM claim_unchecked_view u JOIN conversations c USING (conversation_id, attempt)
    GROUP BY ALL
    UNION ALL
    SELECT c.design, 'checked', count(DISTINCT l.conversationId)
    FROM claim_lines l JOIN conversations c ON c.conversation_id = l.conversationId AND c.attempt = l.attempt
    WHERE l.readable AND l.type = 'summary_checked' AND l.runId = getvariable('run_id')
    GROUP BY ALL
)
SELECT counted.design, counted.kind, counted.summaries
FROM counted, run_manifest m
ORDER BY list_position(m.designs, counted.design), counted.design, counted.kind;
