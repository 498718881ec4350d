-- Loads claims.jsonl (claim checks on the customer summaries; run this only when the file exists)
-- into claim_lines: one row per line, `readable` false for a line that is not an event of schema 1.
-- `entry` numbers the file's non-blank lines (read_json skips blank ones).
INSERT INTO claim_lines BY NAME
SELECT type IS NOT NULL AND (v::VARCHAR = '1' OR try_cast(v::VARCHAR AS DOUBLE) = 1) AS readable,
       row_number() OVER () AS entry, * EXCLUDE (v)
FROM read_json(getvariable('run_dir') || '/claims.jsonl', format = 'newline_delimited',
               ignore_errors = true, columns = {
    v: 'JSON', type: 'VARCHAR', runId: 'VARCHAR', ts: 'VARCHAR', conversationId: 'VARCHAR',
    attempt: 'BIGINT', checkerVersion: 'VARCHAR', findings: 'BIGINT', kind: 'VARCHAR',
    severity: 'VARCHAR', sentence: 'VARCHAR', claim: 'VARCHAR', evidence: 'VARCHAR', sku: 'VARCHAR',
    "start": 'BIGINT', "end": 'BIGINT', unchecked: 'BIGINT', reason: 'VARCHAR'});
