-- The manifest's plan against what was recorded: every planned design x case x repetition must have
-- a finished conversation ('missing' otherwise), every finished conversation must be planned, and
-- its conversation_started must agree with the plan (case, design, repetition, pair).
WITH finished AS (SELECT * FROM attempt_totals WHERE finished_lines > 0)
SELECT p.conversation_id, 'missing' AS problem,
       p.design || ' x ' || p.case_id || ' x r' || p.repetition AS detail
FROM plan p ANTI JOIN finished f USING (conversation_id)
UNION ALL
SELECT f.conversation_id, 'not planned', f.design || ' x ' || f.case_id || ' x r' || f.repetition
FROM finished f ANTI JOIN plan p USING (conversation_id)
UNION ALL
SELECT f.conversation_id, 'differs from the plan',
       'started as ' || coalesce(f.design, '?') || ' x ' || coalesce(f.case_id, '?') || ' x r'
       || coalesce(f.repetition::VARCHAR, '?') || ' pair ' || coalesce(f.pair_index::VARCHAR, '?') || '/'
       || coalesce(f.pair_position::VARCHAR, '?') || ', planned ' || p.design || ' x ' || p.case_id
       || ' x r' || p.repetition || ' pair ' || p.pair_index || '/' || p.pair_position
FROM finished f JOIN plan p USING (conversation_id)
WHERE f.design IS DISTINCT FROM p.design OR f.case_id IS DISTINCT FROM p.case_id
   OR f.repetition IS DISTINCT FROM p.repetition OR f.pair_index IS DISTINCT FROM p.pair_index
   OR f.pair_position IS DISTINCT FROM p.pair_position
ORDER BY conversation_id, problem;
