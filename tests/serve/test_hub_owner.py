"""Who owns a kernel behind JupyterHub (``dpviz serve --hub-service``): the hub user, not the browser's cookie
(:func:`dpviz.serve.guards._client_token`)."""

from __future__ import annotations

import hashlib
import hmac
import types

from dpviz.serve.guards import CLIENT_COOKIE, _client_token

KEY = b"k" * 32


def _handler(settings: dict, user=None, cookie: str | None = None):
    cookies = {CLIENT_COOKIE: cookie} if cookie else {}
    return types.SimpleNamespace(settings=settings, current_user=user, get_cookie=cookies.get)


def _hub_user(name: str, kind: str = "user"):
    return types.SimpleNamespace(hub_user={"name": name, "kind": kind})


def test_without_the_hub_the_browsers_cookie_owns_and_a_malformed_one_owns_nothing():
    assert _client_token(_handler({}, cookie="a" * 32)) == "a" * 32
    assert _client_token(_handler({}, cookie="a" * 8)) is None
    assert _client_token(_handler({}, cookie="<script>" * 4)) is None


def test_behind_the_hub_the_user_owns_whatever_the_cookie_says():
    settings = {"dpviz_hub_owner_key": KEY}
    expected = hmac.new(KEY, b"ada", hashlib.sha256).hexdigest()[:32]
    assert _client_token(_handler(settings, _hub_user("ada"), cookie="b" * 32)) == expected
    assert _client_token(_handler(settings, _hub_user("ada"))) == expected  # another browser: the same owner
    assert _client_token(_handler(settings, _hub_user("bo"))) != expected
    # the owner id is alphanumeric and of the cookie's length, as every owner check expects
    assert expected.isalnum() and len(expected) == 32


def test_behind_the_hub_no_user_a_service_or_a_nameless_model_owns_nothing():
    settings = {"dpviz_hub_owner_key": KEY}
    assert _client_token(_handler(settings, None, cookie="a" * 32)) is None
    assert _client_token(_handler(settings, _hub_user("svc", kind="service"))) is None
    assert _client_token(_handler(settings, _hub_user(""))) is None
    assert _client_token(_handler(settings, types.SimpleNamespace(hub_user=None))) is None
