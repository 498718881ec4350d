-- The claim findings on each finished conversation's customer summary (claims.jsonl, see
-- claim_findings_view in views.sql), in the order of their position in the summary.
SELECT conversation_id, attempt, kind, severity, sentence, claim, evidence, sku, "start", "end",
       checker_version
FROM claim_findings_view
ORDER BY conversation_id, "start", "end", kind;
