"""The records API driven by pynetbox, as a network team's script would: one scenario per run.

Usage: pynetbox_calls.py SCENARIO, with AIOPS_URL (the service's address), AIOPS_TOKEN (a
superuser's key) and AIOPS_WRITER_TOKEN (a key with every record permission but not superuser) in
the environment. Each scenario checks what it sees with assert (exit 1 and a traceback when one
fails) and prints one JSON line of what it observed, for the test that runs it.
"""

import json
import os
import sys

import pynetbox

URL = os.environ["AIOPS_URL"]
nb = pynetbox.api(URL, token=os.environ["AIOPS_TOKEN"])
writer = pynetbox.api(URL, token=os.environ["AIOPS_WRITER_TOKEN"])
models = nb.plugins.ai_ops.llm_models
secrets = nb.extras.secrets


def failure(call):
    """The pynetbox.RequestError a call raises: its status and the API's JSON answer."""
    try:
        call()
    except pynetbox.RequestError as error:
        return error.req.status_code, json.loads(error.error)
    raise AssertionError("the call was expected to fail")


def env_secret(name, variable="ALLOWED_VAR"):
    return {"name": name, "provider": "environment-variable", "parameters": {"variable": variable}}


def crud():
    """The calls of a first script: create, read by id and by name, save, list, filter, count, delete."""
    created = models.create(name="pynetbox-model", provider="openai", description="made by pynetbox")
    by_id = models.get(created.id)
    assert by_id.name == "pynetbox-model" and by_id.provider == "openai"
    by_id.description = "saved by pynetbox"
    assert by_id.save() is True
    by_name = models.get(name="pynetbox-model")
    assert by_name.id == created.id and by_name.description == "saved by pynetbox"
    models.create(name="pynetbox-other", provider="anthropic")
    listed = [model.name for model in models.all()]
    assert listed == ["pynetbox-model", "pynetbox-other"], listed
    filtered = [model.name for model in models.filter(provider="anthropic")]
    assert filtered == ["pynetbox-other"], filtered
    assert [model.name for model in models.filter("saved by")] == ["pynetbox-model"]
    assert [model.name for model in models.filter(is_default=False, name="pynetbox-other")] == ["pynetbox-other"]
    assert models.count() == 2
    assert by_name.delete() is True
    assert models.get(created.id) is None
    assert models.get(name="pynetbox-model") is None
    return {"listed": listed, "filtered": filtered}


def every_kind():
    """List, read, create, update and delete each record kind through pynetbox's Records, which find
    their endpoint and details from the record's own `url` (statuses are fixed: listed and read;
    tokens are created and revoked, never changed)."""
    servers = nb.plugins.ai_ops.mcp_servers
    # An MCP server's address is written as `url`, as the original app's clients do, and read as `server_url`.
    server = servers.create(name="pynetbox-server", url="http://127.0.0.1:9/", description="made by pynetbox")
    assert server.server_url == "http://127.0.0.1:9/", dict(server)
    assert server.url.endswith(f"/api/plugins/ai-ops/mcp-servers/{server.id}/"), server.url
    read = servers.get(server.id)
    assert read.status.name == "Unknown" and read.server_url == "http://127.0.0.1:9/"
    read.server_url = "http://127.0.0.1:10/"
    read.status = "Maintenance"
    assert read.save() is True
    assert read.update({"description": "updated by pynetbox"}) is True
    by_name = servers.get(name="pynetbox-server")
    assert (by_name.server_url, by_name.status.name, by_name.description) == ("http://127.0.0.1:10/", "Maintenance", "updated by pynetbox")
    assert [one.name for one in servers.all()] == ["pynetbox-server"]
    assert [one.name for one in servers.filter(q="127.0.0.1:10")] == ["pynetbox-server"]
    brief = next(iter(servers.filter(brief=True, name="pynetbox-server")))
    assert brief.server_url == "http://127.0.0.1:10/"
    assert by_name.delete() is True and servers.get(server.id) is None

    model = models.create(name="pynetbox-every", provider="ollama")
    assert model.url.endswith(f"/llm-models/{model.id}/") and model.full_details() is True
    model.temperature = 0.2
    assert model.save() is True and models.get(model.id).temperature == 0.2
    assert "pynetbox-every" in [one.name for one in models.all()]
    assert model.delete() is True and models.get(model.id) is None

    secret = secrets.create(env_secret("pynetbox-secret"))
    assert secrets.get(secret.id).full_details() is True
    assert secret.update({"description": "read from the environment"}) is True
    assert secrets.get(name="pynetbox-secret").description == "read from the environment"
    assert "pynetbox-secret" in [one.name for one in secrets.all()]
    assert secret.delete() is True and secrets.get(secret.id) is None

    statuses = [one.name for one in nb.extras.statuses.all()]
    healthy = nb.extras.statuses.get(name="Healthy")
    assert nb.extras.statuses.get(healthy.id).full_details() is True

    tokens = nb.users.tokens
    token = tokens.create(user="pynetbox-user", permissions=["ai_ops.view_llmmodel"], description="made by pynetbox")
    assert len(token.key) > 20 and token.url.endswith(f"/api/users/tokens/{token.id}/")
    assert tokens.get(token.id).permissions == ["ai_ops.view_llmmodel"]
    assert "pynetbox-user" in [one.user for one in tokens.all()]
    assert tokens.get(token.id).delete() is True and tokens.get(token.id) is None
    return {"statuses": sorted(statuses)}


