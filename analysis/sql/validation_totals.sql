-- What a validation reports besides its checks: how many events were excluded because their attempt
-- was superseded, and every malformed line of events.jsonl (acknowledged ones included) in order.
SELECT (SELECT coalesce(sum(events), 0) FROM attempts WHERE superseded) AS superseded_events,
       (SELECT coalesce(list({'line_no': line_no, 'reason': reason} ORDER BY line_no), [])
        FROM malformed_lines) AS malformed;
