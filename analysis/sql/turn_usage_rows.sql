-- The rows of turn_usage (load_turn_usage.sql), one per model response, conversation by conversation
-- in the manifest's design order and turn by turn.
SELECT t.*
FROM turn_usage t, run_manifest m
ORDER BY t.case_id, t.conversation_id, list_position(m.designs, t.design), t.turn;
