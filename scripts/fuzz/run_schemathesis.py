"""Runs the Schemathesis CLI (`st`) as released, with one workaround and one documented exception.

Used by scripts/fuzz-api.sh with the venv's Python: `python run_schemathesis.py <st arguments>`.

1. CPython before 3.11.8 (this machine has 3.11.7) raises "SystemError: AST constructor recursion
   depth mismatch" from `ast.parse` when the recursion limit changed further up the stack (CPython
   gh-106905). Hypothesis changes it while it draws, and parses source to describe a lambda for a
   strategy's repr; in the coverage phase that crashed whole operations (seen with 4.32.5, on
   POST /allowed/bulk and /authorized_users). The description is cosmetic: when it cannot be
   computed, Hypothesis's own placeholder is used instead, and the phase runs.

2. Failures that are not the API's, dropped by `filter_failure` (counted as "Filtered" in the summary),
   each for one stated reason; everything else fails the run:
   a. The request Schemathesis sent is not the one it reasoned about. Path parameters pinned in
      schemathesis.toml (proj_id, env_id) replace generated values after generation, so a case
      "negated" only in a pinned parameter goes out valid (and is accepted), and a coverage case
      drawn for a pinned parameter can carry a placeholder body (`0`) while labelled positive.
   b. `POST /allowed` reads `?explain` only when the body has no `explain` of its own: the body
      wins, and test/api/error-precedence.int.test.ts pins that an invalid query is then not even
      read. No schema can tie a query parameter to a body field.
   c. Rules that depend on what is stored, which no schema can state, answered 400 INVALID_INPUT
      (or MISMATCH_*) for schema-valid requests: a derivation through a relation between other
      types, a tuple whose subject type the relation does not take, or whose instances are in
      different tenants (or another tenant than named), an assignment naming a tenant its instance
      is not in; a set rule naming a set of the other kind or of another resource type, a parent
      set of another kind or one that would make a cycle, an attribute that conditions compare, a
      change to a user invite once it is approved (or approving it again) or to its key, a proxy config's new
      secret that does not fit its stored mechanism (or the reverse). The message says which rule;
      a 400 with any other message still fails. Likewise a copy's `as_of` position past the end of
      the log: 422 on `as_of` alone (the copy tests pin 422), as no schema knows how far the log
      reaches; and, as it depends on the clock, an `expires_at` that is not in the future
      (docs/expiring-access.md): 422 on `expires_at` alone.
   d. A 404 about an object the body names (a relation's `subject_resource`, …) after a create:
      `ensure_resource_availability` takes every 404 for the path's object it just created; one
      whose error names none of the request's path values is about something else.
   e. Rules between parts of one request, which no schema can state: a PUT /users/{user_id} body
      whose `key` is not the path's, a role made its own parent (two path parameters), a body whose
      `granted_to.when` and a rule's `when` disagree (a role has one condition). 400 INVALID_INPUT
      with the rule's message, as 2c.
   f. A paging cursor or token the server did not issue: opaque by design, so no schema can say
      which strings are valid; 422 at that field with the message telling to pass `next_cursor`
      back unchanged (on the AuthZEN subject search, AuthZEN's 400 whose message names
      `page.token` and says to pass `page.next_token` back unchanged).
   g. A dry run's edit (POST …/assertions/dry_run, docs/assertions.md): whether the copy's API takes
      it depends on the stored state (as 2c), and whether its path names the environment of the
      request's path is a rule between two parts of the request (as 2e); a path that leaves the
      environment's paths once normalised (`..`) is refused too. 422 at `body.edits.<i>` with the
      message saying which.
"""

import atexit
import re
import sys
from collections import Counter

import schemathesis
from hypothesis.internal import lambda_sources

_describe = lambda_sources._lambda_description


def _lambda_description(f, *args, **kwargs):
    try:
        return _describe(f, *args, **kwargs)
    except SystemError:
        return "lambda: <unknown>"


lambda_sources._lambda_description = _lambda_description


# The values schemathesis.toml pins.
PINNED_PATH = {"proj_id": "default", "env_id": "production"}