def pages():
    """Pagination through `next` links: limit=0 past MAX_PAGE_SIZE, and a page size of the script's own."""
    secrets.create([env_secret(f"page-{i:03d}") for i in range(60)])
    secrets.create([env_secret(f"page-{i:03d}") for i in range(60, 75)])
    expected = [f"page-{i:03d}" for i in range(75)]
    # limit=0: a page of MAX_PAGE_SIZE (60), then the rest through the next link.
    every = [secret.name for secret in secrets.all() if secret.name.startswith("page-")]
    assert every == expected, every
    # A page size of the script's own: four pages, walked through their next links.
    assert [secret.name for secret in secrets.filter(q="page-", limit=20)] == expected
    # With an offset, only the page asked for.
    assert [secret.name for secret in secrets.filter(q="page-", limit=20, offset=40)] == expected[40:60]
    assert len(secrets.filter(q="page-")) == 75
    return {"count": len(every)}


def bulk():
    """Bulk create, update (a list of dicts, and a RecordSet's update) and delete of 60 records."""
    created = models.create([{"name": f"bulk-{i:02d}", "temperature": 0.5} for i in range(60)])
    assert [model.name for model in created] == [f"bulk-{i:02d}" for i in range(60)]
    updated = models.update([{"id": model.id, "description": f"updated {model.name}"} for model in created])
    assert len(updated) == 60 and updated[59].description == "updated bulk-59"
    assert models.filter(q="bulk-").update(temperature=1.5) is not None
    assert {model.temperature for model in models.filter(q="bulk-")} == {1.5}
    saved = list(models.filter(q="bulk-"))
    for model in saved:
        model.system_prompt = "You help network engineers."
    assert len(models.update(saved)) == 60
    assert {model.system_prompt for model in models.filter(q="bulk-")} == {"You help network engineers."}
    assert models.delete(list(models.filter(q="bulk-"))[:30]) is True
    assert models.count(q="bulk-") == 30
    assert models.filter(q="bulk-").delete() is True
    assert models.count(q="bulk-") == 0
    return {"created": len(created), "updated": len(updated)}


def errors():
    """Refusals read through pynetbox.RequestError, and a refused bulk write that changes nothing."""
    secrets.create(env_secret("taken"))
    status, body = failure(lambda: secrets.create(env_secret("taken")))
    assert status == 400 and body == {"name": ["secret with this name already exists: 'taken'."]}, body
    status, body = failure(lambda: secrets.create([env_secret("fresh"), env_secret("taken")]))
    assert status == 400 and body == [{}, {"name": ["secret with this name already exists: 'taken'."]}], body
    assert secrets.get(name="fresh") is None
    status, alone = failure(lambda: writer.extras.secrets.create(env_secret("reads-redis", "REDIS_URL")))
    assert status == 403, alone
    status, body = failure(lambda: writer.extras.secrets.create([env_secret("allowed"), env_secret("reads-redis", "REDIS_URL")]))
    assert status == 403 and body == alone, body
    assert secrets.get(name="allowed") is None
    trusted = models.create(name="trusted-model", provider="openai", hosted_endpoint="http://127.0.0.1:9/v1")
    own = writer.plugins.ai_ops.llm_models.create(name="own-model")
    status, body = failure(lambda: writer.plugins.ai_ops.llm_models.delete([own, trusted]))
    assert status == 403, body
    assert models.get(own.id) is not None and models.get(trusted.id) is not None
    status, body = failure(lambda: models.create(name="hot", temperature=3))
    assert status == 400 and body == {"temperature": ["Ensure this value is less than or equal to 2."]}, body
    return {"forbidden": alone["detail"]}


def service():
    """The calls around the records: version, status, choices (OPTIONS), brief records and the API root."""
    assert nb.version == "2.0", nb.version
    status = nb.status()
    assert status["api-version"] == "2.0" and status["redis"] == "ok", status
    choices = models.choices()
    assert [choice["value"] for choice in choices["provider"]][:2] == ["ollama", "openai"], choices
    models.create(name="brief-model", provider="huggingface")
    brief = next(iter(models.filter(brief=True, name="brief-model")))
    assert set(dict(brief)) == {"id", "url", "display", "name"}, dict(brief)
    # A brief record reads the rest of itself from its url when asked for more.
    assert brief.provider == "huggingface"
    root = nb.http_session.get(f"{URL}/api/").json()
    assert set(root) == {"docs", "extras", "plugins", "status", "users"}, root
    return {"status": status, "choices": sorted(choices)}


if __name__ == "__main__":
    scenario = {"crud": crud, "every_kind": every_kind, "pages": pages, "bulk": bulk, "errors": errors, "service": service}[sys.argv[1]]
    print(json.dumps(scenario()))
