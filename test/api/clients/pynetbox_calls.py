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
    scenario = {"crud": crud, "pages": pages, "bulk": bulk, "errors": errors, "service": service}[sys.argv[1]]
    print(json.dumps(scenario()))
