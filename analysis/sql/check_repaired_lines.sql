-- Notice: malformed lines that a resume acknowledged, i.e. the truncated last line of a killed run,
-- whose number run_resumed.repairedLine records. They are reported, not counted, and do not fail.
SELECT line_no, reason, excerpt
FROM malformed_lines
WHERE line_no IN (SELECT unnest(repaired_lines) FROM run_lines)
ORDER BY line_no;