# 2c: the messages of the rules that depend on stored state (shared/domain/env/*-decisions.ts).
STATE_RULES = [
    re.compile(r"^Relation '.*' links '.*' to '.*', not '.*' to '.*'$", re.S),
    re.compile(r"^Relation '.*' of resource '.*' takes subjects of type '.*', not '.*'$", re.S),
    re.compile(r"^Subject '.*' is in tenant '.*' but object '.*' is in tenant '.*'; both must be in the same tenant$", re.S),
    re.compile(r"^The tuple's instances are in tenant '.*', not in tenant '.*'$", re.S),
    re.compile(r"^Resource instance '.*' is in tenant '.*', not in tenant '.*'$", re.S),
    # shared/domain/env/abac-decisions.ts: condition sets and set rules name stored sets, roles and resource types.
    re.compile(r"^Condition set '.*' is not a (user|resource) set$", re.S),
    re.compile(r"^Resource set '.*' is a set of '.*', not of '.*' \(permission '.*'\)$", re.S),
    re.compile(r"^Permission '.*' is not an action of resource '.*'$", re.S),
    re.compile(r"^Condition set '.*' cannot be the parent of '.*': a parent is a set of the same type and resource$", re.S),
    re.compile(r"^Condition set '.*' descends from '.*': a set cannot be its own ancestor$", re.S),
    re.compile(r"^Attribute '.*' of '.*' cannot be (deleted|given type '.*'): condition set\(s\) .* compare it$", re.S),
    # shared/domain/env/proxy-config-decisions.ts: an update's secret (or mechanism) against the stored mechanism (or secret).
    re.compile(r"^a (Bearer|Basic|Headers) secret .* \(auth_mechanism '.*', with the stored config's secret or mechanism\)$", re.S),
    # shared/domain/env/invite-decisions.ts: an approved invite no longer changes, and a PATCH's key
    # must be the stored invite's own (keys do not change; docs/permit-compat.md, "User invites").
    re.compile(r"^User invite '.*' was approved: it no longer changes$", re.S),
    re.compile(r"^An invite's key does not change: this invite's is '.*', not '.*'$", re.S),
    re.compile(r"^User invite '.*' was approved already$", re.S),
    # command-service/routes/api-keys.ts: the fuzzing key is the organisation's only admin key.
    re.compile(r"^The organization's last admin API key cannot be deleted; create another first$", re.S),
]


# 2e: rules between parts of one request (command-service/routes/users.ts, roles.ts, shared/domain/env/role-hierarchy.ts).
REQUEST_RULES = [
    re.compile(r"^The body's key '.*' is not the user key of the path \('.*'\)$", re.S),
    re.compile(r"^Role '.*' cannot extend itself$", re.S),
    re.compile(r"^granted_to states no_direct_roles_on_object both true and false; a role has one condition$", re.S),
]

# 2f: command-service/grant-queries/cursor.ts, and its AuthZEN form (command-service/routes/checks/authzen.ts).
FOREIGN_CURSOR = re.compile(r"^Invalid cursor: pass back the next_cursor of the same query unchanged$")
FOREIGN_AUTHZEN_TOKEN = re.compile(r"^page\.token: Invalid token: pass back the page\.next_token of the same search unchanged$")


def _negated_parameters(case):
    data = case.meta.phase.data if case.meta is not None else None
    negated = []
    if data is not None and getattr(data, "parameter", None):
        negated.append((data.parameter_location, data.parameter))
    for mutation in getattr(data, "mutations", None) or ():
        negated.append((mutation.parameter_location, mutation.parameter))
    return negated


def _sent_as_pinned(case):
    """2a: every negated part is a pinned path parameter, and the pinned value is what went out."""
    negated = _negated_parameters(case)
    return bool(negated) and all(
        location is not None
        and location.value == "path"
        and name in PINNED_PATH
        and case.path_parameters.get(name) == PINNED_PATH[name]
        for location, name in negated
    )


def _has_negative_component(case):
    return case.meta is not None and any(info.mode.is_negative for info in case.meta.components.values())


def _json(response):
    try:
        return response.json()
    except Exception:
        return None


def _broken_rule(response, rules):
    body = _json(response)
    if response.status_code != 400 or not isinstance(body, dict) or not str(body.get("error_code", "")).startswith(("INVALID_INPUT", "MISMATCH_")):
        return False
    message = re.sub(r"^Item \d+: ", "", str(body.get("message", "")))
    return any(rule.match(message) for rule in rules)


def _state_rule(response):
    return _broken_rule(response, STATE_RULES)


def _foreign_cursor(response):
    body = _json(response)
    # AuthZEN answers a bad request with 400 and the message as the body (a JSON string).
    if response.status_code == 400 and isinstance(body, str):
        return FOREIGN_AUTHZEN_TOKEN.match(body) is not None
    detail = body.get("detail") if isinstance(body, dict) else None
    return (
        response.status_code == 422
        and isinstance(detail, list)
        and len(detail) == 1
        and isinstance(detail[0], dict)
        and FOREIGN_CURSOR.match(str(detail[0].get("msg", ""))) is not None
    )


