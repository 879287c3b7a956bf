/**
 * Generated from src/api/openapi.yaml by `npm run generate:types`: do not edit. A test fails when this
 * file and the document disagree.
 */

export type Schemas = components["schemas"];
export type ResponseBody<Operation extends keyof operations, Status extends keyof operations[Operation]["responses"]> = operations[Operation]["responses"][Status] extends {
    content: {
        "application/json": infer Body;
    };
} ? Body : never;
export type RequestBody<Operation extends keyof operations> = operations[Operation] extends {
    requestBody?: {
        content: {
            "application/json": infer Body;
        };
    };
} ? Body : never;
export type Page<Item> = Omit<Schemas["Page"], "results"> & {
    results: Item[];
};
export interface paths {
    "/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness and readiness
         * @description Answers 200 when the service can reach Redis, 503 otherwise. No authentication; used by load balancers.
         */
        get: operations["status_retrieve"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description HTTP latency histograms, queue depth per queue, job durations and failures, provider latency and errors, MCP server health and search latency, in the Prometheus text format. No authentication, like /status: expose it to your monitoring network only.
         */
        get: operations["metrics_retrieve"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/docs/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI document
         * @description The document that validates every request, as JSON (`?format=openapi`, or any request that does not prefer HTML). A browser asking for HTML without `format` gets the browsable documentation page instead (no token needed to load it; it signs in with one).
         */
        get: operations["docs_openapi_retrieve"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/status/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Versions, workers and Redis
         * @description As Nautobot's status: this service's version, the API's, Node.js's and Redis's, the workers each queue has now, and whether Redis takes writes (as `/status` says it). Any valid token.
         */
        get: operations["api_status_retrieve"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/extras/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The extras app's endpoints */
        get: operations["extras_root"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The plugins' roots */
        get: operations["plugins_root"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/ai-ops/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This service's own endpoints */
        get: operations["ai_ops_root"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The users app's endpoints */
        get: operations["users_root"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/ai-ops/llm-models/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List LLM models
         * @description LLM models ordered by name, the default model first.
         */
        get: operations["llm_models_list"];
        /**
         * Replace LLM models in bulk
         * @description A list of `{id, ...fields}`, each replaced as by a PUT on its record, with the same rules; all or nothing: if one is refused, none is written. At most MAX_PAGE_SIZE items.
         */
        put: operations["llm_models_bulk_update"];
        /**
         * Create an LLM model
         * @description Making it the default clears the flag on the previous default in the same atomic step.
         */
        post: operations["llm_models_create"];
        /**
         * Delete LLM models in bulk
         * @description A list of `{"id": ...}`, each deleted as by a DELETE on its record, with the same rules; all or nothing. At most MAX_PAGE_SIZE items.
         */
        delete: operations["llm_models_bulk_destroy"];
        /**
         * Describe LLM models
         * @description The fields of a new record (POST), when this token may create one.
         */
        options: operations["llm_models_options"];
        head?: never;
        /**
         * Change some fields of LLM models in bulk
         * @description A list of `{id, ...fields}`, each changed as by a PATCH on its record, with the same rules; all or nothing. At most MAX_PAGE_SIZE items.
         */
        patch: operations["llm_models_bulk_partial_update"];
        trace?: never;
    };
    "/api/plugins/ai-ops/llm-models/{id}/": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        /** Get an LLM model */
        get: operations["llm_models_retrieve"];
        /**
         * Replace an LLM model
         * @description Fields left out take their defaults.
         */
        put: operations["llm_models_update"];
        post?: never;
        /** Delete an LLM model */
        delete: operations["llm_models_destroy"];
        /**
         * Describe an LLM model
         * @description The fields of a replacement (PUT), when this token may change the record.
         */
        options: operations["llm_models_record_options"];
        head?: never;
        /** Change some fields of an LLM model */
        patch: operations["llm_models_partial_update"];
        trace?: never;
    };
    "/api/plugins/ai-ops/mcp-servers/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List MCP servers */
        get: operations["mcp_servers_list"];
        /**
         * Replace MCP servers in bulk
         * @description A list of `{id, ...fields}`, each replaced as by a PUT on its record, with the same rules; all or nothing: if one is refused, none is written. At most MAX_PAGE_SIZE items.
         */
        put: operations["mcp_servers_bulk_update"];
        /**
         * Register an MCP server
         * @description New servers start with status Unknown unless one is given.
         */
        post: operations["mcp_servers_create"];
        /**
         * Delete MCP servers in bulk
         * @description A list of `{"id": ...}`, each deleted as by a DELETE on its record, with the same rules; all or nothing. At most MAX_PAGE_SIZE items.
         */
        delete: operations["mcp_servers_bulk_destroy"];
        /**
         * Describe MCP servers
         * @description The fields of a new record (POST), when this token may create one.
         */
        options: operations["mcp_servers_options"];
        head?: never;
        /**
         * Change some fields of MCP servers in bulk
         * @description A list of `{id, ...fields}`, each changed as by a PATCH on its record, with the same rules; all or nothing. At most MAX_PAGE_SIZE items.
         */
        patch: operations["mcp_servers_bulk_partial_update"];
        trace?: never;
    };
    "/api/plugins/ai-ops/mcp-servers/{id}/": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        /** Get an MCP server */
        get: operations["mcp_servers_retrieve"];
        /**
         * Replace an MCP server
         * @description Fields left out take their defaults; health fields are kept.
         */
        put: operations["mcp_servers_update"];
        post?: never;
        /** Delete an MCP server */
        delete: operations["mcp_servers_destroy"];
        /**
         * Describe an MCP server
         * @description The fields of a replacement (PUT), when this token may change the record.
         */
        options: operations["mcp_servers_record_options"];
        head?: never;
        /** Change some fields of an MCP server */
        patch: operations["mcp_servers_partial_update"];
        trace?: never;
    };
    "/api/plugins/ai-ops/mcp-servers/{id}/health-check/": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check an MCP server's health now
         * @description Runs one check now on a worker (http with a `health_check` path: GET `url + health_check`, any 2xx passes; http without one, and stdio: the protocol, an MCP `initialize` then `ping`, a stdio server started for it), within HEALTH_TIMEOUT_MS. The result is stored on the record (last_checked, last_error, latency_ms) and counts towards the HEALTH_FALL and HEALTH_RISE thresholds like a scheduled check; `status` is the server's status after it. A server in Maintenance is checked and its result stored, but its status stays. Every process re-reads the server's tool list afterwards. 503 when no worker finished the check in time.
         */
        post: operations["mcp_servers_health_check"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/ai-ops/mcp-servers/{id}/connect/": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Connect your own account to an OAuth MCP server
         * @description For a server with `auth` oauth and `oauth_grant` authorization_code: discovers its authorization server (protected resource metadata from the server's challenge, then the authorization server's metadata), registers this service as a client when the record names none, and answers the URL where the caller signs in (PKCE, resource indicator, the scopes the server asks for). The sign-in comes back to `/api/plugins/ai-ops/mcp-oauth/callback/`, which stores the caller's tokens sealed; until then any earlier connection stays. 409 when the server does not use per-user OAuth, or when the service has no PUBLIC_URL or PLATFORM_TOKEN_KEY; 502 when discovery or registration fails (an address the outbound policy refuses included).
         */
        post: operations["mcp_servers_connect"];
        /**
         * Disconnect your account from an OAuth MCP server
         * @description Forgets the caller's tokens for the server (the next turn asks them to connect again). 409 when the service has no PUBLIC_URL or PLATFORM_TOKEN_KEY (OAuth MCP servers are not enabled).
         */
        delete: operations["mcp_servers_disconnect"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/ai-ops/mcp-oauth/callback/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where an authorization server sends a user back after signing in
         * @description Takes the `state` the connect step made (single use, bound to the user, the server and the PKCE verifier, valid MCP_OAUTH_STATE_TTL_S) and exchanges `code` for that user's tokens. No session or token is needed: the state says who. Answers a short HTML page saying whether the account is connected; 400 for an unknown, used or expired state.
         */
        get: operations["mcp_oauth_callback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/ai-ops/mcp-oauth/client-metadata/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The service's OAuth client ID metadata document
         * @description What the service is as an OAuth client of MCP servers' authorization servers (SEP-991, client ID metadata documents): its `client_id` is this document's own URL (PUBLIC_URL + this path, or MCP_OAUTH_CLIENT_METADATA_URL), which the service uses instead of registering itself with authorization servers that advertise `client_id_metadata_document_supported`. A public client (PKCE, no secret) whose one redirect URI is the service's callback. No session or token is needed: authorization servers fetch it. Cacheable for an hour. 404 when the service has no https PUBLIC_URL (or no PLATFORM_TOKEN_KEY): it uses dynamic registration only.
         */
        get: operations["mcp_oauth_client_metadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/extras/statuses/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List statuses
         * @description Healthy, Unhealthy, Unknown and Maintenance, seeded at start-up.
         */
        get: operations["statuses_list"];
        put?: never;
        post?: never;
        delete?: never;
        /**
         * Describe statuses
         * @description Statuses are read-only, so no write is described.
         */
        options: operations["statuses_options"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/extras/statuses/{id}/": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        /** Get a status */
        get: operations["statuses_retrieve"];
        put?: never;
        post?: never;
        delete?: never;
        /**
         * Describe a status
         * @description Statuses are read-only, so no write is described.
         */
        options: operations["statuses_record_options"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/extras/secrets/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List secrets
         * @description Where each secret's value lives. Values are never returned.
         */
        get: operations["secrets_list"];
        /**
         * Replace secrets in bulk
         * @description A list of `{id, ...fields}`, each replaced as by a PUT on its record, with the same rules; all or nothing: if one is refused, none is written. At most MAX_PAGE_SIZE items.
         */
        put: operations["secrets_bulk_update"];
        /** Create a secret */
        post: operations["secrets_create"];
        /**
         * Delete secrets in bulk
         * @description A list of `{"id": ...}`, each deleted as by a DELETE on its record, with the same rules; all or nothing. At most MAX_PAGE_SIZE items.
         */
        delete: operations["secrets_bulk_destroy"];
        /**
         * Describe secrets
         * @description The fields of a new record (POST), when this token may create one.
         */
        options: operations["secrets_options"];
        head?: never;
        /**
         * Change some fields of secrets in bulk
         * @description A list of `{id, ...fields}`, each changed as by a PATCH on its record, with the same rules; all or nothing. At most MAX_PAGE_SIZE items.
         */
        patch: operations["secrets_bulk_partial_update"];
        trace?: never;
    };
    "/api/extras/secrets/{id}/": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        /** Get a secret */
        get: operations["secrets_retrieve"];
        /** Replace a secret */
        put: operations["secrets_update"];
        post?: never;
        /** Delete a secret */
        delete: operations["secrets_destroy"];
        /**
         * Describe a secret
         * @description The fields of a replacement (PUT), when this token may change the record.
         */
        options: operations["secrets_record_options"];
        head?: never;
        /** Change some fields of a secret */
        patch: operations["secrets_partial_update"];
        trace?: never;
    };
    "/api/users/tokens/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API tokens
         * @description Every token with its user, the last four characters of its key, access, expiry and permissions, oldest first. Keys are never shown again after creation. Superusers only.
         */
        get: operations["users_tokens_list"];
        put?: never;
        /**
         * Create an API token
         * @description Creates the user if new and a token for them. The answer carries the key: the only time it is shown (only its hash is kept). The same service as `aiops token create`. Superusers only.
         */
        post: operations["users_tokens_create"];
        delete?: never;
        /**
         * Describe API tokens
         * @description The fields of a new record (POST), when this token may create one.
         */
        options: operations["users_tokens_options"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/tokens/me/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling token
         * @description The token of the request: its user, whether it is a superuser's, its permissions and whether it may write, so a client offers only what the token may do. Any valid token.
         */
        get: operations["users_tokens_me"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/tokens/{id}/": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        /**
         * Get an API token
         * @description The token's user, access, expiry and permissions, never its key. Superusers only.
         */
        get: operations["users_tokens_retrieve"];
        put?: never;
        post?: never;
        /**
         * Revoke an API token
         * @description Ends the token at once on every API instance. Superusers only.
         */
        delete: operations["users_tokens_destroy"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plugins/ai-ops/api/chat/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Ask the chat agent
         * @description Queues one chat turn and waits for it (up to CHAT_WAIT_S). With `Prefer: respond-async`, when the wait runs out, or when the turn pauses for approval of a proposed call, answers 202 with the job to poll or stream. The session is created on first use and belongs to the token's user. `Idempotency-Key` makes a retried request return the same turn instead of asking again.
         */
        post: operations["chat_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plugins/ai-ops/api/chat/jobs/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's chat turns that wait for their decisions
         * @description Every turn of the caller that waits for their approval of proposed calls (`awaiting_approval`), the latest first, so that they can be decided from any page or device, not only from the one that asked. `session_id` keeps those of one session.
         */
        get: operations["chat_jobs_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plugins/ai-ops/api/chat/jobs/{job_id}/": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["job_id"];
            };
            cookie?: never;
        };
        /**
         * A chat turn's status
         * @description The caller's own jobs only; finished jobs are kept for an hour (failed ones a day).
         */
        get: operations["chat_jobs_retrieve"];
        put?: never;
        post?: never;
        /**
         * Stop a chat turn
         * @description Stops one of the caller's turns that has not finished: a turn no worker has taken yet is dropped, a running one is interrupted (its provider call and tool calls are abandoned), and one awaiting approval takes no more decisions and is ended by the next worker without running anything. The turn is not stored, and whoever waits for it (the request that asked, the job's status and event stream) hears that it failed with "the turn was stopped" ("... while it was awaiting approval", "... before a worker took it"); a turn dropped before a worker took it is not found afterwards. A turn that has finished cannot be stopped (409).
         */
        delete: operations["chat_jobs_stop"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plugins/ai-ops/api/chat/jobs/{job_id}/approvals/": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["job_id"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Decide on a paused turn's proposed calls
         * @description A turn whose agent proposes a call that may change something (the API request tool with any method but GET, knowledge-base tools that add, remove or re-index, MCP server tools as the server's `approval` says) waits in `awaiting_approval` holding no worker. A write to the platform waits with its `plan`, made with reads only under the owner's rights; one whose plan has errors (a field the schema lacks, a value outside its choices, an object that does not exist, a filter the operation does not declare, more than WRITE_MAX_OBJECTS objects) never waits: the model gets the errors. Each decision approves or declines one proposed call, with an optional note; once every proposed call is decided the turn goes on under the same job id. An approved write is made only if what it changes is as planned (its objects' `last_updated` and planned fields); otherwise nothing is written and the call waits again with a new plan and `replanned` saying why. A declined call's result, as the model sees it, is "declined by the user" with the note. Undecided calls count as declined after APPROVAL_TIMEOUT_S, and a decision after it is refused with 409 whether or not a worker has taken the turn up again. Only the turn's owner may decide (anyone else: 404); a turn not waiting: 409; an id that is not one of the waiting calls: 400.
         */
        post: operations["chat_jobs_approvals_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plugins/ai-ops/api/chat/jobs/{job_id}/elicitations/{id}/": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["job_id"];
                /** @description The question's id, as the job's `elicitations` and the `elicitation_required` event have it. */
                id: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer an MCP server's question to the turn's user
         * @description An MCP server may ask the turn's user a question while one of the turn's tool calls runs (the protocol's elicitation): a form (`requested_schema`, flat: string with its formats, number, integer, boolean, enum) or a URL to visit (`url`). The question shows in the job's `elicitations` and as an `elicitation_required` event; the call waits for the answer, in the protocol's own shape: `accept` with the form's `content` (checked against the requested schema; a URL question takes none), `decline` or `cancel`. Unanswered within APPROVAL_TIMEOUT_S (or when the call ends first) it counts as `cancel`. Only the turn's owner may answer (anyone else: 404); an answer given already or too late: 409; content that does not fit the schema: 400. The answer is audited, credential-named fields redacted.
         */
        post: operations["chat_jobs_elicitations_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plugins/ai-ops/api/chat/jobs/{job_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["job_id"];
            };
            cookie?: never;
        };
        /**
         * A chat turn's progress as Server-Sent Events
         * @description Starts with the job's current state, then `queued`, `active`, `delta`, `tool_call`, `tool_result`, and ends with `completed` (data `{job_id, session_id, model, response}`) or `failed` (data `{job_id, error}`). Each event's data is JSON. `delta` (data `{job_id, step, reset, text}`) carries the text of model call `step` as it is written: appended to that step's text, or replacing it when `reset` is true (the first piece of every step, and a retried call); the last step's text is the answer, which `completed` carries whole. A stream opened late (or again, after a reload) first replays the text written so far, then continues, with no gap and nothing twice. `tool_call` and `tool_result` carry the `step` they belong to. `approval_required` (data `{job_id, step, approvals, expires}`, approvals as in the job's status) says the turn waits for decisions; `approval_decided` (data `{job_id, step, id, name, approved, note?, decided_by}`) comes for each call as the turn goes on. `tool_progress` (data `{job_id, step, id, name, progress, total?, message?}`) relays an MCP tool's progress notifications (at most 100 per call). `elicitation_required` (data `{job_id, step, elicitation}`, the question as in the job's `elicitations`) says an MCP server asks the user a question, answered at `.../elicitations/{id}/`; `elicitation_answered` (data `{job_id, step, id, call_id, action, answered_by}`) says how it ended (`answered_by` null: no answer in time). `connect_required` (data `{job_id, server, server_id, authorization_url}`) says the turn goes on without an OAuth server the caller has not connected their account to.
         */
        get: operations["chat_jobs_events"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plugins/ai-ops/api/chat/models/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The models a chat turn may name
         * @description Names, providers and descriptions of the LLM models (the default first), for anyone who may chat, so a chat client can offer a choice without `ai_ops.view_llmmodel`. Nothing about endpoints or secrets.
         */
        get: operations["chat_models_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plugins/ai-ops/api/chat/sessions/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's chat sessions
         * @description Most recently active first. Sessions expire after SESSION_TTL_S without a turn.
         */
        get: operations["chat_sessions_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plugins/ai-ops/api/chat/sessions/{session_id}/": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: components["parameters"]["session_id"];
            };
            cookie?: never;
        };
        /** A chat session with its messages */
        get: operations["chat_sessions_retrieve"];
        put?: never;
        post?: never;
        /**
         * Clear a chat session
         * @description Deletes its messages from the session store; turns still running for it are answered but not stored.
         */
        delete: operations["chat_sessions_destroy"];
        options?: never;
        head?: never;
        /**
         * Rename a chat session
         * @description Sets the session's title (the first question until then). Later turns keep it.
         */
        patch: operations["chat_sessions_partial_update"];
        trace?: never;
    };
    "/api/plugins/ai-ops/kb/repos/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List knowledge-base repositories
         * @description The official repositories (shipped with the service) and those added by users, by priority then name.
         */
        get: operations["kb_repos_list"];
        put?: never;
        /**
         * Add a knowledge-base repository
         * @description Adds a user repository (owner/name on `GIT_BASE_URL`, a Git URL or a local folder) and enqueues its first index job (`job_id`). 403 for a local folder outside `KB_LOCAL_ROOTS`, and for a writer short of superuser who names a secret or an internal host.
         */
        post: operations["kb_repos_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/ai-ops/kb/repos/{owner}/{name}/": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: components["parameters"]["kb_owner"];
                name: components["parameters"]["kb_name"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a knowledge-base repository
         * @description Removes a user repository from the list, then (an index job) every chunk, its manifest and its clone. Official repositories cannot be removed (409).
         */
        delete: operations["kb_repos_destroy"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/ai-ops/kb/repos/{owner}/{name}/reindex/": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: components["parameters"]["kb_owner"];
                name: components["parameters"]["kb_name"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-index a knowledge-base repository
         * @description Enqueues an index job (one per repository at a time; a request while one is queued or running joins it). Only changed files are re-embedded unless `force` is set.
         */
        post: operations["kb_repos_reindex"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/ai-ops/kb/status/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Knowledge-base status
         * @description Per repository whether it is indexed, its chunk count, last indexing, and progress (files done / total) of a run under way.
         */
        get: operations["kb_status_retrieve"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/ai-ops/platform/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Check the platform the agent acts on
         * @description Which platform the agent's tools act on (PLATFORM_ENV and its URL, or this service's own API), whether its OpenAPI description can be read now and how many operations it has, and, when the platform is this service, what to set to point it at Nautobot or NetBox. Reads the description anew on every call; never shows PLATFORM_TOKEN. Superusers only.
         */
        get: operations["platform_check"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/ai-ops/platform-token/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Whether you stored a personal platform token
         * @description For an external platform: whether the service keeps personal platform tokens at all (`enabled`), and whether the calling user has stored one and when. The token itself is never returned.
         */
        get: operations["platform_token_retrieve"];
        /**
         * Store your personal platform token
         * @description Stores (or replaces) the calling user's own token for the external platform, sealed with `PLATFORM_TOKEN_KEY`; the agent then calls the platform with it for this user, writes included. Write-only: no API returns it. 409 when the service has no `PLATFORM_TOKEN_KEY`.
         */
        put: operations["platform_token_update"];
        post?: never;
        /** Forget your personal platform token */
        delete: operations["platform_token_destroy"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/ai-ops/audit-log/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the audit log of tool calls
         * @description Every tool call a chat turn made, newest first: when, for whom (user, session, job), which server and tool, the arguments (secret values redacted), the outcome (`ok`, `error`, `declined`), the platform's HTTP status for platform calls, the owner's decision when the call needed one, and how long it took. Entries are kept `AUDIT_RETENTION_DAYS` and cannot be changed or deleted.
         */
        get: operations["audit_log_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Leads to the chat page */
        get: operations["web_root"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The API's root
         * @description Each part of the API and its address, as Nautobot's root lists its apps, with the API's version in `API-Version` (clients read it without a token). A browser asking for HTML is sent to the API's documentation instead.
         */
        get: operations["api_root"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plugins/ai-ops/chat/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The chat page
         * @description Signs in with an API token (kept in the browser tab's sessionStorage), then chats through the chat API: model picker, sessions (rename, delete), streamed progress with each tool call, answers shown as they are written (sanitized Markdown), a reload mid-answer reattached to the running turn, Stop (the message returns to the composer). No token is needed to load the page itself; it is served with a strict Content-Security-Policy and revalidated on every load.
         */
        get: operations["web_chat_page"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plugins/ai-ops/admin/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The administration page
         * @description Create, edit and delete LLM models, MCP servers (health badges that refresh by themselves, last check, latency, check now) and secrets; API tokens for superusers (the new key shown once); knowledge-base repositories (add, remove, re-index, indexing progress). Everything goes through the API with the signed-in token's permissions, and the page offers only what `GET /api/users/tokens/me/` says the token may do. `?refresh=SECONDS` (1 to 300, default 10) sets how often it refreshes.
         */
        get: operations["web_admin_page"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plugins/ai-ops/assets/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A script or stylesheet of the web pages
         * @description Built with the pages; names carry a content hash, so they are cached for a year (immutable).
         */
        get: operations["web_asset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/ai-ops/usage/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Token usage per day, user and model
         * @description The tokens chat turns spent, as the providers reported them, per UTC day, user and model, with their cost where the model record has prices. Any token sees its own user's usage; `ai_ops.view_usage` sees every user's (and filters by `user`). Kept `USAGE_RETENTION_DAYS`. The answer also says what is left of the caller's own daily token budgets.
         */
        get: operations["usage_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        KbRepository: {
            /** @description owner/name: how the knowledge base lists it, and its path in this API */
            name: string;
            description: string;
            /** @description Lower is indexed first */
            priority: number;
            enabled: boolean;
            /** @description `HEAD`: the default branch of the remote */
            branch: string;
            file_patterns: string[];
            /** @enum {string} */
            source: "official" | "user";
            /** @description Where it is cloned from (a Git URL, or the file:// URL of a local folder); absent for `GIT_BASE_URL/owner/name.git` */
            url?: string;
            /** @description The name of the secret holding its credential (never its value) */
            secret?: string;
        };
        /** @description `name` alone: owner/name on `GIT_BASE_URL`. With `url`: a Git URL (`https://host/group/name.git`, `ssh://[user@]host[:port]/group/name.git`, `user@host:group/name.git`) or a local folder (`/path` or `file:///path`, under `KB_LOCAL_ROOTS`), listed under `name` (by default the URL's last two path segments). An internal host and `secret` need a superuser (or `OUTBOUND_ALLOW` for the host). One of `name` and `url` is required. The URL is read as git reads it: git's `<transport>::<address>` form, and transports other than https, http, ssh and a local folder, are refused to everyone. */
        KbRepositoryWrite: {
            /** @description owner/name */
            name?: string;
            /** @description A Git URL or a local folder (see above) */
            url?: string;
            /** @description Superusers only: the secret holding its credential, a token (https; `user:token` to send that user name) or an SSH private key (ssh) */
            secret?: string;
            description?: string;
            /** @description Default: main for owner/name, the default branch of the remote for a URL */
            branch?: string;
            priority?: number;
            /** @description File-name suffixes (.py) or globs (*.md) to index; without it .py .js .ts .md .rst .yaml .yml .json .txt */
            file_patterns?: string[];
        };
        KbStatus: {
            repositories: {
                name: string;
                /** @enum {string} */
                status: "indexed" | "not_indexed" | "indexing" | "failed";
                documents: number;
                last_indexed: string | null;
                indexing: boolean;
                enabled: boolean;
                commit: string | null;
                progress?: {
                    files_done: number;
                    files_total: number;
                };
                error?: string;
            }[];
            total_documents: number;
            indexing_active: boolean;
        };
        Detail: {
            detail: string;
        };
        /** @description Field name to its messages; `detail` for errors that are not about one field. */
        FieldErrors: {
            [key: string]: string[] | string;
        };
        ServiceStatus: {
            /** @enum {string} */
            status: "ok" | "unavailable";
            /**
             * @description full while Redis refuses writes for memory (maxmemory reached), reads are still served and the status stays 200; read-only (503) while it takes no writes, during a failover
             * @enum {string}
             */
            redis?: "ok" | "full" | "read-only" | "unreachable";
            version?: string;
            detail?: string;
        };
        PlatformCheck: {
            /**
             * @description PLATFORM_ENV.
             * @enum {string}
             */
            env: "local" | "nonprod" | "prod";
            /** @description The platform's address (its PLATFORM_URL_*, or this service's own), without user name or password. */
            url: string;
            /** @description The platform is this service's own API, so the agent finds only this service's operations (no devices, sites or prefixes). */
            is_self: boolean;
            /** @description Whether PLATFORM_TOKEN is set (the token is never shown). */
            token_set: boolean;
            /** @description PLATFORM_READ_ONLY. */
            read_only: boolean;
            description: {
                /** @description Where it is read from, PLATFORM_SPEC_PATH on the platform, or this service's own code. */
                source: string;
                /** @enum {string} */
                state: "ok" | "failed";
                /** @description Its operations (method and path); null when it could not be read. */
                operations: number | null;
                /** @description Why it could not be read (never a secret). */
                error: string | null;
            };
            /** @description When the platform is this service, what to set to point the agent at Nautobot or NetBox; null otherwise. */
            to_connect: string | null;
        };
        PlatformTokenState: {
            /** @description The service keeps personal platform tokens (it has a `PLATFORM_TOKEN_KEY`); when false, storing one is a 409. */
            enabled: boolean;
            /** @description You stored one. */
            configured: boolean;
            /** Format: date-time */
            updated: string | null;
        };
        /** @enum {string} */
        AuditOutcome: "ok" | "error" | "declined";
        /** @description The owner's decision on a call that needed one (null for a call that needed none). */
        AuditApproval: {
            /** @enum {string} */
            decision: "approved" | "declined";
            /** @description The deciding user's id; null when no one decided in time (counted as declined). */
            decided_by: string | null;
            /** @description The deciding user's name (the asking user decides their own calls); null when no one decided in time. */
            decided_by_name: string | null;
            /** Format: date-time */
            decided_at: string;
            note?: string;
        } | null;
        AuditEntry: {
            /** @description Position in the log (time-ordered). */
            id: string;
            /**
             * Format: date-time
             * @description When the call finished.
             */
            time: string;
            /** @description The asking user's name (their id when the turn carried no token). */
            user: string;
            user_id: string;
            session_id: string;
            job_id: string;
            /** @description The MCP server that ran it, `built-in` for the platform tools; null when no server had the tool. */
            server: string | null;
            tool: string;
            /** @description The arguments the model gave, secret values replaced by `***`. */
            arguments: {
                [key: string]: unknown;
            };
            outcome: components["schemas"]["AuditOutcome"];
            /** @description The platform's HTTP status, for platform API calls. */
            http_status: number | null;
            approval: components["schemas"]["AuditApproval"];
            plan?: components["schemas"]["WritePlan"];
            duration_ms: number;
            /** @description A write made through the tool server (`aiops mcp`): the host that asked for it and how its user confirmed it. Such entries have '' as session_id and job_id. */
            host?: {
                /** @description The host's name (initialize's clientInfo.name), null when unknown. */
                client: string | null;
                /**
                 * @description elicitation: the user accepted the plan in the host; confirm_token: a second call carried the plan's confirm token; chat_approval: approved in this service's chat; none: TOOLSERVER_WRITE_CONFIRM=none.
                 * @enum {string}
                 */
                decision: "elicitation" | "confirm_token" | "chat_approval" | "none";
            };
        };
        /**
         * @description A yes or no in a query, as the clients of Nautobot and NetBox write it (Python's requests sends `True`).
         * @enum {string}
         */
        QueryBoolean: "true" | "false" | "True" | "False" | "1" | "0";
        /** @description A record in brief (`?brief=true`), as Nautobot's nested records. */
        BriefRecord: {
            /** Format: uuid */
            id: string;
            /** @description The record's own address. */
            url: string;
            display: string;
            name?: string;
        };
        BulkDelete: {
            /** Format: uuid */
            id: string;
        }[];
        ApiRoot: {
            [key: string]: string;
        };
        ApiStatus: {
            "aiops-version": string;
            "api-version": string;
            "node-version": string;
            /** @description null while Redis cannot be asked. */
            "redis-version": string | null;
            /**
             * @description As `/status` says it.
             * @enum {string}
             */
            redis: "ok" | "full" | "read-only" | "unreachable";
            /** @description Each queue and the workers that take its jobs now (BullMQ's count of their connections to Redis). */
            "workers-running": {
                [key: string]: number;
            };
        };
        EndpointMetadata: {
            name: string;
            description: string;
            renders: string[];
            parses: string[];
            /** @description Each write this token may make here (POST on a list, PUT on a record): its fields by name. */
            actions?: {
                [key: string]: {
                    [key: string]: components["schemas"]["FieldMetadata"];
                };
            };
        };
        FieldMetadata: {
            /** @enum {string} */
            type: "string" | "integer" | "float" | "boolean" | "choice" | "list" | "json";
            required: boolean;
            read_only: boolean;
            label: string;
            help_text?: string;
            max_length?: number;
            min_length?: number;
            min_value?: number;
            max_value?: number;
            choices?: {
                value: string;
                display_name: string;
                display: string;
            }[];
        };
        UsageFigures: {
            input_tokens: number;
            output_tokens: number;
            /** @description In US dollars, at the model records' prices per million tokens; null when a model in it has none. */
            cost: number | null;
        };
        UsageRow: components["schemas"]["UsageFigures"] & {
            /** @description The user's name (their id for turns asked without a token). */
            user: string;
            user_id: string;
            model: string;
            provider: components["schemas"]["LLMProvider"];
        };
        UsageDay: components["schemas"]["UsageFigures"] & {
            /** Format: date */
            day: string;
            rows: components["schemas"]["UsageRow"][];
        };
        Usage: {
            /** Format: date */
            since: string;
            /** Format: date */
            until: string;
            /** @description Days with usage, oldest first, each with its users' and models' rows. */
            days: components["schemas"]["UsageDay"][];
            total: components["schemas"]["UsageFigures"];
            /** @description The caller's own daily token budgets today (UTC), whatever the filters; each resets at 00:00 UTC. Empty when no budget applies. In the API's answer only (`aiops usage` has no caller). */
            budgets?: components["schemas"]["UsageBudget"][];
        };
        UsageBudget: {
            /** @description The model whose own `daily_token_budget` this is; null for `CHAT_TOKEN_BUDGET_PER_DAY`, the budget of turns on every other model, against which the tokens of every model count. */
            model: string | null;
            /** @description Tokens per UTC day. */
            limit: number;
            /** @description Tokens counted against it today; a turn may pass the limit in its last step. */
            spent: number;
            left: number;
        };
        Page: {
            count: number;
            next: string | null;
            previous: string | null;
            results: unknown[];
        };
        /** @description The record's own API address (absolute on PUBLIC_URL or an allowed Host), as Nautobot and NetBox give every record: their clients (pynetbox, pynautobot) read it to know the record's endpoint and to fetch its details. */
        RecordUrl: string;
        RecordBase: {
            /** Format: uuid */
            readonly id: string;
            url: components["schemas"]["RecordUrl"];
            readonly display: string;
            /** Format: date-time */
            readonly created: string;
            /** Format: date-time */
            readonly last_updated: string;
        };
        HttpUrlOrBlank: string;
        /** @enum {string} */
        LLMProvider: "ollama" | "openai" | "azure_ai" | "anthropic" | "huggingface" | "custom";
        LLMModelInput: {
            /**
             * Format: uuid
             * @description The record to change, in bulk writes (PUT and PATCH on the list); refused elsewhere.
             */
            id?: string;
            name?: string;
            description?: string;
            provider?: components["schemas"]["LLMProvider"];
            /** @description Name of the secret that holds the provider credential (write; shown on detail only). */
            model_secret_key?: string;
            hosted_endpoint?: components["schemas"]["HttpUrlOrBlank"];
            api_version?: string;
            /** @description The model of every chat that names none. One model at most is the default: making one the default clears the flag on the previous default in the same write. */
            is_default?: boolean;
            temperature?: number;
            /** @description Passed to the provider as is (max_tokens, top_p, ...); at most 16,384 characters as JSON. A write replaces it whole: keys left out are removed. */
            model_config?: Record<string, unknown>;
            system_prompt?: string;
            /** @description A user's tokens per UTC day on this model, instead of `CHAT_TOKEN_BUDGET_PER_DAY`; null (the default): that setting applies. */
            daily_token_budget?: number | null;
            /** @description Price of a million input tokens in US dollars, so that usage shows its cost; null (the default) when unknown. */
            price_per_million_input_tokens?: number | null;
            /** @description Price of a million output tokens in US dollars; null (the default) when unknown. */
            price_per_million_output_tokens?: number | null;
        };
        LLMModel: components["schemas"]["RecordBase"] & {
            name: string;
            description: string;
            provider: components["schemas"]["LLMProvider"];
            /** @description Present on detail responses only. */
            model_secret_key?: string;
            hosted_endpoint: string;
            api_version: string;
            is_default: boolean;
            temperature: number;
            model_config: Record<string, unknown>;
            system_prompt: string;
            daily_token_budget: number | null;
            price_per_million_input_tokens: number | null;
            price_per_million_output_tokens: number | null;
        };
        /** @enum {string} */
        MCPProtocol: "http" | "stdio";
        /** @enum {string} */
        MCPType: "internal" | "external";
        /**
         * @description Which of this server's tool calls wait for the asking user's decision: `writes` (default) those not annotated `readOnlyHint: true` (every call of an `external` server, whose annotations are not trusted), `always` every call, `never` none.
         * @enum {string}
         */
        MCPApproval: "writes" | "always" | "never";
        EndpointPath: string;
        /** @description A path checked with `GET url + health_check` (any 2xx passes); empty (the default), the server is checked by the protocol: an MCP `initialize`, then `ping`. Stdio servers are always checked by the protocol. */
        HealthCheckPath: string;
        /**
         * @description Which check ran: `protocol`, an MCP `initialize` then `ping` (stdio servers, and http servers with no `health_check` path); `http`, `GET url + health_check`.
         * @enum {string}
         */
        HealthCheckMethod: "protocol" | "http";
        MCPServerInput: {
            /**
             * Format: uuid
             * @description The record to change, in bulk writes (PUT and PATCH on the list); refused elsewhere.
             */
            id?: string;
            name?: string;
            /** @description Status id or name (a name matched in any case). */
            status?: string;
            protocol?: components["schemas"]["MCPProtocol"];
            /** @description The server's address (http servers), as the original app's clients send it; read back as `server_url` (a record's `url` is its own API address). Left aside when `server_url` is sent too. */
            url?: components["schemas"]["HttpUrlOrBlank"];
            /** @description The server's address (http servers), as reads show it; wins over `url` when both are sent. */
            server_url?: components["schemas"]["HttpUrlOrBlank"];
            /** @description Program started for stdio servers. */
            command?: string;
            args?: string[];
            mcp_endpoint?: components["schemas"]["EndpointPath"];
            health_check?: components["schemas"]["HealthCheckPath"];
            description?: string;
            mcp_type?: components["schemas"]["MCPType"];
            approval?: components["schemas"]["MCPApproval"];
            /** @description Name of a secret sent as a bearer token to this server only (`auth` secret). */
            auth_secret_key?: string;
            /** @description The server may ask for completions (`sampling/createMessage`) during a tool call, served by the turn's model and counted in its user's usage; refused when false. Only a superuser turns it on. */
            sampling?: boolean;
            auth?: components["schemas"]["MCPAuth"];
            oauth_grant?: components["schemas"]["MCPOAuthGrant"];
            /** @description A client registered beforehand with the server's authorization server (`auth` oauth); empty: the service registers itself (dynamic client registration). */
            oauth_client_id?: string;
            /** @description Name of a secret holding that client's secret (superuser only). */
            oauth_client_secret_key?: string;
            roots?: components["schemas"]["MCPRoots"];
        };
        /** @description The roots the MCP client names to this server when it asks (`roots/list`): none by default, as the service shares no file system with a server. Each is a `file://` URI, as the protocol requires, with an optional name. */
        MCPRoots: {
            uri: string;
            name?: string;
        }[];
        /**
         * @description How the service proves itself to the server: `none`; `secret`, the bearer token in `auth_secret_key`; `oauth`, OAuth 2.1 as the protocol's authorization specification says, each user with their own account (`oauth_grant` authorization_code, see `.../connect/`) or one service account (client_credentials, superuser only). Older records read as `secret` when they name a secret, else `none`.
         * @enum {string}
         */
        MCPAuth: "none" | "secret" | "oauth";
        /** @enum {string} */
        MCPOAuthGrant: "authorization_code" | "client_credentials";
        MCPServer: components["schemas"]["RecordBase"] & {
            name: string;
            status: {
                /** Format: uuid */
                id: string;
                name: string;
            } | null;
            protocol: components["schemas"]["MCPProtocol"];
            /** @description The server's address (http servers; written as `url` or `server_url`). */
            server_url: string;
            command: string;
            args: string[];
            mcp_endpoint: string;
            health_check: string;
            description: string;
            mcp_type: components["schemas"]["MCPType"];
            approval: components["schemas"]["MCPApproval"];
            auth_secret_key: string;
            sampling: boolean;
            roots: components["schemas"]["MCPRoots"];
            auth: components["schemas"]["MCPAuth"];
            oauth_grant: components["schemas"]["MCPOAuthGrant"];
            oauth_client_id: string;
            oauth_client_secret_key: string;
            /** @description Of a server with `auth` oauth and `oauth_grant` authorization_code: whether the caller has connected their own account to it (absent otherwise). */
            readonly connected?: boolean;
            /** Format: date-time */
            readonly last_checked: string | null;
            /** @description Why the last check failed (never a secret). */
            readonly last_error: string | null;
            readonly latency_ms: number | null;
            /**
             * @description Which check ran last (see HealthCheckMethod; null before any).
             * @enum {string|null}
             */
            readonly last_check_method: "protocol" | "http" | null;
        };
        MCPHealthCheck: {
            /** @description The server's status after the check. */
            status: string | null;
            /** @description Whether this check passed. */
            healthy: boolean | null;
            latency_ms: number | null;
            /** @description Why the check failed (never a secret). */
            error: string | null;
            /** @description The URL checked (null for stdio servers). */
            url: string | null;
            /**
             * @description Which check ran (see HealthCheckMethod; null when none did).
             * @enum {string|null}
             */
            method: "protocol" | "http" | null;
        };
        Status: components["schemas"]["RecordBase"] & {
            name: string;
            description: string;
            color: string;
        };
        /** @enum {string} */
        SecretProvider: "environment-variable" | "text-file";
        SecretInput: {
            /**
             * Format: uuid
             * @description The record to change, in bulk writes (PUT and PATCH on the list); refused elsewhere.
             */
            id?: string;
            name?: string;
            description?: string;
            provider?: components["schemas"]["SecretProvider"];
            /** @description `{"variable": NAME}` for environment-variable, `{"path": "/abs/path"}` for text-file. */
            parameters?: {
                variable?: string;
                path?: string;
            };
        };
        Secret: components["schemas"]["RecordBase"] & {
            name: string;
            description: string;
            provider: components["schemas"]["SecretProvider"];
            parameters: {
                variable?: string;
                path?: string;
            };
        };
        Token: {
            /** Format: uuid */
            id: string;
            url: components["schemas"]["RecordUrl"];
            /** @description The user and the last four characters of the key. */
            display: string;
            /** @description The user's name. */
            user: string;
            /** @description May do everything. */
            superuser: boolean;
            permissions: components["schemas"]["Permission"][];
            /** @description False for a read-only token. */
            write_enabled: boolean;
            /** Format: date-time */
            expires: string | null;
            description: string;
            /** @description The key's last four characters. */
            key_hint: string;
            /** Format: date-time */
            created: string;
        };
        TokenCreated: components["schemas"]["Token"] & {
            /** @description The key, for `Authorization: Token <key>`; shown this once. */
            key: string;
        };
        TokenInput: {
            /** @description Created if new. */
            user: string;
            /** @default false */
            superuser: boolean;
            permissions?: components["schemas"]["Permission"][];
            /** @default true */
            write_enabled: boolean;
            /**
             * Format: date-time
             * @description In the future; never when null or left out.
             */
            expires?: string | null;
            description?: string;
        };
        /**
         * @description What a token may do besides being a superuser (who may do everything): view, add, change and delete each record kind; chat; read (view_kb) and change (change_kb) the knowledge base; call the HTTP tool server, whose tools act with PLATFORM_TOKEN's rights (use_toolserver); read every user's entries of the audit log of the agent's tool calls (view_auditlog); read every user's token usage (view_usage).
         * @enum {string}
         */
        Permission: "ai_ops.view_llmmodel" | "ai_ops.view_mcpserver" | "ai_ops.add_llmmodel" | "ai_ops.add_mcpserver" | "ai_ops.change_llmmodel" | "ai_ops.change_mcpserver" | "ai_ops.delete_llmmodel" | "ai_ops.delete_mcpserver" | "extras.view_secret" | "extras.add_secret" | "extras.change_secret" | "extras.delete_secret" | "extras.view_status" | "ai_ops.chat" | "ai_ops.view_kb" | "ai_ops.change_kb" | "ai_ops.use_toolserver" | "ai_ops.view_auditlog" | "ai_ops.view_usage";
        ChatModel: {
            name: string;
            provider: components["schemas"]["LLMProvider"];
            description: string;
            is_default: boolean;
        };
        ChatSessionUpdate: {
            title: string;
        };
        /** @description Letters, digits, "-" and "_". */
        ChatSessionId: string;
        ChatRequest: {
            message: string;
            session_id?: components["schemas"]["ChatSessionId"];
            /** @description An LLM model by name; the default model otherwise. */
            model?: string;
        };
        ChatReply: {
            response: string;
            session_id: string;
            job_id: string;
            model: string;
            /** @description The turn's trace, when traces are exported (OTEL_EXPORTER_OTLP_ENDPOINT). */
            trace_id?: string;
        };
        ChatAccepted: {
            job_id: string;
            session_id: string;
            model: string;
            /** @description The job's path on this service (relative: the Host header is never echoed) */
            status_url: string;
            /** @description The turn's trace, when traces are exported (OTEL_EXPORTER_OTLP_ENDPOINT). */
            trace_id?: string;
        };
        ChatJob: {
            job_id: string;
            /**
             * @description `awaiting_approval` while proposed calls wait for the owner's decisions; once that wait runs out (`approval_expires`), `queued`: the undecided calls count as declined and the turn waits for a worker to go on.
             * @enum {string}
             */
            status: "queued" | "active" | "awaiting_approval" | "completed" | "failed";
            session_id: string;
            /** @description The caller's message that started the turn. */
            message: string;
            model?: string;
            response?: string;
            error?: string;
            /** @description With `awaiting_approval`: the proposed calls still waiting for a decision. */
            approvals?: components["schemas"]["ChatApproval"][];
            /**
             * Format: date-time
             * @description With `awaiting_approval`: when undecided calls count as declined.
             */
            approval_expires?: string;
            /** @description The turn's trace, when it was asked of an API that exports traces (OTEL_EXPORTER_OTLP_ENDPOINT). */
            trace_id?: string;
            /** @description The questions MCP servers put to the turn's user during its tool calls, the first asked first. */
            elicitations?: components["schemas"]["ChatElicitation"][];
            /** @description The OAuth servers this turn left out because the caller has not connected their account to them: open `authorization_url` (or `POST .../mcp-servers/{id}/connect/` for a new one), then ask the turn again. */
            connect_required?: components["schemas"]["McpConnectRequired"][];
        };
        ChatElicitation: {
            id: string;
            /** @description The tool call that asked (the model's tool call id). */
            call_id: string;
            tool: string;
            /** @description The MCP server that asks. */
            server: string;
            /** @enum {string} */
            mode: "form" | "url";
            /** @description The server's question, its own words. */
            message: string;
            /** @description Form mode: the JSON Schema of the answer (flat primitive properties). */
            requested_schema?: Record<string, unknown>;
            /** @description URL mode: where the user answers; the service never opens it. */
            url?: string;
            /**
             * Format: date-time
             * @description When an unanswered question counts as `cancel`.
             */
            expires: string;
            /** @enum {string} */
            status: "pending" | "accept" | "decline" | "cancel";
        };
        ChatElicitationAnswer: {
            /** @enum {string} */
            action: "accept" | "decline" | "cancel";
            /** @description With `accept`, a form's answer: the requested schema's fields. */
            content?: {
                [key: string]: unknown;
            };
        };
        McpConnectRequired: {
            /** @description The MCP server's name. */
            server: string;
            /** Format: uuid */
            server_id: string;
            /** @description Where the user signs in (single use, valid MCP_OAUTH_STATE_TTL_S). */
            authorization_url: string;
        };
        McpConnect: {
            /** @description Where the caller signs in to the server's authorization server; it comes back to the service's callback, which stores the caller's tokens. Single use, valid MCP_OAUTH_STATE_TTL_S. */
            authorization_url: string;
        };
        McpOAuthClientMetadata: {
            /**
             * Format: uri
             * @description This document's own URL.
             */
            client_id: string;
            client_name: string;
            redirect_uris: string[];
            grant_types: string[];
            response_types: string[];
            token_endpoint_auth_method: string;
        };
        ChatApproval: {
            /** @description The proposed call's id (the model's tool call id). */
            id: string;
            /** @description The tool's name as the model called it. */
            tool: string;
            /** @description The MCP server that serves it, or `built-in` for the platform tools. */
            server: string;
            /** @description The MCP server record as it was when the call was proposed (absent for built-in tools): an approved call is made only if that server is unchanged. */
            server_ref?: string;
            arguments: Record<string, unknown>;
            plan?: components["schemas"]["WritePlan"];
            /** @description Errors of this turn's earlier tries at the same operation (refused to the model, never asked) that this call no longer has. */
            fixed?: string[];
            /** @description Why the call is asked again: what moved since an earlier approval of it, so nothing was written. */
            replanned?: string[];
        };
        /** @description What a write to the platform will do, worked out with reads only under the asking user's rights before anyone is asked: the operation in words, the objects it creates, changes or deletes (each changed field before and after, related objects by their display), their count, and any errors (a plan with errors is never put to a person). In the audit log, values are redacted like the arguments, and it is null for calls that wrote nothing to the platform. */
        WritePlan: {
            /** @enum {string} */
            method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
            path: string;
            /** @description The operation as the platform's API description has it ('' when it has none). */
            operation: string;
            /** @description The operation in words: "Update device leaf-1", "Delete 3 VLANs". */
            summary: string;
            /** @description The objects it touches; of a bulk write, the first WRITE_MAX_OBJECTS. */
            objects: components["schemas"]["PlannedObject"][];
            /** @description How many objects it touches, all of them. */
            count: number;
            errors: {
                field?: string;
                message: string;
                choices?: unknown[];
            }[];
            notes: string[];
        } | null;
        PlannedObject: {
            /** @description Absent for an object the write creates. */
            id?: string;
            display: string;
            path?: string;
            /** @description As read for the plan: the write is made only if it is the same then. */
            last_updated?: string | null;
            /** @enum {string} */
            effect: "create" | "update" | "delete" | "unchanged" | "other";
            /** @description Each field the write sets: of a replacement (PUT), also each it resets to its default; of an object field, each key, those it removes after "(removed)". */
            changes: {
                field: string;
                /** @description Absent for an object the write creates. */
                before?: string;
                after: string;
                /** @description The field already has this value. */
                unchanged?: boolean;
                /** @description The value compared (related objects by id), not shown. */
                current?: unknown;
                /** @description The value compared (related objects by id), not shown. */
                planned?: unknown;
            }[];
            /** @description Every other writable field of an object the write changes, as read for the plan (related objects by id), not shown: the read-back finds them so after the write. */
            kept?: {
                [key: string]: unknown;
            };
        };
        ChatApprovalDecision: {
            approved: boolean;
            note?: string;
            /** @description The deciding user's id; null when the wait ran out. */
            decided_by: string | null;
            /** Format: date-time */
            decided_at: string;
        };
        ChatDecisions: {
            decisions: {
                id: string;
                approve: boolean;
                note?: string;
            }[];
        };
        ChatDecisionsAccepted: {
            job_id: string;
            /**
             * @description `queued` once every proposed call is decided: the turn goes on.
             * @enum {string}
             */
            status: "awaiting_approval" | "queued";
            status_url: string;
        };
        ChatToolCall: {
            id: string;
            name: string;
            arguments: Record<string, unknown>;
        };
        ChatMessage: {
            /** @enum {string} */
            role: "system" | "user" | "assistant" | "tool";
            content: string;
            turn_id: string;
            /** Format: date-time */
            created: string;
            tool_calls?: components["schemas"]["ChatToolCall"][];
            tool_call_id?: string;
            name?: string;
            approval?: components["schemas"]["ChatApprovalDecision"];
        };
        ChatSessionSummary: {
            id: string;
            title: string;
            model: string;
            turns: number;
            /** Format: date-time */
            created: string;
            /** Format: date-time */
            updated: string;
        };
        ChatSession: components["schemas"]["ChatSessionSummary"] & {
            messages: components["schemas"]["ChatMessage"][];
        };
    };
    responses: {
        /** @description Any other failure: `{"detail": "..."}`, or `{field: [messages]}` for invalid input (for example an unknown query parameter). Never a stack trace. */
        Error: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Detail"] | components["schemas"]["FieldErrors"];
            };
        };
        /** @description The request broke a rule; each field lists its messages. */
        Invalid: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FieldErrors"];
            };
        };
        /** @description No token, an unknown token or an expired one. */
        Unauthenticated: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Detail"];
            };
        };
        /** @description The token lacks the permission, or is read-only. */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Detail"];
            };
        };
        /** @description No such record. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Detail"];
            };
        };
        /** @description The secret is named by LLM models or MCP servers (the detail lists them): it is neither renamed nor deleted while they use it. */
        SecretInUse: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Detail"];
            };
        };
        /** @description Not possible in the current state: the service is not set up for this yet (for chat, no LLM model), a turn was stopped, or a turn to stop is over already; the detail says which. */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Detail"];
            };
        };
        /** @description The Idempotency-Key was already used for a different request; send a new key. */
        IdempotencyKeyReused: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Detail"];
            };
        };
        /** @description Too many requests from this user; retry after the given number of seconds. */
        RateLimited: {
            headers: {
                /** @description Seconds to wait. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Detail"];
            };
        };
        /** @description The LLM provider (or the secret it needs) failed; the detail names the cause, never a secret value. */
        UpstreamFailure: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Detail"];
            };
        };
        /** @description Redis is unreachable; retry shortly. */
        Unavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Detail"];
            };
        };
        /** @description The request broke a rule. For a list body, one `{field: [messages]}` per item in the list's order (`{}` for the items that passed); otherwise each field lists its messages. */
        BulkInvalid: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FieldErrors"] | components["schemas"]["FieldErrors"][];
            };
        };
        /** @description The endpoint's metadata, as Nautobot answers OPTIONS: its name and description, the media types it reads and writes, and under `actions` each write this token may make here, with its fields (type, required, limits, choices). */
        EndpointMetadata: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["EndpointMetadata"];
            };
        };
        /** @description Each endpoint or part below this address, by name, with its address. */
        ApiRoot: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ApiRoot"];
            };
        };
        /** @description The LLM model */
        LLMModel: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["LLMModel"];
            };
        };
        /** @description The LLM models written, in the list's order */
        LLMModelList: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["LLMModel"][];
            };
        };
        /** @description The MCP server */
        MCPServer: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["MCPServer"];
            };
        };
        /** @description The MCP servers written, in the list's order */
        MCPServerList: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["MCPServer"][];
            };
        };
        /** @description The secret (where its value lives, never the value) */
        Secret: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Secret"];
            };
        };
        /** @description The secrets written, in the list's order */
        SecretList: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Secret"][];
            };
        };
    };
    parameters: {
        id: string;
        /** @description Page size (default 50). */
        limit: number;
        /** @description Page size (default 50). 0 asks for as many as MAX_PAGE_SIZE allows (default 1000), and so does any larger size; `next` links then lead through the rest. */
        pageLimit: number;
        /** @description `true` (or `True`, `1`): each record as `{id, url, display, name}` only. */
        brief: components["schemas"]["QueryBoolean"];
        /** @description Where the page starts; at most 2147483647 (a larger offset is refused, as it could only be past the end). */
        offset: number;
        /** @description Case-insensitive search in the name and description. Reserved characters may be sent as they are (`+` for a space, as form-encoding clients send it). */
        q: string;
        /** @description Reserved characters may be sent as they are (`+` for a space). */
        name: string;
        job_id: string;
        session_id: components["schemas"]["ChatSessionId"];
        kb_owner: string;
        kb_name: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    status_retrieve: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceStatus"];
                };
            };
            /** @description Not ready (Redis unreachable or taking no writes, starting or draining) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceStatus"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    metrics_retrieve: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Metrics in the Prometheus text exposition format */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            default: components["responses"]["Error"];
        };
    };
    docs_openapi_retrieve: {
        parameters: {
            query?: {
                format?: "openapi" | "json";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, unknown>;
                };
            };
            401: components["responses"]["Unauthenticated"];
            default: components["responses"]["Error"];
        };
    };
    api_status_retrieve: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The service's status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiStatus"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    extras_root: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["ApiRoot"];
            401: components["responses"]["Unauthenticated"];
            default: components["responses"]["Error"];
        };
    };
    plugins_root: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["ApiRoot"];
            401: components["responses"]["Unauthenticated"];
            default: components["responses"]["Error"];
        };
    };
    ai_ops_root: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["ApiRoot"];
            401: components["responses"]["Unauthenticated"];
            default: components["responses"]["Error"];
        };
    };
    users_root: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["ApiRoot"];
            401: components["responses"]["Unauthenticated"];
            default: components["responses"]["Error"];
        };
    };
    llm_models_list: {
        parameters: {
            query?: {
                /** @description Page size (default 50). 0 asks for as many as MAX_PAGE_SIZE allows (default 1000), and so does any larger size; `next` links then lead through the rest. */
                limit?: components["parameters"]["pageLimit"];
                /** @description `true` (or `True`, `1`): each record as `{id, url, display, name}` only. */
                brief?: components["parameters"]["brief"];
                /** @description Where the page starts; at most 2147483647 (a larger offset is refused, as it could only be past the end). */
                offset?: components["parameters"]["offset"];
                /** @description Case-insensitive search in the name and description. Reserved characters may be sent as they are (`+` for a space, as form-encoding clients send it). */
                q?: components["parameters"]["q"];
                /** @description Reserved characters may be sent as they are (`+` for a space). */
                name?: components["parameters"]["name"];
                provider?: components["schemas"]["LLMProvider"];
                is_default?: components["schemas"]["QueryBoolean"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of LLM models */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page"] & {
                        results?: (components["schemas"]["LLMModel"] | components["schemas"]["BriefRecord"])[];
                    };
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    llm_models_bulk_update: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": (components["schemas"]["LLMModelInput"] & unknown)[];
            };
        };
        responses: {
            200: components["responses"]["LLMModelList"];
            400: components["responses"]["BulkInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    llm_models_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": (components["schemas"]["LLMModelInput"] & unknown) | (components["schemas"]["LLMModelInput"] & unknown)[];
            };
        };
        responses: {
            /** @description The LLM model created, or the list of them created from a list (all or nothing) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LLMModel"] | components["schemas"]["LLMModel"][];
                };
            };
            400: components["responses"]["BulkInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    llm_models_bulk_destroy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BulkDelete"];
            };
        };
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BulkInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    llm_models_options: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["EndpointMetadata"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    llm_models_bulk_partial_update: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": (components["schemas"]["LLMModelInput"] & unknown)[];
            };
        };
        responses: {
            200: components["responses"]["LLMModelList"];
            400: components["responses"]["BulkInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    llm_models_retrieve: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["LLMModel"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    llm_models_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LLMModelInput"] & unknown;
            };
        };
        responses: {
            200: components["responses"]["LLMModel"];
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    llm_models_destroy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    llm_models_record_options: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["EndpointMetadata"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    llm_models_partial_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LLMModelInput"];
            };
        };
        responses: {
            200: components["responses"]["LLMModel"];
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_list: {
        parameters: {
            query?: {
                /** @description Page size (default 50). 0 asks for as many as MAX_PAGE_SIZE allows (default 1000), and so does any larger size; `next` links then lead through the rest. */
                limit?: components["parameters"]["pageLimit"];
                /** @description `true` (or `True`, `1`): each record as `{id, url, display, name}` only. */
                brief?: components["parameters"]["brief"];
                /** @description Where the page starts; at most 2147483647 (a larger offset is refused, as it could only be past the end). */
                offset?: components["parameters"]["offset"];
                /** @description Case-insensitive search in the name and description. Reserved characters may be sent as they are (`+` for a space, as form-encoding clients send it). */
                q?: components["parameters"]["q"];
                /** @description Reserved characters may be sent as they are (`+` for a space). */
                name?: components["parameters"]["name"];
                /** @description Status id or name. */
                status?: string;
                protocol?: components["schemas"]["MCPProtocol"];
                mcp_type?: components["schemas"]["MCPType"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of MCP servers */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page"] & {
                        results?: (components["schemas"]["MCPServer"] | components["schemas"]["BriefRecord"])[];
                    };
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_bulk_update: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": (components["schemas"]["MCPServerInput"] & unknown)[];
            };
        };
        responses: {
            200: components["responses"]["MCPServerList"];
            400: components["responses"]["BulkInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": (components["schemas"]["MCPServerInput"] & unknown) | (components["schemas"]["MCPServerInput"] & unknown)[];
            };
        };
        responses: {
            /** @description The MCP server created, or the list of them created from a list (all or nothing) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPServer"] | components["schemas"]["MCPServer"][];
                };
            };
            400: components["responses"]["BulkInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_bulk_destroy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BulkDelete"];
            };
        };
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BulkInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_options: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["EndpointMetadata"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_bulk_partial_update: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": (components["schemas"]["MCPServerInput"] & unknown)[];
            };
        };
        responses: {
            200: components["responses"]["MCPServerList"];
            400: components["responses"]["BulkInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_retrieve: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["MCPServer"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MCPServerInput"] & unknown;
            };
        };
        responses: {
            200: components["responses"]["MCPServer"];
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_destroy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_record_options: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["EndpointMetadata"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_partial_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MCPServerInput"];
            };
        };
        responses: {
            200: components["responses"]["MCPServer"];
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_health_check: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The check's result */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPHealthCheck"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_connect: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Where to sign in */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["McpConnect"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            502: components["responses"]["Error"];
            default: components["responses"]["Error"];
        };
    };
    mcp_servers_disconnect: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Disconnected (or was not connected) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            default: components["responses"]["Error"];
        };
    };
    mcp_oauth_callback: {
        parameters: {
            query: {
                state: string;
                code?: string;
                error?: string;
                error_description?: string;
                iss?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Connected */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description The state is unknown, used or expired, or the sign-in was refused */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description The token exchange failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            default: components["responses"]["Error"];
        };
    };
    mcp_oauth_client_metadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client metadata document */
            200: {
                headers: {
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["McpOAuthClientMetadata"];
                };
            };
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    statuses_list: {
        parameters: {
            query?: {
                /** @description Page size (default 50). 0 asks for as many as MAX_PAGE_SIZE allows (default 1000), and so does any larger size; `next` links then lead through the rest. */
                limit?: components["parameters"]["pageLimit"];
                /** @description `true` (or `True`, `1`): each record as `{id, url, display, name}` only. */
                brief?: components["parameters"]["brief"];
                /** @description Where the page starts; at most 2147483647 (a larger offset is refused, as it could only be past the end). */
                offset?: components["parameters"]["offset"];
                /** @description Case-insensitive search in the name and description. Reserved characters may be sent as they are (`+` for a space, as form-encoding clients send it). */
                q?: components["parameters"]["q"];
                /** @description Reserved characters may be sent as they are (`+` for a space). */
                name?: components["parameters"]["name"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of statuses */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page"] & {
                        results?: (components["schemas"]["Status"] | components["schemas"]["BriefRecord"])[];
                    };
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    statuses_options: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["EndpointMetadata"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    statuses_retrieve: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Status"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    statuses_record_options: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["EndpointMetadata"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    secrets_list: {
        parameters: {
            query?: {
                /** @description Page size (default 50). 0 asks for as many as MAX_PAGE_SIZE allows (default 1000), and so does any larger size; `next` links then lead through the rest. */
                limit?: components["parameters"]["pageLimit"];
                /** @description `true` (or `True`, `1`): each record as `{id, url, display, name}` only. */
                brief?: components["parameters"]["brief"];
                /** @description Where the page starts; at most 2147483647 (a larger offset is refused, as it could only be past the end). */
                offset?: components["parameters"]["offset"];
                /** @description Case-insensitive search in the name and description. Reserved characters may be sent as they are (`+` for a space, as form-encoding clients send it). */
                q?: components["parameters"]["q"];
                /** @description Reserved characters may be sent as they are (`+` for a space). */
                name?: components["parameters"]["name"];
                provider?: components["schemas"]["SecretProvider"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of secrets */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page"] & {
                        results?: (components["schemas"]["Secret"] | components["schemas"]["BriefRecord"])[];
                    };
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    secrets_bulk_update: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": (components["schemas"]["SecretInput"] & unknown)[];
            };
        };
        responses: {
            200: components["responses"]["SecretList"];
            400: components["responses"]["BulkInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    secrets_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": (components["schemas"]["SecretInput"] & unknown) | (components["schemas"]["SecretInput"] & unknown)[];
            };
        };
        responses: {
            /** @description The secret created, or the list of them created from a list (all or nothing) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Secret"] | components["schemas"]["Secret"][];
                };
            };
            400: components["responses"]["BulkInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    secrets_bulk_destroy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BulkDelete"];
            };
        };
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BulkInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    secrets_options: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["EndpointMetadata"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    secrets_bulk_partial_update: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": (components["schemas"]["SecretInput"] & unknown)[];
            };
        };
        responses: {
            200: components["responses"]["SecretList"];
            400: components["responses"]["BulkInvalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    secrets_retrieve: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["Secret"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    secrets_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SecretInput"] & unknown;
            };
        };
        responses: {
            200: components["responses"]["Secret"];
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["SecretInUse"];
            default: components["responses"]["Error"];
        };
    };
    secrets_destroy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["SecretInUse"];
            default: components["responses"]["Error"];
        };
    };
    secrets_record_options: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["EndpointMetadata"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    secrets_partial_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SecretInput"];
            };
        };
        responses: {
            200: components["responses"]["Secret"];
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["SecretInUse"];
            default: components["responses"]["Error"];
        };
    };
    users_tokens_list: {
        parameters: {
            query?: {
                /** @description Page size (default 50). 0 asks for as many as MAX_PAGE_SIZE allows (default 1000), and so does any larger size; `next` links then lead through the rest. */
                limit?: components["parameters"]["pageLimit"];
                /** @description `true` (or `True`, `1`): each record as `{id, url, display, name}` only. */
                brief?: components["parameters"]["brief"];
                /** @description Where the page starts; at most 2147483647 (a larger offset is refused, as it could only be past the end). */
                offset?: components["parameters"]["offset"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tokens */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page"] & {
                        results?: (components["schemas"]["Token"] | components["schemas"]["BriefRecord"])[];
                    };
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    users_tokens_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TokenInput"];
            };
        };
        responses: {
            /** @description The token, with its key */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenCreated"];
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    users_tokens_options: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["EndpointMetadata"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    users_tokens_me: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The calling token */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Token"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            default: components["responses"]["Error"];
        };
    };
    users_tokens_retrieve: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The token */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Token"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    users_tokens_destroy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    chat_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description `respond-async` to answer 202 at once. */
                Prefer?: string;
                /** @description Any client-chosen key; the same key from the same user with the same request returns the same turn (while the turn is kept, an hour after it ends), and with a different request 422. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChatRequest"];
            };
        };
        responses: {
            /** @description The turn finished in time */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatReply"];
                };
            };
            /** @description Queued (asked for, or the wait ran out); poll `status_url` or stream its events */
            202: {
                headers: {
                    /** @description The job's status URL. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatAccepted"];
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            502: components["responses"]["UpstreamFailure"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    chat_jobs_list: {
        parameters: {
            query?: {
                session_id?: components["schemas"]["ChatSessionId"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The waiting turns */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        count: number;
                        results: components["schemas"]["ChatJob"][];
                    };
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    chat_jobs_retrieve: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["job_id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatJob"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    chat_jobs_stop: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["job_id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The turn is being stopped */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            default: components["responses"]["Error"];
        };
    };
    chat_jobs_approvals_create: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["job_id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChatDecisions"];
            };
        };
        responses: {
            /** @description Decisions recorded */
            202: {
                headers: {
                    /** @description The job's status URL. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatDecisionsAccepted"];
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            default: components["responses"]["Error"];
        };
    };
    chat_jobs_elicitations_create: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["job_id"];
                /** @description The question's id, as the job's `elicitations` and the `elicitation_required` event have it. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChatElicitationAnswer"];
            };
        };
        responses: {
            /** @description The answer is recorded; the server hears it. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        job_id: string;
                        id: string;
                        /** @enum {string} */
                        action: "accept" | "decline" | "cancel";
                    };
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            default: components["responses"]["Error"];
        };
    };
    chat_jobs_events: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: components["parameters"]["job_id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    chat_models_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every model (one page) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page"] & {
                        results?: components["schemas"]["ChatModel"][];
                    };
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    chat_sessions_list: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: components["parameters"]["limit"];
                /** @description Where the page starts; at most 2147483647 (a larger offset is refused, as it could only be past the end). */
                offset?: components["parameters"]["offset"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of sessions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page"] & {
                        results?: components["schemas"]["ChatSessionSummary"][];
                    };
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    chat_sessions_retrieve: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: components["parameters"]["session_id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatSession"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    chat_sessions_destroy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: components["parameters"]["session_id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cleared */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    chat_sessions_partial_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: components["parameters"]["session_id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChatSessionUpdate"];
            };
        };
        responses: {
            /** @description The session, renamed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatSessionSummary"];
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    kb_repos_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every repository (one page) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        count: number;
                        next: string | null;
                        previous: string | null;
                        results: components["schemas"]["KbRepository"][];
                    };
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    kb_repos_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["KbRepositoryWrite"];
            };
        };
        responses: {
            /** @description The repository, with the id of its index job */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KbRepository"] & {
                        job_id: string;
                    };
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    kb_repos_destroy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: components["parameters"]["kb_owner"];
                name: components["parameters"]["kb_name"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        repository: string;
                        documents_deleted: number;
                    };
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    kb_repos_reindex: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: components["parameters"]["kb_owner"];
                name: components["parameters"]["kb_name"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @default false */
                    force?: boolean;
                };
            };
        };
        responses: {
            /** @description Enqueued; follow it in the status */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        repository: string;
                        job_id: string;
                    };
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    kb_status_retrieve: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KbStatus"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    platform_check: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The platform and its description's state */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlatformCheck"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    platform_token_retrieve: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Whether one can be and is stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlatformTokenState"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            default: components["responses"]["Error"];
        };
    };
    platform_token_update: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    token: string;
                };
            };
        };
        responses: {
            /** @description Stored */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            default: components["responses"]["Error"];
        };
    };
    platform_token_destroy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed (or there was none) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            default: components["responses"]["Error"];
        };
    };
    audit_log_list: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: components["parameters"]["limit"];
                /** @description Where the page starts; at most 2147483647 (a larger offset is refused, as it could only be past the end). */
                offset?: components["parameters"]["offset"];
                /** @description Only this user's calls (user name or id). */
                user?: string;
                /** @description Only calls of this tool (its name as offered to the model). */
                tool?: string;
                outcome?: components["schemas"]["AuditOutcome"];
                /** @description Only calls made at or after this time (ISO 8601; the colons may be sent as they are). */
                since?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of entries */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page"] & {
                        results?: components["schemas"]["AuditEntry"][];
                    };
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    web_root: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the chat page */
            302: {
                headers: {
                    Location?: "/plugins/ai-ops/chat/";
                    [name: string]: unknown;
                };
                content?: never;
            };
            default: components["responses"]["Error"];
        };
    };
    api_root: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["ApiRoot"];
            /** @description To the API documentation (a browser asking for HTML) */
            302: {
                headers: {
                    Location?: "/api/docs/";
                    [name: string]: unknown;
                };
                content?: never;
            };
            default: components["responses"]["Error"];
        };
    };
    web_chat_page: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description The pages are not built (`npm run build` builds them) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Detail"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    web_admin_page: {
        parameters: {
            query?: {
                /** @description Seconds between refreshes (default 10). */
                refresh?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description The pages are not built (`npm run build` builds them) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Detail"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    web_asset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The asset */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description No such asset */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Detail"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    usage_list: {
        parameters: {
            query?: {
                /** @description Only this user's usage (user name or id); without `ai_ops.view_usage`, only one's own may be named. */
                user?: string;
                /** @description Only this model's usage (its name). */
                model?: string;
                /** @description First UTC day (YYYY-MM-DD, a calendar date); 30 days before `until` by default. At most `USAGE_RETENTION_DAYS` before `until` (a 400 names the limit): older usage is not kept. */
                since?: string;
                /** @description Last UTC day (YYYY-MM-DD, a calendar date); today by default. */
                until?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Usage, per day */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Usage"];
                };
            };
            400: components["responses"]["Invalid"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["Forbidden"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
}

/** The choices of each enum schema, in the document's order. */
export const ENUMS = {
  AuditOutcome: ["ok","error","declined"],
  QueryBoolean: ["true","false","True","False","1","0"],
  LLMProvider: ["ollama","openai","azure_ai","anthropic","huggingface","custom"],
  MCPProtocol: ["http","stdio"],
  MCPType: ["internal","external"],
  MCPApproval: ["writes","always","never"],
  HealthCheckMethod: ["protocol","http"],
  MCPAuth: ["none","secret","oauth"],
  MCPOAuthGrant: ["authorization_code","client_credentials"],
  SecretProvider: ["environment-variable","text-file"],
  Permission: ["ai_ops.view_llmmodel","ai_ops.view_mcpserver","ai_ops.add_llmmodel","ai_ops.add_mcpserver","ai_ops.change_llmmodel","ai_ops.change_mcpserver","ai_ops.delete_llmmodel","ai_ops.delete_mcpserver","extras.view_secret","extras.add_secret","extras.change_secret","extras.delete_secret","extras.view_status","ai_ops.chat","ai_ops.view_kb","ai_ops.change_kb","ai_ops.use_toolserver","ai_ops.view_auditlog","ai_ops.view_usage"],
} as const satisfies { [Name in keyof Schemas]?: ReadonlyArray<Schemas[Name]> };
