-- Numbers the lines of events.jsonl that are not events, into malformed_lines (line_no, reason,
-- excerpt) with exact 1-based line numbers: blank lines, lines that are not UTF-8 or not JSON,
-- JSON that is not an object with a "type", and other schema versions (the rules of
-- recorder.runlog.read_event_lines).
--
-- The file is read as lines by the CSV reader (no quoting, a NUL delimiter, one column), numbered
-- with row_number() OVER () (the reader keeps file order). A line the reader cannot take (not
-- UTF-8, longer than 256 MiB) is rejected into a rejects table with its own line number; the
-- accepted lines are renumbered around those. Only lines that do not start the way wismo writes
-- every event are parsed again, so this stays one scan plus one JSON validation per line.
-- Limit: a raw carriage return inside a line (wismo never writes one) counts as a line break here.
DROP TABLE IF EXISTS event_line_rejects;
DROP TABLE IF EXISTS event_line_reject_scans;

CREATE OR REPLACE TEMP TABLE suspect_lines AS
SELECT ordinal, line
FROM (SELECT row_number() OVER () AS ordinal, line
      FROM read_csv(getvariable('run_dir') || '/events.jsonl', columns = {'line': 'VARCHAR'},
                    delim = chr(0), quote = '', escape = '', header = false, auto_detect = false,
                    new_line = '\n', strict_mode = false, ignore_errors = true,
                    max_line_size = 268435456, store_rejects = true,
                    rejects_table = 'event_line_rejects', rejects_scan = 'event_line_reject_scans'))
WHERE line IS NULL OR NOT starts_with(line, '{"v":1,"type":"') OR NOT json_valid(line);

INSERT INTO malformed_lines
WITH rejects AS (
    SELECT line AS line_no, error_type,
           line - row_number() OVER (ORDER BY line) AS accepted_before,
           row_number() OVER (ORDER BY line) AS rejects_so_far
    FROM event_line_rejects
), numbered AS (
    -- accepted line k follows every reject j with (accepted lines before j) < k
    SELECT s.ordinal + coalesce(r.rejects_so_far, 0) AS line_no, s.line
    FROM suspect_lines s ASOF LEFT JOIN rejects r ON s.ordinal > r.accepted_before
), classified AS (
    SELECT line_no, line,
           CASE
               WHEN line IS NULL OR trim(line, chr(32) || chr(9) || chr(13)) = '' THEN 'not JSON: blank line'
               WHEN NOT json_valid(line) THEN 'not JSON'
               WHEN json_type(line) <> 'OBJECT' OR NOT json_exists(line, '$.type')
                   THEN 'not an event object with a type'
               WHEN NOT coalesce(json_extract(line, '$.v')::VARCHAR = '1'
                                 OR try_cast(json_extract(line, '$.v')::VARCHAR AS DOUBLE) = 1, false)
                   THEN 'schema version ' || coalesce(json_extract(line, '$.v')::VARCHAR, 'missing')
                        || ', this wismo reads 1'
           END AS reason
    FROM numbered
)
SELECT line_no, reason, left(line, 80) AS excerpt FROM classified WHERE reason IS NOT NULL
UNION ALL
SELECT line_no,
       CASE error_type::VARCHAR
           WHEN 'INVALID ENCODING' THEN 'not JSON: not UTF-8'
           WHEN 'LINE SIZE OVER MAXIMUM' THEN 'line longer than 256 MiB'
           ELSE 'unreadable line (' || lower(error_type::VARCHAR) || ')'
       END,
       NULL
FROM rejects;
