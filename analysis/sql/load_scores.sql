-- Loads scores.jsonl (written by `wismo score`; run this only when the file exists) into
-- score_lines: one row per line, `readable` false for a line that is not a score event of schema 1.
-- `entry` numbers the file's non-blank lines (read_json skips blank ones).
INSERT INTO score_lines BY NAME
SELECT type IS NOT NULL AND (v::VARCHAR = '1' OR try_cast(v::VARCHAR AS DOUBLE) = 1) AS readable,
       row_number() OVER () AS entry, * EXCLUDE (v)
FROM read_json(getvariable('run_dir') || '/scores.jsonl', format = 'newline_delimited',
               ignore_errors = true, columns = {
    v: 'JSON', type: 'VARCHAR', runId: 'VARCHAR', ts: 'VARCHAR', conversationId: 'VARCHAR',
    attempt: 'BIGINT', caseId: 'VARCHAR',
    expected: 'STRUCT(deliveredSkus VARCHAR[], outstandingSkus VARCHAR[], delayReasons VARCHAR[],
               deliveryEstimate VARCHAR, missingEvidence VARCHAR[], paymentStatus VARCHAR)',
    asks: 'VARCHAR[]',
    score: 'STRUCT(fields STRUCT(deliveredSkus BOOLEAN, outstandingSkus BOOLEAN, delayReasons BOOLEAN,
            deliveryEstimate BOOLEAN, missingEvidence BOOLEAN, paymentStatus BOOLEAN), passed BOOLEAN)',
    scorerVersion: 'BIGINT', datasetHash: 'VARCHAR'});
