-- Per design and metric (turns, tool calls, backend lookups, tool result bytes, input, uncached input,
-- output, reasoning and total tokens, elapsed ms): the median, minimum and maximum over the finished conversations that have a value,
-- and how many those are. Rows come in the bootstrap's metric numbering; analysis.metrics orders them.
SELECT cm.design, cm.metric, median(cm.value) AS median, min(cm.value) AS min, max(cm.value) AS max,
       count(cm.value) AS n
FROM conversation_metrics cm, run_manifest m
GROUP BY cm.design, cm.metric, cm.ord, m.designs
ORDER BY list_position(m.designs, cm.design), cm.design, cm.ord;
