-- Loads deterministic-comparison.json (`wismo check`'s result, stored with the run; run this only
-- when the file exists) into comparison_orders (bytes, MCP interactions and backend lookups per order
-- and design) and comparison_run (whether everything matched). lookups is the total of the backend
-- reads the servers reported, lookups_not_found those that found no record; both NULL in a file
-- written before `wismo check` reported them (or when a server reported none).
DELETE FROM comparison_run;
INSERT INTO comparison_run
SELECT true, passed FROM read_json(getvariable('run_dir') || '/deterministic-comparison.json',
                                   columns = {passed: 'BOOLEAN'});
INSERT INTO comparison_orders
SELECT o.orderId, o.matched, d.design, o.bytes[d.design], o.interactions[d.design],
       o.lookups[d.design].orders + o.lookups[d.design].payments + o.lookups[d.design].reservations
           + o.lookups[d.design].tracking, o.lookups[d.design].notFound
FROM (SELECT unnest(orders) AS o
      FROM read_json(getvariable('run_dir') || '/deterministic-comparison.json', columns = {
          orders: 'STRUCT(orderId VARCHAR, matched BOOLEAN, bytes MAP(VARCHAR, BIGINT),
                   interactions MAP(VARCHAR, BIGINT),
                   lookups MAP(VARCHAR, STRUCT(orders BIGINT, payments BIGINT, reservations BIGINT,
                                               tracking BIGINT, notFound BIGINT)))[]'})),
     LATERAL (SELECT unnest(map_keys(o.bytes)) AS design) d;
