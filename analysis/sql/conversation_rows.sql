-- One row per finished conversation (live attempt) for the conversation pages: its case, design,
-- outcome, score, figures (backend lookups NULL where not recorded), the raw final text and the
-- whole parsed answer (customerSummary included). Needs load_details.sql.
SELECT c.conversation_id, c.attempt, c.case_id, k.order_id, c.design, c.repetition, c.pair_position,
       c.status, c.budget_hit, c.error, c.passed, c.score.fields AS field_scores,
       d.assessment, d.assessment ->> '$.customerSummary' AS customer_summary, d.finalText AS final_text,
       c.turns, c.tool_calls, c.input_tokens, c.output_tokens, c.cached_tokens, c.total_tokens,
       c.elapsed_ms, c.uncached_input_tokens, c.reasoning_tokens, c.tool_result_bytes,
       CASE WHEN c.backend_lookups IS NOT NULL
            THEN {'orders': c.lookups_orders, 'payments': c.lookups_payments,
                  'reservations': c.lookups_reservations, 'tracking': c.lookups_tracking,
                  'notFound': c.lookups_not_found} END AS lookups
FROM conversations c
LEFT JOIN cases k USING (case_id)
LEFT JOIN live_details d ON d.type = 'conversation_finished' AND d.conversationId = c.conversation_id
                        AND d.attempt = c.attempt
CROSS JOIN run_manifest m
ORDER BY k.case_order, c.case_id, c.repetition, list_position(m.designs, c.design), c.design;
