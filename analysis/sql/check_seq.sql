-- Live conversation attempts whose seq is not 1, 2, ..., n over their n events: a seq missing (a
-- gap), a seq used more than once (for example a duplicated line), conversation_started not seq 1,
-- conversation_finished not the last seq, or finished stamped before started.
-- "Exactly 1..n" is tested as: lowest 1, highest n, and the sum of hash(seq) equal to
-- hash(1) + ... + hash(n) (see event_groups in load_run.sql).
WITH a AS (
    SELECT t.*, p.total AS expected_hash
    FROM attempt_totals t LEFT JOIN hash_prefix p ON p.n = t.conversation_lines
    WHERE t.conversation_lines > 0
)
SELECT conversation_id, attempt, conversation_lines AS events, seq_min, seq_max,
       'first seq is ' || seq_min AS problem
FROM a WHERE seq_min <> 1
UNION ALL
SELECT conversation_id, attempt, conversation_lines, seq_min, seq_max,
       CASE WHEN seq_max > conversation_lines
                THEN conversation_lines || ' events numbered up to ' || seq_max || ': '
                     || (seq_max - conversation_lines) || ' seq missing'
            WHEN seq_max < conversation_lines
                THEN conversation_lines || ' events numbered up to ' || seq_max || ': a seq used more than once'
            ELSE 'a seq used more than once and another missing'
       END
FROM a WHERE seq_max <> conversation_lines OR seq_hash IS DISTINCT FROM expected_hash
UNION ALL
SELECT conversation_id, attempt, conversation_lines, seq_min, seq_max,
       'conversation_started is seq ' || started_seq || ', not 1'
FROM a WHERE started_seq <> 1
UNION ALL
SELECT conversation_id, attempt, conversation_lines, seq_min, seq_max,
       'conversation_finished is seq ' || finished_seq || ', not the last (' || seq_max || ')'
FROM a WHERE finished_seq <> seq_max
UNION ALL
SELECT conversation_id, attempt, conversation_lines, seq_min, seq_max,
       'conversation_finished is stamped before conversation_started'
FROM a WHERE finished_at < started_at
ORDER BY conversation_id, attempt, problem;
