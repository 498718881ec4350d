"""The words that make claims: regular expressions for each kind of claim and for how a date is presented."""

from __future__ import annotations

import re

_I = re.I
_APOS = "['’]"

# --- claim cues ------------------------------------------------------------------------------------

DELIVERED = re.compile(
    # "arrived at Coventry depot" is a carrier scan; only "arrived at your door" is a delivery.
    r"\bdelivered\b|\barrived\b(?!\s+at\s+(?!your\b|you\b|home\b))|\bdropped off\b|\bsigned for\b"
    r"|\bleft at (?:your|the) (?:front |back )?(?:door|porch|doorstep|mailbox)\b"
    # "left in your delivery box", "went into your home delivery box", "handed to you": placed with the customer.
    r"|\b(?:left|put|placed|went)\s+(?:in|into|at|on)\s+(?:your|the)\s+(?:[\w-]+\s+){0,2}?(?:box|locker|mailbox"
    r"|letterbox|porch|doorstep|door|mailroom|reception|step|entrance|desk|lobby|concierge|garage|gate)\b"
    # "left with your neighbour", "left at the side entrance": a place at the customer's, the parcel handed over
    r"|\bhanded\s+(?:over\s+)?to\s+you\b|\bleft\s+with\s+(?:your|a|the)\s+(?:\w+\s+)?(?:neighbou?r|concierge"
    r"|doorman|building manager|reception)\b"
    r"|\bdid\s+(?:\w+\s+)?arrive\b"
    rf"|\byou(?:{_APOS}ve| have)?\s+(?:already\s+)?received\b"
    r"|\b(?:reached|made it to|got to) you\b|\b(?:turned|showed) up\b"
    r"|\bcame\b(?!\s+(?:through|back|in|from|up|out|to))|\bconfirm(?:ed|s)?\s+(?:the\s+)?deliver(?:y|ed)\b"
    rf"|(?:\b(?:is|are)|{_APOS}s|{_APOS}re)\s+(?:already\s+|now\s+|safely\s+)?with you\b", _I)
# "should be with you by now", "... marked as delivered, so the chairs should be with you": a delivery inferred
# (from an order status, a date) is still said to have happened; "should be with you tomorrow" is an estimate.
DELIVERED_BY_NOW = re.compile(
    r"\b(?:should|must|ought to)\s+(?:already\s+)?(?:be with you|be there|have (?:arrived|been delivered"
    r"|reached you|come))(?:\s+(?:by now|already|now)\b|(?=\s*(?:[.;!]|$)))", _I)
ARRIVAL = re.compile(
    r"\b(?:arrive|arrives|arriving|reach(?:es)? you|gets? to you|be with you|be there|make it to you"
    r"|follow(?!\s+up)|ships?|be shipped|be dispatched|be sent)\b", _I)
SHIPPED = re.compile(
    r"\b(?:shipped|dispatched|sent out|handed (?:over )?to (?:the )?(?:carrier|courier)"
    r"|left (?:our|the) (?:warehouse|facility)|out of (?:our|the) warehouse"
    r"|picked up by (?:the )?(?:carrier|courier))\b", _I)
# A participle before "in transit" makes it the place of an event ("damaged in transit"), not the item's state.
CIRCUMSTANCE = re.compile(r"\b(?:damaged|lost|broken|delayed|held|stuck|scanned|destroyed|crushed|opened|misrouted"
                          r"|held up|(?:a|the|some|any|no)\s+(?:\w+\s+)?(?:delay|hold-up|problem|issue|hiccup"
                          r"|damage))\s+$", _I)
TRANSIT = re.compile(r"\b(?:on (?:its|their|the|his|her) way|in transit|en route|out for delivery|with the carrier"
                     r"|on the truck|in the mail)\b", _I)
OUTSTANDING = re.compile(
    r"\b(?:back[- ]?order(?:ed)?|out of stock|outstanding|still (?:pending|coming|to come|processing)"
    r"|yet to (?:arrive|ship|be (?:delivered|shipped|dispatched))"
    r"|(?:scheduled|due|expected|set|slated|booked) for delivery|(?:awaiting|pending) delivery)\b", _I)
