-- Loads deterministic-comparison.json (`wismo check`'s result, stored with the run; run this only
-- when the file exists) into comparison_orders (bytes and MCP interactions per order and design)
-- and comparison_run (whether everything matched).
DELETE FROM comparison_run;
INSERT INTO comparison_run
SELECT true, passed FROM read_json(getvariable('run_dir') || '/deterministic-comparison.json',
                                   columns = {passed: 'BOOLEAN'});
INSERT INTO comparison_orders
SELECT o.orderId, o.matched, d.design, o.bytes[d.design], o.interactions[d.design]
FROM (SELECT unnest(orders) AS o
      FROM read_json(getvariable('run_dir') || '/deterministic-comparison.json', columns = {
          orders: 'STRUCT(orderId VARCHAR, matched BOOLEAN, bytes MAP(VARCHAR, BIGINT),
                   interactions MAP(VARCHAR, BIGINT))[]'})),
     LATERAL (SELECT unnest(map_keys(o.bytes)) AS design) d;
