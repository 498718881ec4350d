-- Per design (in the manifest's order): finished conversations, how many passed, the pass rate
-- overall and per answer field, and how many conversations ended in each status.
SELECT c.design, count(*) AS conversations, count_if(c.passed) AS passed,
       count_if(c.passed) / count(*) AS pass_rate,
       count_if(c.score.fields.deliveredSkus) / count(*) AS deliveredSkus,
       count_if(c.score.fields.outstandingSkus) / count(*) AS outstandingSkus,
       count_if(c.score.fields.delayReasons) / count(*) AS delayReasons,
       count_if(c.score.fields.deliveryEstimate) / count(*) AS deliveryEstimate,
       count_if(c.score.fields.missingEvidence) / count(*) AS missingEvidence,
       histogram(c.status) AS status_counts
FROM conversations c, run_manifest m
GROUP BY c.design, m.designs
ORDER BY list_position(m.designs, c.design), c.design;