# "won't arrive until Friday" denies the arrival only up to a day: it still says the item has not arrived.
UNTIL = re.compile(r"\s*(?:[\w'’-]+\s+){0,3}?(?:until|till|before)\b", _I)
DELAY = re.compile(
    r"(?:\b(?:reason|cause)\s+(?:for|of|behind)\s+(?:the|this|that|your|any)\s+)?\bdelay(?:s|ed|ing)?\b"
    r"|\brunning (?:[\w-]+ ){0,3}?(?:late|behind)\b"
    r"|\b(?:a|one|two|three|several|few|\d+) (?:days?|weeks?) (?:late|behind)\b"
    rf"|\b(?:is|are|was|were|be|been|arrive|arriving|arrived|came|coming|it{_APOS}s|they{_APOS}re)\s+"
    r"(?:a (?:bit|little|few days|day) )?late\b(?!\s+(?:(?:on|in|that|this|last|the)\s+)?(?:morning|afternoon|evening"
    r"|night|day|mon|tue|wed|thu|fri|sat|sun))"
    r"|\blater than (?:the |your |its |their |it was |originally )?(?:promised|expected|planned|original|scheduled"
    r"|quoted)\b"
    r"|\bheld (?:(?:it|them|things|everything|the \w+) )?up\b|\bholding (?:[\w'’]+ ){0,2}up\b"
    r"|\bbehind schedule\b|\bstuck\b|\bpostponed\b|\boverdue\b|\bpast due\b|\btaking longer\b",
    _I)
# A delay said of a record ("the order page is running behind", "the status is lagging"): the record lags, no
# parcel is said to be late.
RECORD_LAGS = re.compile(r"\b(?:status|page|system|record|account|website|app|order history)\b[^.;:]{0,25}$", _I)
# "your order page says ORD-1 was delivered", "the order says delivered": what the order record shows.
ORDER_RECORD_SAYS = re.compile(r"\b(?:order|order page|order status|status|system|account|website|app|order history)"
                               r"\b[^.;:]{0,30}?\b(?:says?|shows?|reads?|lists?|is marked|marked|has it)\b"
                               r"[^.;:]{0,30}$",
                               _I)
LOST = re.compile(r"\b(?:lost|gone missing|went missing|stolen|misplaced)\b", _I)
CERTAINTY = re.compile(
    r"\b(?:definitely|certainly|surely|for sure|guarantee[ds]?|rest assured|without (?:a|any) doubt|absolutely"
    r"|no doubt|(?:i|we) promise|assure you|no matter what)\b|\b100\s?%", _I)
ACKNOWLEDGE = re.compile(
    rf"\b(?:can(?:not|{_APOS}t| not)|(?:could(?:n{_APOS}t| not)|(?:was|were|am|are)?\s*unable to|not able to))\s+"
    r"(?:\w+\s+)?(?:confirm|say|tell|see|find|locate|check|verify|track|retrieve|access|get|load|give|pull|bring"
    r"|look|reach|open|view|double-check)\b"
    rf"|\bunavailable\b|\bnot available\b|\b(?:isn|aren|wasn|weren){_APOS}t available\b"
    rf"|\b(?:could(?:n{_APOS}t| not)|can(?:not|{_APOS}t| not)) be (?:found|retrieved|located|confirmed|tracked|traced"
    r"|checked|loaded|seen|verified)\b"
    # "neither the cooker nor the bowls can be tracked"
    r"|\bneither\b[^.;:]{0,80}?\b(?:can|could|is|are)\s+(?:be\s+)?(?:found|retrieved|located|confirmed|tracked|traced"
    r"|checked|loaded|seen|verified|available)\b"
    r"|\bnot found\b|\bno (?:\w+ ){0,2}?(?:record|records|tracking|information|info|updates?|details|data|trace"
    r"|reservations?|entry|entries|scans?)\b"
    # "Canada Post's tracking is down", "the lookup is failing": the source itself is out.
    r"|\b(?:tracking|system|lookup|site|service|portal)\b[^.;:]{0,30}?\b(?:is|was|are|went|goes|has been)\s+"
    r"(?:currently\s+|still\s+)?(?:down|offline|failing|erroring)\b|\b(?:lookup|tracking)\s+fail(?:ing|ed|s)\b"
    rf"|\bmissing\b|\b(?:don{_APOS}t|do not) have (?:any |an? )?(?:\w+ )?(?:record|information|info|update|details"
    rf"|tracking|data)\b|\bunknown\b"
    # "isn't loading", "won't load", "isn't coming up", "doesn't pull anything up": the source gives nothing
    rf"|\b(?:isn{_APOS}t|is not|aren{_APOS}t|are not|not|won{_APOS}t|will not|doesn{_APOS}t|does not|didn{_APOS}t"
    r"|did not)\s+(?:currently\s+|still\s+)?(?:loading|load|showing|show(?:ing)? up|working|work|responding|respond"
    r"|coming up|come up|pulling (?:anything |it )?up|pull (?:anything |it )?up)\b"
    r"|\bunclear\b|\bnot sure\b|\bno way to (?:know|tell|confirm)\b|\blookup failed\b|\bdown right now\b"
    # "Canada Post isn't returning any information for it", "we're still trying to locate the reservation"
    rf"|(?:n{_APOS}t|\bnot)\s+(?:\w+\s+){{0,2}}(?:any\s+)?(?:information|info|updates?|data|details|tracking|records?)\b"
    r"|\b(?:trying|working|unable|struggling) to (?:locate|find|track down|trace|retrieve|pull up|load|access)\b"
    r"|\blooking into\b", _I)

