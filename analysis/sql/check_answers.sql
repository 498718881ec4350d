-- Live finished attempts whose answer is not the one their trace holds. finalText must be the text
-- of the last model_response (its text items joined, as the agent loop joins them) when the
-- conversation answered or gave an invalid answer (when it was cut short or refused: that text, or
-- null for none), and null when it ended any other way; an answered conversation's assessment must
-- be what its finalText parses to (core/domain/answer.py: one optional json fence, then one JSON
-- object), field by asked field and the customerSummary. So a rewritten answer, summary or score
-- cannot pass with the trace left as it was. `line` is filled in by analysis/checks.py: the
-- finished line's place in events.jsonl.
WITH finished AS (
    SELECT t.conversation_id, t.attempt, t.status, t.final_text, t.last_response_text, t.last_response_turn,
           t.assessment_text, coalesce(c.asks, ['deliveredSkus', 'outstandingSkus', 'delayReasons',
                                                'deliveryEstimate', 'missingEvidence']) AS asks,
           -- trim() reads every character (a third of this check at 100,000 answers); a text that begins
           -- with { or ` and ends with } or ` has nothing at either end to trim, so only the others are trimmed
           CASE WHEN (starts_with(t.final_text, '{') OR starts_with(t.final_text, '`'))
                     AND (ends_with(t.final_text, '}') OR ends_with(t.final_text, '`'))
                THEN t.final_text ELSE trim(t.final_text) END AS body
    FROM attempt_totals t
    LEFT JOIN cases c USING (case_id)
    WHERE t.finished_lines > 0
), answers AS (
    SELECT *,
           CASE WHEN starts_with(body, '```') AND regexp_matches(body, '^```(?:json)?\s*\n(?s:.*)\n```$')
                THEN trim(regexp_extract(body, '^```(?:json)?\s*\n((?s:.*))\n```$', 1)) ELSE body END AS answer_json
    FROM finished
), fields AS (
    SELECT conversation_id, attempt, unnest(list_append(asks, 'customerSummary')) AS field,
           CASE WHEN json_valid(answer_json) THEN answer_json END AS parsed, assessment_text
    FROM answers
    WHERE status = 'answered'
      -- an answer whose JSON is the assessment's, byte for byte once minified, agrees on every field: only
      -- the others are taken apart field by field (the minified texts are equal for nearly every answer)
      AND (answer_json IS NULL OR NOT json_valid(answer_json) OR json(answer_json) IS DISTINCT FROM assessment_text)
)
SELECT conversation_id, attempt, NULL::VARCHAR AS line,
       CASE WHEN status IN ('answered', 'invalid_answer', 'provider_limit', 'refused')
            THEN 'finalText is not the text of the last model_response (turn '
                 || coalesce(last_response_turn::VARCHAR, 'none') || ')'
            ELSE 'finalText on a conversation that ended ' || status || ' (only an answer has one)' END AS problem
FROM answers
WHERE CASE WHEN status IN ('answered', 'invalid_answer')
               THEN final_text IS DISTINCT FROM coalesce(last_response_text, '')
           WHEN status IN ('provider_limit', 'refused')
               THEN final_text IS DISTINCT FROM nullif(last_response_text, '')
           ELSE final_text IS NOT NULL END
UNION ALL
SELECT conversation_id, attempt, NULL, 'assessment.' || field || ' is not what finalText says'
FROM fields
WHERE json_extract(parsed, '$."' || field || '"')::VARCHAR
      IS DISTINCT FROM json_extract(assessment_text, '$."' || field || '"')::VARCHAR
ORDER BY conversation_id, attempt, problem;
