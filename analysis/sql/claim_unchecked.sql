-- The claims the checker could not check on each finished conversation's customer summary (claim_unchecked lines
-- of claims.jsonl, see claim_unchecked_view in views.sql), in the order of their position in the summary. They are
-- never findings: listed apart, never counted in the headline.
SELECT conversation_id, attempt, kind, sentence, claim, reason, "start", "end", checker_version
FROM claim_unchecked_view
ORDER BY conversation_id, "start", "end", kind;