# --- what a clause is about ------------------------------------------------------------------------

# A list whose claim is denied: "None of the items - the kettle, the cups - were shipped", "Neither the mower nor ...".
DENIED_SUBJECT = re.compile(r"^\W*(?:(?:and|but|so)\s+)?(?:none|neither|nothing|not one|no one)\b", _I)
# "everything outstanding", "all that's still to come": the items not delivered, not every item.
OUTSTANDING_SET = re.compile(rf"\b(?:everything|anything|all|whatever)\s+"
                             rf"(?:(?:that{_APOS}s|that is|that are|still)\s+)?"
                             r"(?:outstanding|remaining|undelivered|pending|still (?:to come|due|coming|in transit"
                             r"|on (?:its|the) way))\b", _I)
# "Apart from the dish and the cups, everything's with you": the exception said first.
EXCEPT_OPENS = re.compile(r"^\W*(?:apart from|except(?: for)?|other than|aside from|besides|excluding)\b", _I)
# "not everything has arrived", "not all of it is here": some of the order, not each item (a whole-order claim).
NOT_ALL = re.compile(r"\bnot\s+(?:quite\s+|yet\s+)?(?:everything|all|every item|each item)\b"
                     rf"|(?:\bnot|n{_APOS}t)\s+(?:yet\s+)?(?:fully|completely|entirely|wholly|all)\s+(?:been\s+)?"
                     r"(?:delivered|arrived|here|with you|complete)\b", _I)
EACH = re.compile(r"\b(?:both|(?<!at )all|everything|every item|each|neither|none|nothing|either)\b", _I)
WHOLE = re.compile(r"\b(?:your|the|this|whole|entire)\s+(?:whole\s+|entire\s+)?"
                   r"(?:order|package|parcel|shipment|items|purchase)\b"
                   # "to your parcel locker", "in your parcel box": a place, not the order
                   r"(?!\s+(?:locker|box|shop|point|room|cabinet|drop|station|terminal|centre|center)\b)", _I)
# "the last of them on 16 March": a date for one of the group, whichever it is.
ONE_OF_THEM = re.compile(r"\b(?:the (?:last|first|latest|earliest|final)|some|one|most|either)(?: one)?\s+of\s+"
                         r"(?:them|these|those|the items|your items|the parcels)\b", _I)
REST = re.compile(r"\bthe (?:rest|remainder)\b|\b(?:the\s+)?remaining (?:\w+\s+)?(?:items?|parts?|products?|pieces?)\b"
                  r"|\b(?:the|your) other (?:\w+\s+)?(?:item|one|product|piece|thing)s?\b"
                  rf"|\bwhat(?:{_APOS}s| is) left\b|\b(?:everything|anything|all) else\b", _I)
