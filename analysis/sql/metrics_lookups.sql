-- Backend work per design (in the manifest's order), added up over its finished conversations: the
-- reads of each backend the servers reported (tool_result lookups), those that found no record,
-- their total, and the bytes of the tool results. recorded counts the conversations whose lookups
-- were recorded; every lookup sum is NULL when none was (a run recorded before the servers
-- reported them), never 0.
SELECT c.design, count(*) AS conversations, count(c.backend_lookups) AS recorded,
       sum(c.lookups_orders) AS orders, sum(c.lookups_payments) AS payments,
       sum(c.lookups_reservations) AS reservations, sum(c.lookups_tracking) AS tracking,
       sum(c.lookups_not_found) AS not_found, sum(c.backend_lookups) AS total,
       sum(c.tool_result_bytes) AS tool_result_bytes
FROM conversations c, run_manifest m
GROUP BY c.design, m.designs
ORDER BY list_position(m.designs, c.design), c.design;
