-- Infrastructure faults (provider_error, tool_error, timeout, interrupted: not the model's doing):
-- per distinct cause (status and error text) and design, how many finished conversations ended
-- with it and the first of them as an example. An empty result means the run had none. Designs
-- first, in the manifest's order: the per-design counts built from these rows list them that way.
SELECT c.status, coalesce(c.error, '(no message)') AS cause, c.design, count(*) AS conversations,
       min(c.conversation_id) AS example
FROM conversations c, run_manifest m
WHERE c.status IN ('provider_error', 'tool_error', 'timeout', 'interrupted')
GROUP BY c.status, cause, c.design, m.designs
ORDER BY list_position(m.designs, c.design), c.design, c.status, cause;
