-- Run-level lines: exactly one run_started of this run, and its `planned` equal to the number of
-- conversations in the manifest's plan.
WITH started AS (
    SELECT coalesce(sum(run_started_lines), 0) AS n, any_value(planned) AS planned FROM run_lines
)
SELECT 'run_started lines: ' || n AS problem FROM started WHERE n <> 1
UNION ALL
SELECT 'run_started.planned is ' || coalesce(planned::VARCHAR, 'missing') || ', the plan has '
       || (SELECT count(*) FROM plan)
FROM started WHERE n = 1 AND planned IS DISTINCT FROM (SELECT count(*) FROM plan);
