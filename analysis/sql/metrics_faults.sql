-- Infrastructure faults (provider_error, tool_error, timeout, interrupted: not the model's doing):
-- per distinct cause (status and error text) and design, how many finished conversations ended
-- with it and the first of them as an example. An empty result means the run had none.
SELECT c.status, coalesce(c.error, '(no message)') AS cause, c.design, count(*) AS conversations,
       min(c.conversation_id) AS example
FROM conversations c
WHERE c.status IN ('provider_error', 'tool_error', 'timeout', 'interrupted')
GROUP BY ALL
ORDER BY c.status, cause, c.design;
