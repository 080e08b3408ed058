#!/usr/bin/env python3
"""A test in Python against `telco mock`, over HTTP alone: the standard
library and nothing else. Run it with the variables `telco mock --env`
prints (TELCO_BASE_URL, TELCO_ACCOUNT_SID, TELCO_TOKEN, TELCO_PROPERTY_SID).
"""
import base64
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime

BASE = os.environ["TELCO_BASE_URL"]
SID = os.environ["TELCO_ACCOUNT_SID"]
TOKEN = os.environ["TELCO_TOKEN"]
PROJECT = os.environ["TELCO_PROPERTY_SID"]
NUMBER = "+61299990000"  # the number telco mock gives the project


def call(method, path, body=None, token=TOKEN):
    """One request to the mock; returns the status and the JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method)
    basic = base64.b64encode(f"{SID}:{token}".encode()).decode()
    req.add_header("Authorization", "Basic " + basic)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            status, raw = resp.status, resp.read()
    except urllib.error.HTTPError as err:  # 4xx and 5xx come here
        status, raw = err.code, err.read()
    return status, json.loads(raw) if raw else None


def admin(method, endpoint, body=None, **query):
    """One request to the admin API, /__telcotest/ENDPOINT?QUERY."""
    path = "/__telcotest/" + endpoint
    if query:
        path += "?" + urllib.parse.urlencode(query)
    status, answer = call(method, path, body)
    assert 200 <= status < 300, (method, path, status, answer)
    return answer


def fake_now():
    """The fake's clock: RFC 3339 in UTC, with milliseconds."""
    return datetime.fromisoformat(admin("GET", "clock")["now"].replace("Z", "+00:00"))


def message(external_id):
    """The one message sent with this ExternalId."""
    found = admin("GET", "messages", external_id=external_id)["messages"]
    assert len(found) == 1, found
    return found[0]


# Wrong credentials are refused.
status, answer = call("GET", "/__telcotest/messages", token="wrong")
assert status == 401 and "error" in answer, (status, answer)

# What the admin API offers, and a clean fake for this test.
endpoints = admin("GET", "")["endpoints"]
assert {"method": "POST", "path": "/__telcotest/reset"} in [
    {"method": e["method"], "path": e["path"]} for e in endpoints]
admin("POST", "reset")

# A message scheduled 30 minutes ahead goes out when the clock has moved
# 30 minutes (it is Submitted 250 ms after its schedule, then Delivered).
schedule = int(fake_now().timestamp()) + 30 * 60
status, answer = call("POST", f"/v2/Properties/{PROJECT}/Messages", {
    "To": "+61400000001", "Text": "In half an hour", "ExternalId": "py-later",
    "Schedule": schedule})
assert status == 200, answer
assert message("py-later")["Status"] == "Processing"
admin("POST", "clock", {"advance_ms": 29 * 60 * 1000})
assert message("py-later")["Status"] == "Processing"
admin("POST", "clock", {"advance_ms": 61 * 1000})
assert message("py-later")["Status"] == "Delivered"

# An SMS received on the project's number (its webhooks fire as configured).
received = admin("POST", "inbound", {"property_sid": PROJECT, "from": "+61400000002",
                                     "to": NUMBER, "text": "STOP"})
assert received["Direction"] == "Receive" and received["Status"] == "Received"
inbox = admin("GET", "messages", property_sid=PROJECT, direction="Receive")["messages"]
assert [m["Text"] for m in inbox] == ["STOP"], inbox

# Messages to a number fail, as undeliverable.
admin("POST", "message-failures", {"to": "+61400000003"})
status, answer = call("POST", f"/v2/Properties/{PROJECT}/Messages", {
    "To": "+61400000003", "Text": "Will fail", "ExternalId": "py-fails"})
assert status == 200, answer
admin("POST", "clock", {"advance_ms": 1000})
failed = message("py-fails")
assert failed["Status"] == "Failed" and failed["ErrorCode"] == "UNDELIVERABLE", failed

# A porting request moves on, as when the carriers report progress.
status, answer = call("POST", f"/v2/Properties/{PROJECT}/Porting", {
    "AuthorisedContactName": "Olive Ops", "AuthorisedContactEmail": "ops@example.com",
    "DaytimeContactNumber": "+61299999999", "CurrentCarrier": "Optus",
    "CurrentCarrierAccountNo": "ACC-1", "PreferredPortSchedule": "ASAP"})
assert status == 200, answer
porting_no = answer["PortingRequest"]["PortingNo"]
moved = admin("POST", "porting-status", {"porting_no": porting_no, "status": "Completed"})
assert moved["Status"] == "Completed", moved

# A fault: the next read of the project answers 503 with Retry-After.
admin("POST", "faults", {"op": "Properties.Get", "kind": "status", "status": 503,
                         "retry_after": 2})
status, answer = call("GET", f"/v2/Properties/{PROJECT}")
assert status == 503, (status, answer)

# Count what reached the fake: two sends, the porting request, the read.
requests = admin("GET", "requests")
assert requests["total"] == 4, requests
assert [r["op"] for r in requests["requests"]] == [
    "Messages.Send", "Messages.Send", "Porting.Submit", "Properties.Get"], requests
assert [r["status"] for r in requests["requests"]] == [200, 200, 200, 503], requests

# Back to how the mock started, for the next test.
cleared = admin("POST", "reset")["cleared"]
assert cleared["messages"] == 3 and cleared["requests"] == 4, cleared
assert admin("GET", "messages")["messages"] == []
assert admin("GET", "requests")["total"] == 0
print("mock_admin.py: every check passed")