# An `as_of` (copy, checks, reads, `since`/`until` of a decision history) must name a moment the log
# has reached: a position past its head or a time in the future is a 422 that depends on the log's
# state and the clock, which no schema can say (command-service/time-travel/time-travel.ts).
AS_OF_FIELDS = {"as_of", "since", "until"}
AS_OF_PAST_THE_LOG = re.compile(
    r"^(the log only reaches position \d+|.* is in the future \(the time now is .*\)|since \(position \d+\) is after until \(position \d+\))$", re.S
)


def _refused_at(response, fields, message, where=("body", "query")):
    """A 422 whose every detail is at one of `fields` (the last part of its `loc`, under `where`) with a message matching `message`."""
    body = _json(response)
    detail = body.get("detail") if isinstance(body, dict) else None
    return (
        response.status_code == 422
        and isinstance(detail, list)
        and len(detail) >= 1
        and all(
            isinstance(d, dict)
            and isinstance(d.get("loc"), list)
            and len(d["loc"]) >= 2
            and d["loc"][0] in where
            and d["loc"][-1] in fields
            and message.match(str(d.get("msg", "")))
            for d in detail
        )
    )


def _as_of_past_the_log(response):
    return _refused_at(response, AS_OF_FIELDS, AS_OF_PAST_THE_LOG)


# command-service/http/expires-at.ts: an end in the past is refused, as the clock says.
EXPIRY_NOT_IN_THE_FUTURE = re.compile(r"^must be in the future \(it is .* now\)$", re.S)


def _expiry_not_in_the_future(response):
    return _refused_at(response, {"expires_at"}, EXPIRY_NOT_IN_THE_FUTURE, where=("body",))


def _about_another_object(case, response):
    body = _json(response)
    if response.status_code != 404 or not isinstance(body, dict):
        return False
    named = [str(value) for value in (body.get("additional_info") or {}).values()]
    path_values = [str(value) for value in (case.path_parameters or {}).values()]
    return bool(named) and not any(value in path_values for value in named)


DRY_RUN_EDIT_REFUSED = re.compile(
    r"^(.* was refused on the scratch copy with 4\d\d: .*|an edit's path names this environment \(.*\), not another|an edit's path is one of this environment's .* paths)$",
    re.S,
)


def _dry_run_edit_refused(case, response):
    body = _json(response)
    detail = body.get("detail") if isinstance(body, dict) else None
    return (
        case.operation.path.endswith("/assertions/dry_run")
        and response.status_code == 422
        and isinstance(detail, list)
        and len(detail) >= 1
        and all(
            isinstance(d, dict)
            and isinstance(d.get("loc"), list)
            and d["loc"][:2] == ["body", "edits"]
            and DRY_RUN_EDIT_REFUSED.match(str(d.get("msg", "")))
            for d in detail
        )
    )


def _reason_to_drop(failure, case, response):
    kind = type(failure).__name__
    if kind == "AcceptedNegativeData":
        if _sent_as_pinned(case):
            return "2a: negated only in a pinned path parameter"
        body_wins = case.operation.path == "/allowed" and isinstance(case.body, dict) and "explain" in case.body
        if body_wins and response.status_code == 200:
            return "2b: POST /allowed, explain in the body"
    if kind == "RejectedPositiveData":
        if _has_negative_component(case):
            return "2a: 'positive' case with a negative part"
        if _state_rule(response) or _as_of_past_the_log(response) or _expiry_not_in_the_future(response):
            return "2c: a rule on stored state or the clock"
        if _broken_rule(response, REQUEST_RULES):
            return "2e: a rule between parts of the request"
        if _foreign_cursor(response):
            return "2f: a cursor the server did not issue"
        if _dry_run_edit_refused(case, response):
            return "2g: a dry run's edit refused on the copy or naming another environment"
    if kind == "EnsureResourceAvailability" and _about_another_object(case, response):
        return "2d: 404 about an object the body names"
    return None


dropped = Counter()


@schemathesis.hook
def filter_failure(context, failure, case, response):
    reason = _reason_to_drop(failure, case, response)
    if reason is not None:
        dropped[f"{reason} ({type(failure).__name__}, {case.operation.label})"] += 1
    return reason is None


@atexit.register
def _report_dropped():
    if dropped:
        print("Failures dropped by scripts/fuzz/run_schemathesis.py (see its docstring for why):", file=sys.stderr)
        for reason, count in sorted(dropped.items()):
            print(f"  {count:4d}  {reason}", file=sys.stderr)


from schemathesis.cli import schemathesis as cli  # noqa: E402

if __name__ == "__main__":
    sys.argv[0] = re.sub(r"(-script\.pyw|\.exe)?$", "", sys.argv[0])
    sys.exit(cli())
