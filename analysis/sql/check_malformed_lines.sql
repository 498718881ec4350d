-- Lines of events.jsonl that are not events (blank, not UTF-8, not JSON, not an object with a
-- "type", another schema version), by line number. A truncated line that a resume acknowledged
-- (run_resumed.repairedLine) is listed by check_repaired_lines.sql instead.
-- Reads malformed_lines, which number_lines.sql fills; wismo runs that file whenever line_census
-- shows a line that is not a readable event (when it shows none, there is nothing to number).
SELECT line_no, reason, excerpt
FROM malformed_lines
WHERE line_no NOT IN (SELECT unnest(repaired_lines) FROM run_lines)
ORDER BY line_no;
