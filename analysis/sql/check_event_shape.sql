-- Events of this run with an unknown type or without a field their type requires: ts,
-- conversationId, attempt and seq of conversation events, case/design/repetition/pair of
-- conversation_started, turn, usage of model_response, callId of tool events, a known status and
-- score and claimed counters of conversation_finished. One row per conversation attempt (run-level
-- lines have none) with how many events are affected and one of the problems.
SELECT conversation_id, attempt, shape_problems AS events, shape_problem AS example
FROM event_groups
WHERE readable AND NOT foreign_run AND shape_problems > 0
ORDER BY conversation_id, attempt;