# "..., and the same goes for the tubes", "..., as were two of the tubes": the claim of the clause before, said again
# of other items.
SAME_AS = re.compile(r"^\W*(?:(?:and|but)\s+)?(?:the\s+)?(?:same\s+(?:goes|is true|applies|holds)\s+(?:for|to)"
                     r"|same\s+(?:for|with)|likewise(?:\s+for)?|so\s+(?:is|are|was|were|did|has|have)"
                     r"|as\s+(?:is|are|was|were|did|has|have)(?!\s+(?:not|never|still|yet)\b))\b", _I)
# "..., or the last two tubes, but the trainer itself ...": a contrast opens a claim of its own, so the list tail
# before it belongs to the claim before the tail.
CONTRAST_OPENS = re.compile(r"^\W*(?:but|yet|though|although|whereas|while|however)\b", _I)
# "everything except the sofa": every item but the ones the clause names ("all but one item" names a count, not
# the items left out: PARTIAL).
_HOW_MANY = r"(?:one|two|three|four|five|six|a few|a couple|\d+)\b"
EXCEPT = re.compile(r"\b(?:everything|every item|all(?: (?:the|your|of the|of your))?(?: items)?)"
                    # "everything else except", "everything on ORD-1 except", "everything in your order but"
                    r"(?:\s+else|\s+(?:on|in|of|from)\s+(?:your\s+|the\s+|this\s+)?[\w-]+(?:\s+order)?)?\s+"
                    rf"(?:except(?: for)?|but|apart from|other than|besides|aside from)\b(?!\s+{_HOW_MANY})", _I)
# A clause that names nothing, followed by its consequence for named items: "the courier is late, so your X ...".
CONSEQUENCE = re.compile(rf"^\W*(?:so|and so|which is why|that{_APOS}s why|that is why|meaning|therefore)\b", _I)
# Part of the whole said to have come: "some of your order", "all but one item", "arrived in pieces", "partly".
PARTIAL = re.compile(r"\b(?:part|some|one|half|most|a few)\s+of\s+(?:your|the|this|my|it\b|[A-Z]{2,}-\w)"
                     r"|\bpartially\b|\bpartly\b"
                     rf"|\b(?:all|everything)\s+(?:except(?: for)?|but|apart from|other than|besides|aside from)\s+"
                     rf"{_HOW_MANY}|\bin\s+(?:pieces|parts|stages|bits|instal+ments|(?:two|three|several|separate"
                     r"|different|multiple)\s+(?:parcels|packages|boxes|shipments|deliveries|lots|batches))\b", _I)
STOCK = re.compile(r"back[- ]?order|out of stock", _I)
# A cause that is not on the item's records (wrong_delay_reason): stock, beyond "backordered"/"out of stock" ...
STOCK_CAUSE = re.compile(r"\b(?:stock|inventory|supply) (?:shortage|issue|problem)s?\b|\bshort(?:age)? of stock\b"
                         r"|\bwaiting (?:for|on) (?:new |more )?stock\b|\bnot in stock\b|\bsold out\b", _I)
# ... and the carrier: a carrier, courier, depot or hub named as where or why the item is held up.
CARRIER_CAUSE = (r"\b(?:carrier|courier|shipping|transit|delivery|postal) (?:delays?|issues?|problems?|backlogs?)\b"
                 r"|\b(?:held|stuck|delayed|sitting|waiting|stopped)(?: up)?\s+(?:[\w'’-]+\s+){0,2}?"
                 r"(?:at|in|with|by)\s+(?:the |a |their |our |its )?(?:[\w'’-]+\s+){0,2}?"
                 r"(?:carrier|courier|depot|hub|sorting|facility|customs|transit|{carriers})\b"
                 r"|\b(?:the |your )?(?:carrier|courier|driver|{carriers})(?:{apos}s)? "
                 r"(?:(?:has|have) been |is |was |are |were )(?:delayed|running (?:late|behind)|late|behind|held up)\b")


