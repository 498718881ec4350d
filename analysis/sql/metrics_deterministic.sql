-- The deterministic comparison stored with the run (deterministic-comparison.json): whether it is
-- present and passed, and per order and design the bytes of the tool results, the number of MCP
-- tools/call interactions and the backend lookups the servers reported (NULL when the file predates
-- them) (no rows for orders when the file is absent); designs in the manifest's order.
SELECT r.present, r.passed, o.order_id, o.matched, o.design, o.bytes, o.interactions, o.lookups,
       o.lookups_not_found
FROM comparison_run r
LEFT JOIN comparison_orders o ON true
CROSS JOIN run_manifest m
ORDER BY o.order_id, list_position(m.designs, o.design), o.design;
