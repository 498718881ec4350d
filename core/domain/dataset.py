"""Load and validate a dataset folder: records.json (what the tools serve) and cases.json (expectations).

The two files are loaded separately on purpose: the MCP servers only ever read records.json, so the
expected assessments can never leak into a tool result.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from pydantic_core import ErrorDetails

from core.domain.fields import ASSESSMENT_FIELDS, DEFAULT_ASKS
from core.errors import DatasetError

DEFAULT_DATASET_DIR = Path(__file__).parent / "data" / "default"
RECORDS_FILE = "records.json"
CASES_FILE = "cases.json"

# IDs follow one grammar so that a malformed ID (`ORD-10O4`, `../x`) is refused before any lookup.
ID_PREFIXES = {"order": "ORD", "payment": "PAY", "reservation": "RSV", "tracking": "TRK"}
ID_MAX_LENGTH = 40
_ID_BODY = r"[0-9]{1,12}(?:-[A-Z0-9]{1,8})?"
ID_PATTERNS = {kind: re.compile(rf"^{prefix}-{_ID_BODY}$") for kind, prefix in ID_PREFIXES.items()}
SKU_PATTERN = re.compile(r"^[A-Z0-9][A-Z0-9-]{0,39}$")

DELAY_REASONS = ("stock_shortage", "carrier_delay", "payment_issue", "address_issue", "customs_hold", "other")
EVIDENCE_KINDS = tuple(ID_PREFIXES)
PAYMENT_STATUSES = ("captured", "authorized", "pending", "authorization_failed", "refunded")
PAYMENT_MISSING = "missing"  # paymentStatus when the payment record cannot be retrieved



def id_problem(kind: str, value: object) -> str | None:
    """Say what is wrong with an ID of the given kind, or None when it is well formed."""
    if not isinstance(value, str):
        return f"{kind} ID must be a string"
    if not value:
        return f"{kind} ID is empty"
    if len(value) > ID_MAX_LENGTH:
        return f"{kind} ID is {len(value)} characters long (at most {ID_MAX_LENGTH})"
    if not ID_PATTERNS[kind].match(value):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"{kind} ID {shown!r} is malformed (expected {ID_PREFIXES[kind]}-<digits>[-<suffix>])"
    return None


def _check_id(kind: str) -> BeforeValidator:
    def check(value: Any) -> Any:
        problem = id_problem(kind, value)
        if problem:
            raise ValueError(f"must be a well-formed {kind} ID like {ID_PREFIXES[kind]}-1001")
        return value

    return BeforeValidator(check)


def _positive_int(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError("must be a positive integer")
    return value


def _iso_date(value: Any) -> Any:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError("must be a date written YYYY-MM-DD")
    try:
        date.fromisoformat(value)
    except ValueError:
        raise ValueError("must be a real calendar date (YYYY-MM-DD)") from None
    return value


def _iso_timestamp(value: Any) -> Any:
    if not isinstance(value, str):
        raise ValueError("must be an ISO 8601 timestamp with a UTC offset")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("must be an ISO 8601 timestamp with a UTC offset") from None
    if parsed.tzinfo is None:
        raise ValueError("must carry a UTC offset, e.g. 2026-10-08T12:00:00+00:00")
    return value


def _sku(value: Any) -> Any:
    if not isinstance(value, str) or not SKU_PATTERN.match(value):
        raise ValueError("must be a SKU of capital letters, digits and dashes")
    return value


def _amount(value: Any) -> Any:
    if not isinstance(value, str) or not re.fullmatch(r"\d{1,9}\.\d{2}", value):
        raise ValueError("must be a decimal amount written as a string, e.g. \"129.00\"")
    return value


OrderId = Annotated[str, _check_id("order")]
PaymentId = Annotated[str, _check_id("payment")]
ReservationId = Annotated[str, _check_id("reservation")]
TrackingId = Annotated[str, _check_id("tracking")]
PositiveInt = Annotated[int, BeforeValidator(_positive_int)]
IsoDate = Annotated[str, BeforeValidator(_iso_date)]
Timestamp = Annotated[str, BeforeValidator(_iso_timestamp)]
Sku = Annotated[str, BeforeValidator(_sku)]
Amount = Annotated[str, BeforeValidator(_amount)]
Text = Annotated[str, Field(min_length=1, max_length=500)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class OrderItem(_Record):
    sku: Sku
    name: Text | None = None
    quantity: PositiveInt


def _unique_skus(items: list[OrderItem]) -> list[OrderItem]:
    skus = [item.sku for item in items]
    if len(skus) != len(set(skus)):
        raise ValueError("lists the same SKU twice")
    return items


class Order(_Record):
    orderId: OrderId
    accountId: Text
    status: Text
    promisedDeliveryDate: IsoDate
    updatedAt: Timestamp
    items: Annotated[list[OrderItem], Field(min_length=1), AfterValidator(_unique_skus)]
    paymentId: PaymentId
    reservationIds: list[ReservationId]
    trackingIds: list[TrackingId]


class Payment(_Record):
    paymentId: PaymentId
    orderId: OrderId
    status: Literal[PAYMENT_STATUSES]  # type: ignore[valid-type]
    amount: Amount
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
    failureReason: Text | None
    updatedAt: Timestamp


class Reservation(_Record):
    reservationId: ReservationId
    orderId: OrderId
    sku: Sku
    quantity: PositiveInt
    warehouse: Text
    status: Literal["fulfilled", "reserved", "backordered"]
    expectedRestockDate: IsoDate | None
    updatedAt: Timestamp


class CarrierEvent(_Record):
    code: Literal[
        "label_created", "picked_up", "in_transit", "arrived_facility", "delayed",
        "out_for_delivery", "delivered", "exception",
    ]
    description: Text
    location: Text | None = None
    at: Timestamp


class Tracking(_Record):
    trackingId: TrackingId
    orderId: OrderId
    sku: Sku
    quantity: PositiveInt
    carrier: Text
    availability: Literal["available", "unavailable"]
    status: Literal["label_created", "in_transit", "out_for_delivery", "delivered", "exception"] | None
    latestEvent: CarrierEvent | None
    estimatedDeliveryDate: IsoDate | None
    updatedAt: Timestamp | None

    @model_validator(mode="after")
    def _unavailable_means_unknown(self) -> Tracking:
        if self.availability == "unavailable":
            known = [f for f in ("status", "latestEvent", "estimatedDeliveryDate", "updatedAt")
                     if getattr(self, f) is not None]
            if known:
                raise ValueError(f"an unavailable carrier lookup must leave {', '.join(known)} null")
        elif self.status is None or self.updatedAt is None:
            raise ValueError("an available carrier lookup needs a status and updatedAt")
        return self


class Records(_Record):
    clock: Timestamp
    accountId: Text
    orders: list[Order]
    payments: list[Payment]
    reservations: list[Reservation]
    tracking: list[Tracking]

    @model_validator(mode="after")
    def _ids_are_unique(self) -> Records:
        for field, key in (("orders", "orderId"), ("payments", "paymentId"),
                           ("reservations", "reservationId"), ("tracking", "trackingId")):
            seen: set[str] = set()
            for record in getattr(self, field):
                value = getattr(record, key)
                if value in seen:
                    raise ValueError(f"{field}: {key} {value} appears twice")
                seen.add(value)
        return self


def _unique_strings(values: list[str]) -> list[str]:
    if len(values) != len(set(values)):
        raise ValueError("lists the same value twice")
    return values


def _evidence_ref(value: Any) -> Any:
    if not isinstance(value, str) or ":" not in value:
        raise ValueError("must be kind:ID, e.g. tracking:TRK-1005-A")
    kind, _, ident = value.partition(":")
    if kind not in ID_PREFIXES:
        raise ValueError(f"kind must be one of {', '.join(EVIDENCE_KINDS)}")
    if id_problem(kind, ident):
        raise ValueError(f"{ident!r} is not a well-formed {kind} ID")
    return value


class Assessment(_Record):
    """The expected answer: exactly the fields its case asks (a field left out is not asked)."""

    deliveredSkus: Annotated[list[Sku], AfterValidator(_unique_strings)] | None = None
    outstandingSkus: Annotated[list[Sku], AfterValidator(_unique_strings)] | None = None
    delayReasons: Annotated[list[Literal[DELAY_REASONS]],  # type: ignore[valid-type]
                            AfterValidator(_unique_strings)] | None = None
    deliveryEstimate: IsoDate | None = None
    missingEvidence: Annotated[list[Annotated[str, BeforeValidator(_evidence_ref)]],
                               AfterValidator(_unique_strings)] | None = None
    paymentStatus: Literal[(*PAYMENT_STATUSES, PAYMENT_MISSING)] | None = None  # type: ignore[valid-type]


def _canonical_asks(values: list[str]) -> tuple[str, ...]:
    _unique_strings(values)
    return tuple(sorted(values, key=ASSESSMENT_FIELDS.index))


class Case(_Record):
    caseId: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")]
    orderId: OrderId
    question: Annotated[str, Field(min_length=1, max_length=2000)]
    asks: Annotated[list[Literal[ASSESSMENT_FIELDS]], Field(min_length=1),  # type: ignore[valid-type]
                    AfterValidator(_canonical_asks)] = DEFAULT_ASKS  # type: ignore[assignment]
    expected: Assessment

    @model_validator(mode="after")
    def _expects_what_it_asks(self) -> Case:
        given = self.expected.model_fields_set
        missing = [f for f in self.asks if f not in given]
        if missing:
            raise ValueError(f"expected: lacks {', '.join(missing)}, which the case asks")
        extra = [f for f in ASSESSMENT_FIELDS if f in given and f not in self.asks]
        if extra:
            raise ValueError(f"expected: holds {', '.join(extra)}, which the case does not ask "
                             f"(asks: {', '.join(self.asks)})")
        nulls = [f for f in self.asks if f != "deliveryEstimate" and getattr(self.expected, f) is None]
        if nulls:
            raise ValueError(f"expected: {', '.join(nulls)} must not be null")
        return self

    def expectation(self) -> dict[str, Any]:
        """The expected value of every asked field, as JSON (what a conversation is scored against)."""
        dumped = self.expected.model_dump(mode="json")
        return {name: dumped[name] for name in self.asks}


class Dataset(BaseModel):
    """A validated dataset: its name, folder, content hash, records and cases."""

    model_config = ConfigDict(frozen=True)

    name: str
    folder: Path
    content_hash: str
    records: Records
    cases: list[Case]
    warnings: list[str] = []  # problems that do not stop a run but will make it fail (see case_warnings)

    def case(self, case_id: str) -> Case:
        """Return the case with this ID or raise a DatasetError naming the known ones."""
        for case in self.cases:
            if case.caseId == case_id:
                return case
        known = ", ".join(c.caseId for c in self.cases)
        raise DatasetError(f"no case {case_id!r} in dataset {self.name} (known: {known})")


def _location(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and not part.startswith(("function-", "literal[", "nullable[")):
            out += f".{part}" if out else part
    return out


def _message(error: ErrorDetails) -> str:
    kind = error["type"]
    if kind == "value_error":
        return str(error["ctx"]["error"])
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not a known field"
    if kind == "literal_error":
        return "must be one of " + error["ctx"]["expected"]
    if kind in ("string_type", "str_type"):
        return "must be a string"
    if kind in ("list_type", "tuple_type"):
        return "must be a list"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return "must be an object"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "too_short":
        return "must not be empty"
    if kind == "string_too_long":
        return f"is too long (at most {error['ctx']['max_length']} characters)"
    if kind == "string_pattern_mismatch":
        return f"does not match the pattern {error['ctx']['pattern']}"
    return error["msg"][0].lower() + error["msg"][1:]


def describe_validation_error(file_name: str, err: ValidationError) -> str:
    """Turn pydantic's errors into lines like `records.json: orders[3].items[0].quantity: ...`."""
    lines = []
    for error in err.errors():
        where = _location(error["loc"])
        lines.append(f"{file_name}: {where}: {_message(error)}" if where else f"{file_name}: {_message(error)}")
    # Unions report one error per branch; the same location twice helps nobody.
    return "\n".join(dict.fromkeys(lines))


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(f"{path}: file not found (a dataset folder holds {RECORDS_FILE} and {CASES_FILE})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot be read: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path.name}: line {exc.lineno}, column {exc.colno}: not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise DatasetError(f"{path.name}: nested deeper than any JSON reader follows") from None


def load_records(folder: Path | str = DEFAULT_DATASET_DIR) -> Records:
    """Load and validate records.json alone (what the MCP servers read)."""
    path = Path(folder) / RECORDS_FILE
    raw = _read_json(path)
    try:
        return Records.model_validate(raw)
    except ValidationError as err:
        raise DatasetError(describe_validation_error(RECORDS_FILE, err)) from None


def _check_cases(cases: list[Case], records: Records) -> None:
    order_ids = {o.orderId: o for o in records.orders}
    seen: set[str] = set()
    for index, case in enumerate(cases):
        if case.caseId in seen:
            raise DatasetError(f"{CASES_FILE}: [{index}].caseId: {case.caseId} appears twice")
        seen.add(case.caseId)
        order = order_ids.get(case.orderId)
        if order is None:
            raise DatasetError(f"{CASES_FILE}: [{index}].orderId: order {case.orderId} is not in {RECORDS_FILE}")
        ordered = {item.sku for item in order.items}
        for field in ("deliveredSkus", "outstandingSkus"):
            for sku in getattr(case.expected, field) or []:
                if sku not in ordered:
                    raise DatasetError(
                        f"{CASES_FILE}: [{index}].expected.{field}: {sku} is not on order {case.orderId}"
                    )


def dataset_hash(folder: Path) -> str:
    """A content hash of both files, so a run names exactly the data it was recorded on."""
    digest = hashlib.sha256()
    for name in (RECORDS_FILE, CASES_FILE):
        digest.update(name.encode())
        digest.update((folder / name).read_bytes())
    return "sha256:" + digest.hexdigest()


def load_cases(folder: Path | str, records: Records) -> list[Case]:
    """Load and validate cases.json against the records it refers to."""
    path = Path(folder) / CASES_FILE
    raw = _read_json(path)
    if not isinstance(raw, list):
        raise DatasetError(f"{CASES_FILE}: must be a list of cases")
    cases = []
    for index, item in enumerate(raw):
        try:
            cases.append(Case.model_validate(item))
        except ValidationError as err:
            raise DatasetError(describe_validation_error(CASES_FILE, err).replace(
                f"{CASES_FILE}: ", f"{CASES_FILE}: [{index}].")) from None
    if not cases:
        raise DatasetError(f"{CASES_FILE}: holds no cases")
    _check_cases(cases, records)
    return cases


def case_warnings(cases: list[Case]) -> list[str]:
    """Cases a run can only fail: the model learns the order ID from the question alone."""
    return [f"{CASES_FILE}: [{index}] {case.caseId}: its question does not contain its orderId {case.orderId}, so "
            "no model (nor the scripted policy) can look the order up: every conversation of this case will fail"
            for index, case in enumerate(cases) if case.orderId not in case.question]


def load_dataset(folder: Path | str | None = None) -> Dataset:
    """Load a dataset folder (the packaged default when None); raise DatasetError on bad input."""
    path = Path(folder) if folder is not None else DEFAULT_DATASET_DIR
    if not path.is_dir():
        raise DatasetError(f"{path}: not a dataset folder (expected {RECORDS_FILE} and {CASES_FILE} inside)")
    records = load_records(path)
    cases = load_cases(path, records)
    name = "default" if path.resolve() == DEFAULT_DATASET_DIR.resolve() else path.resolve().name
    return Dataset(name=name, folder=path.resolve(), content_hash=dataset_hash(path),
                   records=records, cases=cases, warnings=case_warnings(cases))
