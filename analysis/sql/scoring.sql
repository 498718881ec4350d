-- The scoring rules of core/domain/scorer.py as macros, so that checks can re-compute a score:
-- only the fields the case asks are scored (a field not asked is NULL: neither right nor wrong);
-- arrays are compared as sets, but a duplicate inside the answer's array fails that field; the
-- estimate is compared as a YYYY-MM-DD date or null; the payment status as the exact string; no
-- assessment fails every asked field; a conversation passes when every asked field matches.

-- Set equality as containment both ways (cheaper than sorting both lists).
CREATE OR REPLACE TEMP MACRO score_set_field(answer, expected) AS
    coalesce(answer IS NOT NULL
             AND len(answer) = len(list_distinct(answer))
             AND list_has_all(answer, expected) AND list_has_all(expected, answer), false);

-- A date only when the whole string is YYYY-MM-DD and names a real day (year 1 or later, as
-- Python's date allows); NULL otherwise.
CREATE OR REPLACE TEMP MACRO estimate_date(value) AS
    CASE WHEN regexp_full_match(value, '[0-9]{4}-[0-9]{2}-[0-9]{2}') AND value >= '0001'
         THEN try_cast(value AS DATE) END;

CREATE OR REPLACE TEMP MACRO score_estimate(answer, expected) AS
    coalesce((answer IS NULL OR estimate_date(answer) IS NOT NULL)
             AND (expected IS NULL OR estimate_date(expected) IS NOT NULL)
             AND estimate_date(answer) IS NOT DISTINCT FROM estimate_date(expected), false);

-- The field's verdict when the case asks it, else NULL.
CREATE OR REPLACE TEMP MACRO if_asked(asks, field, verdict) AS
    CASE WHEN list_contains(asks, field) THEN coalesce(verdict, false) END;

CREATE OR REPLACE TEMP MACRO rescore_fields(assessment, expected, asks) AS {
    'deliveredSkus': if_asked(asks, 'deliveredSkus', assessment IS NOT NULL
                     AND score_set_field(assessment.deliveredSkus, expected.deliveredSkus)),
    'outstandingSkus': if_asked(asks, 'outstandingSkus', assessment IS NOT NULL
                       AND score_set_field(assessment.outstandingSkus, expected.outstandingSkus)),
    'delayReasons': if_asked(asks, 'delayReasons', assessment IS NOT NULL
                    AND score_set_field(assessment.delayReasons, expected.delayReasons)),
    'deliveryEstimate': if_asked(asks, 'deliveryEstimate', assessment IS NOT NULL
                        AND score_estimate(assessment.deliveryEstimate, expected.deliveryEstimate)),
    'missingEvidence': if_asked(asks, 'missingEvidence', assessment IS NOT NULL
                       AND score_set_field(assessment.missingEvidence, expected.missingEvidence)),
    'paymentStatus': if_asked(asks, 'paymentStatus', assessment IS NOT NULL
                     AND assessment.paymentStatus = expected.paymentStatus)};

-- Stored and re-computed values side by side, one struct per field and one for `passed` (which
-- must be the AND of the asked fields; a field not asked is NULL on both sides). `recomputed` is
-- rescore_fields(...) computed once by the caller; a check unnests this list and keeps the rows
-- that differ.
CREATE OR REPLACE TEMP MACRO score_comparison(stored, recomputed) AS [
    {'field': 'deliveredSkus', 'stored_value': stored.fields.deliveredSkus,
     'recomputed': recomputed.deliveredSkus},
    {'field': 'outstandingSkus', 'stored_value': stored.fields.outstandingSkus,
     'recomputed': recomputed.outstandingSkus},
    {'field': 'delayReasons', 'stored_value': stored.fields.delayReasons,
     'recomputed': recomputed.delayReasons},
    {'field': 'deliveryEstimate', 'stored_value': stored.fields.deliveryEstimate,
     'recomputed': recomputed.deliveryEstimate},
    {'field': 'missingEvidence', 'stored_value': stored.fields.missingEvidence,
     'recomputed': recomputed.missingEvidence},
    {'field': 'paymentStatus', 'stored_value': stored.fields.paymentStatus,
     'recomputed': recomputed.paymentStatus},
    {'field': 'passed', 'stored_value': stored.passed,
     'recomputed': coalesce(recomputed.deliveredSkus, true) AND coalesce(recomputed.outstandingSkus, true)
                   AND coalesce(recomputed.delayReasons, true) AND coalesce(recomputed.deliveryEstimate, true)
                   AND coalesce(recomputed.missingEvidence, true) AND coalesce(recomputed.paymentStatus, true)}];
