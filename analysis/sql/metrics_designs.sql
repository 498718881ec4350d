-- Per design (in the manifest's order): finished conversations, how many passed, the pass rate
-- overall and per answer field, and how many conversations ended in each status. A field's rate is
-- over the conversations whose case asks it (a field not asked is neither right nor wrong); NULL
-- when no case of the design asks it. answered_without_evidence counts the conversations that ended
-- with the model's answer (answered or invalid_answer) without a single tool result that was not an
-- error: whatever it said, it had gathered no record to say it from (passed_without_evidence: of
-- those, the ones whose answer happened to be right).
SELECT c.design, count(*) AS conversations, count_if(c.passed) AS passed,
       count_if(c.passed) / count(*) AS pass_rate,
       count_if(c.score.fields.deliveredSkus) / count(c.score.fields.deliveredSkus) AS deliveredSkus,
       count_if(c.score.fields.outstandingSkus) / count(c.score.fields.outstandingSkus) AS outstandingSkus,
       count_if(c.score.fields.delayReasons) / count(c.score.fields.delayReasons) AS delayReasons,
       count_if(c.score.fields.deliveryEstimate) / count(c.score.fields.deliveryEstimate) AS deliveryEstimate,
       count_if(c.score.fields.missingEvidence) / count(c.score.fields.missingEvidence) AS missingEvidence,
       count_if(c.score.fields.paymentStatus) / count(c.score.fields.paymentStatus) AS paymentStatus,
       histogram(c.status) AS status_counts,
       count_if(c.status IN ('answered', 'invalid_answer') AND c.records_gathered = 0) AS answered_without_evidence,
       count_if(c.passed AND c.records_gathered = 0) AS passed_without_evidence,
       sum(c.text_calls)::BIGINT AS text_calls
FROM conversations c, run_manifest m
GROUP BY c.design, m.designs
ORDER BY list_position(m.designs, c.design), c.design;
