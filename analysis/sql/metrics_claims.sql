-- Claim findings on the customer summaries (claims.jsonl, when present): per design and kind, how
-- many summaries have at least one finding of that kind, and under kind 'any' how many have any.
-- Findings come from claim_findings_view (views.sql): live finished conversations only, the latest
-- checker version per conversation.
SELECT c.design, f.kind, count(DISTINCT f.conversation_id) AS summaries
FROM claim_findings_view f JOIN conversations c USING (conversation_id, attempt)
GROUP BY ALL
UNION ALL
SELECT c.design, 'any', count(DISTINCT f.conversation_id)
FROM claim_findings_view f JOIN conversations c USING (conversation_id, attempt)
GROUP BY ALL
ORDER BY design, kind;
