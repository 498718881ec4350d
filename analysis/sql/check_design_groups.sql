-- The designs a comparison pairs: the baseline (the manifest's `baseline`, else its first design)
-- must be one of the run's designs, each design must be named once, and every (case, repetition)
-- group of the plan must run each of the N designs exactly once, in positions exactly 1..N (the
-- order rotates between groups), under one pairIndex of its own. Every design is compared with the
-- baseline within a group, so a group that misses a design, runs one twice or puts two in one
-- position is no fair comparison. check_plan_coverage.sql holds the recorded conversations to this
-- plan. One row per problem: the group (NULL for the run's own fields), what is wrong and the detail.
WITH run_designs AS (
    SELECT unnest(designs) AS design FROM run_manifest
), groups AS (
    SELECT case_id, repetition, list_sort(list(pair_position)) AS positions,
           list(design || ' ' || pair_position ORDER BY pair_position, design) AS placed,
           list_sort(list(DISTINCT pair_index)) AS pair_indexes
    FROM plan
    GROUP BY case_id, repetition
), per_design AS (
    SELECT case_id, repetition, design, count(*) AS conversations FROM plan GROUP BY ALL
)
SELECT NULL::VARCHAR AS case_id, NULL::BIGINT AS repetition, 'baseline not a design' AS problem,
       'the baseline ' || coalesce(baseline, 'null') || ' is not one of the designs ('
       || array_to_string(designs, ', ') || ')' AS detail
FROM run_manifest
WHERE NOT coalesce(list_contains(designs, baseline), false)
UNION ALL
SELECT NULL, NULL, 'design named twice', design || ' is named ' || count(*) || ' times in designs'
FROM run_designs
GROUP BY design
HAVING count(*) > 1
UNION ALL
SELECT g.case_id, g.repetition, 'design missing from its group',
       d.design || ' has no conversation in this group (' || array_to_string(g.placed, ', ') || ')'
FROM groups g
CROSS JOIN (SELECT DISTINCT design FROM run_designs) d
LEFT JOIN per_design p ON p.case_id = g.case_id AND p.repetition = g.repetition AND p.design = d.design
WHERE p.design IS NULL
UNION ALL
SELECT case_id, repetition, 'design twice in its group', design || ' runs ' || conversations || ' times in this group'
FROM per_design
WHERE conversations > 1
UNION ALL
SELECT p.case_id, p.repetition, 'not a design of the run', p.design || ' is not one of the designs ('
       || array_to_string(m.designs, ', ') || ')'
FROM per_design p
CROSS JOIN run_manifest m
WHERE NOT list_contains(m.designs, p.design)
UNION ALL
SELECT g.case_id, g.repetition, 'positions not 1..N',
       'positions ' || array_to_string(g.placed, ', ') || '; with ' || len(m.designs)
       || ' designs each of 1..' || len(m.designs) || ' once'
FROM groups g
CROSS JOIN run_manifest m
WHERE g.positions <> range(1, len(m.designs) + 1)
UNION ALL
SELECT case_id, repetition, 'group split over pairs', 'pairIndex ' || array_to_string(pair_indexes, ', ')
FROM groups
WHERE len(pair_indexes) > 1
UNION ALL
SELECT NULL, NULL, 'pair shared by groups',
       'pairIndex ' || pair_index || ' holds ' || count(DISTINCT (case_id, repetition)) || ' (case, repetition) groups'
FROM plan
GROUP BY pair_index
HAVING count(DISTINCT (case_id, repetition)) > 1
ORDER BY case_id NULLS FIRST, repetition, problem, detail;
