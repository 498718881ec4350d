"""The names every stage agrees on, defined once: the answer's fields and the backends behind the tools."""

from __future__ import annotations

# Every field of the answer contract, in the order answers and tables show them; a case asks for
# some of them (by default the first five, the question every case asked before `asks` existed).
ASSESSMENT_FIELDS = ("deliveredSkus", "outstandingSkus", "delayReasons", "deliveryEstimate", "missingEvidence",
                     "paymentStatus")
DEFAULT_ASKS = ASSESSMENT_FIELDS[:5]
# The fields whose value is a list (scored as sets).
LIST_FIELDS = ("deliveredSkus", "outstandingSkus", "delayReasons", "missingEvidence")
# The backends a lookup reads, as the servers report them in each tool result's `_meta`.
BACKENDS = ("orders", "payments", "reservations", "tracking")
