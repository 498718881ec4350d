-- The paired view: every (case, repetition) with each design's figures (in analysis.model.METRICS
-- order) and whether it passed, in the manifest's case and design order (the comparison pairs
-- conversations this way).
SELECT c.case_id, c.repetition, c.design, c.passed, c.turns, c.tool_calls, c.backend_lookups,
       c.tool_result_bytes, c.input_tokens, c.uncached_input_tokens, c.output_tokens, c.reasoning_tokens,
       c.total_tokens, c.elapsed_ms
FROM conversations c
CROSS JOIN run_manifest m
LEFT JOIN cases k USING (case_id)
ORDER BY k.case_order, c.case_id, c.repetition, list_position(m.designs, c.design), c.design;