def carrier_cause(carriers: tuple[str, ...]) -> re.Pattern[str]:
    """CARRIER_CAUSE with the order's own carrier names ("held up with Parcelforce")."""
    names = "|".join(re.escape(c) for c in sorted(carriers, key=len, reverse=True)) or "carrier"
    return re.compile(CARRIER_CAUSE.replace("{carriers}", names).replace("{apos}", _APOS), _I)


# --- payment claims --------------------------------------------------------------------------------

PAYMENT_SUBJECT = re.compile(r"\b(?:payment|paid|card|transfer|charge[ds]?|bank|funds|billing|billed|money|invoice"
                             r"|debited|refund\w*|authori[sz]ation)\b", _I)
# Said of the payment: it went through ...
PAYMENT_OK = re.compile(r"\b(?:went through|gone through|came through|cleared|succeeded|successful"
                        r"|processed|approved|authori[sz]ed|accepted|captured|charged|billed|debited|taken|received"
                        r"|paid|confirmed|in order|fine)\b", _I)
# ... or it did not: the specific statuses first, then a problem of any kind.
PAYMENT_DECLINED = re.compile(r"\b(?:declined|rejected|bounced|insufficient funds|failed|failure|unsuccessful)\b", _I)
# "waiting on payment": the order waits for money it does not have, true of all but a captured or refunded payment.
PAYMENT_AWAITED = re.compile(r"\b(?:waiting (?:for|on)|awaiting)\s+(?:the\s+|your\s+)?payment\b", _I)
PAYMENT_PENDING = re.compile(r"\b(?:pending|processing|awaiting|waiting (?:for|on)|not yet (?:received|cleared)"
                             r"|yet to (?:clear|arrive)|being (?:verified|processed|checked|reviewed))\b", _I)
PAYMENT_REFUNDED = re.compile(r"\brefund(?:ed)?\b", _I)
# "the amount is on hold on your card": held, as an authorization is (and an order whose card was declined).
PAYMENT_HELD = re.compile(r"\b(?:on hold|held|reserved|ring-?fenced)\b", _I)
# "not charged yet", "hasn't been taken": no money taken, true of all but a captured payment.
PAYMENT_TAKEN = re.compile(r"\b(?:charged|captured|taken|debited|billed|collected)\b", _I)
PAYMENT_PROBLEM = re.compile(r"\b(?:problem|issue|trouble|error|unpaid|outstanding"
                             r"|did(?:n['’]t| not) go through)\b", _I)
# A clause with a verb of its own ("the boards are on hold") says something about its items, even with no claim
# cue; one without ("the laptop and", "Jars, spice rack") hands them to the clause that follows.
FINITE_VERB = re.compile(rf"\b(?:is|are|was|were|has|have|had|will|would|won{_APOS}t|can{_APOS}t|cannot|isn{_APOS}t"
                         rf"|aren{_APOS}t|wasn{_APOS}t|weren{_APOS}t|hasn{_APOS}t|haven{_APOS}t)\b", _I)
# Any verb of a clause's own, for telling "the rechargeable one today" (its verb elided: the clause before gives it)
# from "the third reached the terminal this morning".
OWN_VERB = re.compile(rf"\b(?:[a-z]{{3,}}ed|came|went|left|got|made|took|sent|is|are|was|were|be|been|has|have|had|will"
                      rf"|would|should|shall|can|could|may|might|must|arrives?|ships?|comes?|goes?|gets?"
                      rf"|\w+n{_APOS}t|\w+{_APOS}(?:ll|re|ve)|(?:it|that|there|what|here|he|she){_APOS}s)\b", _I)
# A reported status the sentence itself says is not the whole truth ("shows as delivered when it isn't all there").
GAP_ADMITTED = re.compile(r"\b(?:isn['’]t|is not|aren['’]t|are not|wasn['’]t|hasn['’]t all|haven['’]t all)\s+"
                          r"(?:all\s+)?(?:there|here|complete|arrived)\b|\bnot (?:all|everything)\s+"
                          r"(?:is|has|have)?\s*(?:there|arrived|here)\b", _I)
# A pronoun opening a clause that says how many it stands for: "those two", "both of them", "it".
PRONOUN_SIZE = re.compile(r"\W*(?:(?:these|those|the|all|both)\s+(?:two|three|four)\b|both(?:\s+of\s+them)?\b"
                          r"|(?:all\s+)?(?:two|three|four)\s+of\s+them\b|it\b|this one\b|that one\b)", _I)
# "the first two", "the latter": part of the list named before, by its order.
ORDINAL_PART = re.compile(r"\bthe\s+(?:(first|last)\s+(two|three|four|one)|(former|latter))\b"
                          r"(?!\s+(?:of\s+)?\w+\s+of\b)", _I)
PRONOUN = re.compile(r"\b(?:it|its|they|them|their|theirs|these|those|this one|that one)\b", _I)
AUX = re.compile(rf"(?:\b(?:has|have|had|was|were|is|are|got|been|be|being|not|never|already|both|all|just|now|yet"
                 rf"|also|still|finally|will|would|should|shall|can|could|may|might|must|\w+n{_APOS}t|\w+{_APOS}ll"
                  rf"|\w+{_APOS}(?:s|re|ve))\s+)+$", _I)

# --- what a date in a clause is presented as --------------------------------------------------------

PROMISE_CUE = re.compile(r"\b(?:promis\w*|originally|supposed to|meant to|was due|were due|was expected|were expected"
                         r"|quoted|planned|committed|guarantee\w*)\b", _I)
ESTIMATE_BY_PROMISE = re.compile(
    r"\b(?:arrive|arrives|arriving|deliver|be delivered|reach|get (?:there|to you)|be with you|make it|on track"
    r"|in time)\s+(?:[\w'’-]+\s+){0,2}?(?:by|on|before|for|ahead of)\s+(?:the\s+|your\s+|its\s+|their\s+)?"
    r"(?:original(?:ly)?\s+)?promis", _I)
RESTOCK_CUE = re.compile(r"\b(?:restock\w*|new stock|back in stock|more stock|replenish\w*|inventory"
                         r"|(?:expect\w*|due|get\w*|receiv\w*) (?:some |any )?more"
                         r"|(?:warehouse|supplier|manufacturer)(?:['’]s)? (?:[\w'’]+ ){0,2}?(?:expect\w*|due|hop\w*)"
                         r"|stock (?:is |should be )?(?:expected|due|arriv\w*)"
                         # "backordered until the 24th": the day stock comes back, not a delivery
                         r"|(?:back[- ]?order(?:ed)?|out of stock|sold out)\s+(?:until|till|to|through|into))\b", _I)
ESTIMATE_CUE = re.compile(r"\b(?:estimat\w*|expect\w*|eta|due|scheduled|projected|anticipat\w*|on track"
                          # "what did arrive" is past; "home delivery box" is a noun, no estimate
                          r"|(?<!did )arriv(?:e|es|ing)|deliver(?:s|ing)?\b|delivery (?:on|by|date|day)\b"
                          r"|reach(?:es|ing)?|get to you|be with you|should|will"
                           r"|follow|ships?|out for delivery)\b|['’]ll\b", _I)
OTHER_CUE = re.compile(r"\b(?:updat\w*|scan\w*|event|checked|placed|ordered|charged|declined|failed|paid|as of"
                       r"|refund\w*|captured|authori[sz]ed|cancell?ed|processed|created|inspect\w*|held|damaged"
                       r"|record\w*|latest|last(?!\s+(?:one|two|three|four|of|pack|parcel|box|unit|item|piece)s?\b))\b",
                       _I)
# What makes a weekday lie ahead ("due Tuesday", "will arrive Tuesday", "ETA Tuesday"); without one ("went into your
# box on Tuesday") the weekday may be the last one as well as the next.
FUTURE_MARKER = re.compile(r"\b(?:will|shall|should|due|expect\w*|estimat\w*|eta|scheduled|projected|anticipat\w*"
                           r"|on track|arriving|arrives|coming|next|by|until|till|tomorrow)\b|['’]ll\b", _I)
BY_DATE = re.compile(r"\b(?:by|before|no later than)\s+(?:the\s+)?$", _I)
NEAR_WORDS = 6  # a promise or restock cue this many words before a date decides how the date is presented
