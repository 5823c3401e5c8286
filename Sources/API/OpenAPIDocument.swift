import HTTPServer

/// `GET /openapi.json`: the OpenAPI 3.1 document of every route (the issue's contract). Written by hand rather
/// than derived from the route table, so that it can say what each route takes and answers; the tests keep it true
/// (every routed method and template is documented and the reverse, and schemathesis checks real answers against it).
enum OpenAPIDocument {
    static let response = JSONResponse.make(200, text)

    static let text = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "apnsd",
            "version": "1",
            "description": "apnsd's HTTP API (`apnsd serve`): durable, idempotent push notifications for Apple devices. Every /v1 route needs `Authorization: Bearer SECRET` (`apnsd api-key create NAME`): a missing or unknown key is 401, a key without the route's scope is 403. Scopes: send (enqueue and cancel notifications, register and remove devices), read (every GET), admin (campaigns: create, cancel, retry; broadcast channels: create, delete). Ids are JSON strings. Times are ISO 8601 UTC. Errors are {\"error\": {\"code\", \"message\", \"field\"?, \"index\"?}}."
          },
          "security": [{"bearer": []}],
          "paths": {
            "/healthz": {
              "get": {
                "operationId": "health",
                "summary": "200 while the process runs. No key needed.",
                "security": [],
                "responses": {
                  "200": {"description": "Alive.", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["status"], "properties": {"status": {"const": "ok"}}}}}}
                }
              }
            },
            "/readyz": {
              "get": {
                "operationId": "ready",
                "summary": "200 when the database is writable and, when the worker runs, it can send (some credential is not paused). No key needed.",
                "security": [],
                "responses": {
                  "200": {"description": "Ready.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Readiness"}}}},
                  "503": {"description": "Not ready: each check is \"ok\" or the reason.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Readiness"}}}}
                }
              }
            },
            "/metrics": {
              "get": {
                "operationId": "metrics",
                "summary": "Prometheus text format. No key needed.",
                "security": [],
                "responses": {
                  "200": {"description": "The metrics.", "content": {"text/plain": {"schema": {"type": "string"}}}}
                }
              }
            },
            "/openapi.json": {
              "get": {
                "operationId": "openapi",
                "summary": "This document. No key needed.",
                "security": [],
                "responses": {
                  "200": {"description": "The OpenAPI 3.1 document.", "content": {"application/json": {"schema": {"type": "object"}}}}
                }
              }
            },
            "/v1/notifications": {
              "post": {
                "operationId": "postNotification",
                "summary": "Enqueue one notification, ahead of bulk work. Scope: send.",
                "parameters": [{"$ref": "#/components/parameters/IdempotencyKey"}],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NotificationRequest"}}}},
                "responses": {
                  "202": {"description": "Enqueued.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Enqueued"}}}},
                  "200": {"description": "A replay: the first response to this Idempotency-Key and body; nothing enqueued.",
                          "headers": {"Idempotent-Replayed": {"$ref": "#/components/headers/IdempotentReplayed"}},
                          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Enqueued"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"},
                  "422": {"$ref": "#/components/responses/IdempotencyKeyReused"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/notifications/batch": {
              "post": {
                "operationId": "postNotificationBatch",
                "summary": "Enqueue up to 10,000 notifications, all or none (one invalid item: 400 naming its index). Scope: send.",
                "parameters": [{"$ref": "#/components/parameters/IdempotencyKey"}],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {
                  "type": "object", "additionalProperties": false, "required": ["notifications"],
                  "properties": {"notifications": {"type": "array", "minItems": 1, "maxItems": 10000,
                                                    "items": {"$ref": "#/components/schemas/NotificationRequest"}}}}}}},
                "responses": {
                  "202": {"description": "Enqueued, ids in the order sent.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BatchEnqueued"}}}},
                  "200": {"description": "A replay: the first response to this Idempotency-Key and body; nothing enqueued.",
                          "headers": {"Idempotent-Replayed": {"$ref": "#/components/headers/IdempotentReplayed"}},
                          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BatchEnqueued"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"},
                  "422": {"$ref": "#/components/responses/IdempotencyKeyReused"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/notifications/{id}": {
              "parameters": [{"$ref": "#/components/parameters/ID"}],
              "get": {
                "operationId": "getNotification",
                "summary": "A notification: its status, counts by delivery status and its first 1,000 deliveries. Scope: read.",
                "responses": {
                  "200": {"description": "The notification.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NotificationStatus"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              },
              "delete": {
                "operationId": "cancelNotification",
                "summary": "Cancel a notification's pending deliveries (409 when it already finished). Scope: send.",
                "responses": {
                  "200": {"description": "Cancelled.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Cancelled"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "409": {"$ref": "#/components/responses/Conflict"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/devices/{token}": {
              "parameters": [{"$ref": "#/components/parameters/Token"}],
              "put": {
                "operationId": "putDevice",
                "summary": "Register a device, or refresh (and reactivate) it. `replaces` deactivates the old token with reason Replaced. `kind` and `activityType` register a Live Activity token (under the app's bundle id, like a device); registering a token again for the same topic updates its kind and type. Scope: send.",
                "requestBody": {"required": false, "content": {"application/json": {"schema": {
                  "type": "object", "additionalProperties": false,
                  "properties": {
                    "topic": {"$ref": "#/components/schemas/Topic"},
                    "environment": {"$ref": "#/components/schemas/Environment"},
                    "user": {"type": "string", "minLength": 1, "maxLength": 255},
                    "replaces": {"type": "string", "description": "The token this device had before (reinstall, restore)."},
                    "kind": {"$ref": "#/components/schemas/DeviceKind"},
                    "activityType": {"$ref": "#/components/schemas/ActivityType"}}}}}},
                "responses": {
                  "201": {"description": "A new device.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Device"}}}},
                  "200": {"description": "A known device, refreshed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Device"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              },
              "get": {
                "operationId": "getDevice",
                "summary": "A device (the fields of `apnsd device list --json`). Scope: read.",
                "parameters": [{"$ref": "#/components/parameters/Topic"}],
                "responses": {
                  "200": {"description": "The device.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Device"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              },
              "delete": {
                "operationId": "deleteDevice",
                "summary": "Deactivate a device (reason Removed). Scope: send.",
                "parameters": [{"$ref": "#/components/parameters/Topic"}],
                "responses": {
                  "204": {"description": "Deactivated."},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/devices": {
              "get": {
                "operationId": "listDevices",
                "summary": "Devices, a page at a time. Scope: read.",
                "parameters": [
                  {"name": "user", "in": "query", "schema": {"type": "string", "minLength": 1, "maxLength": 255}},
                  {"name": "active", "in": "query", "schema": {"type": "string", "enum": ["true", "false"]}},
                  {"name": "kind", "in": "query", "schema": {"$ref": "#/components/schemas/DeviceKind"}},
                  {"$ref": "#/components/parameters/Limit"},
                  {"$ref": "#/components/parameters/After"}
                ],
                "responses": {
                  "200": {"description": "A page of devices.", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["devices", "next"],
                    "properties": {"devices": {"type": "array", "items": {"$ref": "#/components/schemas/Device"}},
                                   "next": {"$ref": "#/components/schemas/Cursor"}}}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/users/{user}/devices": {
              "delete": {
                "operationId": "deleteUserDevices",
                "summary": "Deactivate every device of a user (reason Removed): signed out everywhere, or erased. Scope: send.",
                "parameters": [{"name": "user", "in": "path", "required": true, "schema": {"type": "string", "minLength": 1, "maxLength": 255}}],
                "responses": {
                  "200": {"description": "Deactivated.", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["deactivated"], "properties": {"deactivated": {"type": "integer", "minimum": 0}}}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/broadcasts": {
              "post": {
                "operationId": "postBroadcast",
                "summary": "Enqueue an iOS 18 broadcast: a Live Activity update or end on a channel (POST /4/broadcasts/apps/<bundle id>), sent, retried and logged as a notification is. Checked against the channel first: its app, its environment, expiration 0 on a channel that stores no message (sent as 0 when left out). Scope: send.",
                "parameters": [{"$ref": "#/components/parameters/IdempotencyKey"}],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BroadcastRequest"}}}},
                "responses": {
                  "202": {"description": "Enqueued.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BroadcastEnqueued"}}}},
                  "200": {"description": "A replay: the first response to this Idempotency-Key and body; nothing enqueued.",
                          "headers": {"Idempotent-Replayed": {"$ref": "#/components/headers/IdempotentReplayed"}},
                          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BroadcastEnqueued"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"},
                  "422": {"$ref": "#/components/responses/IdempotencyKeyReused"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/channels": {
              "post": {
                "operationId": "postChannel",
                "summary": "Create an iOS 18 broadcast channel at APNs (channel management API, the credential that sends the topic) and record it. Nothing is recorded when APNs refuses (422, Apple's status and reason in the message). Scope: admin.",
                "requestBody": {"required": false, "content": {"application/json": {"schema": {
                  "type": "object", "additionalProperties": false,
                  "properties": {
                    "topic": {"$ref": "#/components/schemas/Topic"},
                    "storage": {"$ref": "#/components/schemas/ChannelStorage"},
                    "environment": {"$ref": "#/components/schemas/Environment"}}}}}},
                "responses": {
                  "201": {"description": "Created and recorded.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Channel"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"},
                  "422": {"$ref": "#/components/responses/APNsRefused"},
                  "502": {"$ref": "#/components/responses/APNsFailed"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              },
              "get": {
                "operationId": "listChannels",
                "summary": "The recorded channels in id order (deleted ones with deleted=true). With topic, APNs's list of the app's channels is read too (in environment, or each environment the app has channels in; production when none): each channel gains atAPNs, and notRecorded lists those APNs has that are not recorded here. Scope: read.",
                "parameters": [
                  {"name": "topic", "in": "query", "schema": {"$ref": "#/components/schemas/Topic"}},
                  {"name": "environment", "in": "query", "schema": {"$ref": "#/components/schemas/Environment"}},
                  {"name": "deleted", "in": "query", "schema": {"type": "string", "enum": ["true", "false"]}}
                ],
                "responses": {
                  "200": {"description": "The channels.", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["channels"],
                    "properties": {"channels": {"type": "array", "items": {"$ref": "#/components/schemas/Channel"}},
                                   "notRecorded": {"type": "array", "items": {"type": "object", "required": ["channelId", "topic", "environment"],
                                     "properties": {"channelId": {"type": "string"}, "topic": {"type": "string"},
                                                    "environment": {"type": "string", "enum": ["production", "development"]}}}}}}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "422": {"$ref": "#/components/responses/APNsRefused"},
                  "502": {"$ref": "#/components/responses/APNsFailed"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/channels/{id}": {
              "parameters": [{"name": "id", "in": "path", "required": true, "description": "The local number, or the APNs channel id (in base64url spelling when it holds '/': '-' for '+', '_' for '/').", "schema": {"type": "string", "minLength": 1}}],
              "get": {
                "operationId": "getChannel",
                "summary": "A channel, with apnsStorage: its policy as APNs reads it now (null once deleted). Scope: read.",
                "responses": {
                  "200": {"description": "The channel.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ChannelShown"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "422": {"$ref": "#/components/responses/APNsRefused"},
                  "502": {"$ref": "#/components/responses/APNsFailed"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              },
              "delete": {
                "operationId": "deleteChannel",
                "summary": "Delete the channel at APNs, then mark its row deleted (kept). Scope: admin.",
                "responses": {
                  "200": {"description": "Deleted; the row as kept.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Channel"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "409": {"$ref": "#/components/responses/Conflict"},
                  "422": {"$ref": "#/components/responses/APNsRefused"},
                  "502": {"$ref": "#/components/responses/APNsFailed"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/campaigns": {
              "post": {
                "operationId": "postCampaign",
                "summary": "Create a bulk campaign, now or `at` a time. Scope: admin.",
                "parameters": [{"$ref": "#/components/parameters/IdempotencyKey"}],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CampaignRequest"}}}},
                "responses": {
                  "201": {"description": "Created.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Created"}}}},
                  "200": {"description": "A replay: the first response to this Idempotency-Key and body; nothing created.",
                          "headers": {"Idempotent-Replayed": {"$ref": "#/components/headers/IdempotentReplayed"}},
                          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Created"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"},
                  "422": {"$ref": "#/components/responses/IdempotencyKeyReused"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              },
              "get": {
                "operationId": "listCampaigns",
                "summary": "Campaigns, newest first, a page at a time; bulk campaigns unless kind=single. Scope: read.",
                "parameters": [
                  {"name": "status", "in": "query", "schema": {"$ref": "#/components/schemas/CampaignStatus"}},
                  {"name": "kind", "in": "query", "schema": {"$ref": "#/components/schemas/CampaignKind"}},
                  {"$ref": "#/components/parameters/Limit"},
                  {"$ref": "#/components/parameters/After"}
                ],
                "responses": {
                  "200": {"description": "A page of campaigns.", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["campaigns", "next"],
                    "properties": {"campaigns": {"type": "array", "items": {"$ref": "#/components/schemas/Campaign"}},
                                   "next": {"$ref": "#/components/schemas/Cursor"}}}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/campaigns/{id}": {
              "get": {
                "operationId": "getCampaign",
                "summary": "A campaign (or a single send): counts by delivery status, its rate now and an ETA. Scope: read.",
                "parameters": [{"$ref": "#/components/parameters/ID"}],
                "responses": {
                  "200": {"description": "The campaign.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CampaignStatusReport"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/campaigns/{id}/cancel": {
              "post": {
                "operationId": "cancelCampaign",
                "summary": "Cancel a campaign's pending deliveries (409 when it already finished). Scope: admin.",
                "parameters": [{"$ref": "#/components/parameters/ID"}],
                "responses": {
                  "200": {"description": "Cancelled.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Cancelled"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "409": {"$ref": "#/components/responses/Conflict"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/campaigns/{id}/retry": {
              "post": {
                "operationId": "retryCampaign",
                "summary": "Send a campaign's failed deliveries again, like `apnsd campaign retry` (409 when its state does not allow it). Scope: admin.",
                "parameters": [{"$ref": "#/components/parameters/ID"}],
                "responses": {
                  "200": {"description": "Requeued.", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["requeued"], "properties": {"requeued": {"type": "integer", "minimum": 0}}}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "409": {"$ref": "#/components/responses/Conflict"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/campaigns/{id}/pause": {
              "post": {
                "operationId": "pauseCampaign",
                "summary": "Stop sending a running or scheduled bulk campaign without losing its place, like `apnsd campaign pause` (409 for a single send or a finished campaign). Scope: admin.",
                "parameters": [{"$ref": "#/components/parameters/ID"}],
                "responses": {
                  "200": {"description": "The campaign, paused.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Campaign"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "409": {"$ref": "#/components/responses/Conflict"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/campaigns/{id}/resume": {
              "post": {
                "operationId": "resumeCampaign",
                "summary": "Go on with a paused campaign where it stopped, like `apnsd campaign resume` (409 for a single send or a finished campaign). Scope: admin.",
                "parameters": [{"$ref": "#/components/parameters/ID"}],
                "responses": {
                  "200": {"description": "The campaign, resumed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Campaign"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "409": {"$ref": "#/components/responses/Conflict"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/deliveries": {
              "get": {
                "operationId": "listDeliveries",
                "summary": "Deliveries, newest first, a page at a time (stable while the worker writes). Scope: read.",
                "parameters": [
                  {"name": "campaign", "in": "query", "schema": {"$ref": "#/components/schemas/ID"}},
                  {"name": "notification", "in": "query", "description": "The same as campaign: a single send's id.", "schema": {"$ref": "#/components/schemas/ID"}},
                  {"name": "token", "in": "query", "schema": {"$ref": "#/components/schemas/DeviceToken"}},
                  {"name": "user", "in": "query", "schema": {"type": "string", "minLength": 1, "maxLength": 255}},
                  {"name": "status", "in": "query", "schema": {"$ref": "#/components/schemas/DeliveryStatus"}},
                  {"name": "reason", "in": "query", "description": "An APNs reason, such as Unregistered.", "schema": {"type": "string", "pattern": "^[A-Za-z0-9]{1,64}$"}},
                  {"name": "since", "in": "query", "description": "ISO 8601, or a duration back from now: 90m, 24h, 7d.", "schema": {"type": "string", "minLength": 1}},
                  {"name": "until", "in": "query", "description": "ISO 8601, or a duration back from now: 90m, 24h, 7d.", "schema": {"type": "string", "minLength": 1}},
                  {"$ref": "#/components/parameters/Limit"},
                  {"$ref": "#/components/parameters/After"}
                ],
                "responses": {
                  "200": {"description": "A page of deliveries.", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["deliveries", "next"],
                    "properties": {"deliveries": {"type": "array", "items": {"$ref": "#/components/schemas/Delivery"}},
                                   "next": {"$ref": "#/components/schemas/Cursor"}}}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/events": {
              "get": {
                "operationId": "listEvents",
                "summary": "The outcome feed (device.deactivated, delivery.failed) after a cursor; long-polls up to `wait` seconds when empty. Scope: read.",
                "parameters": [
                  {"$ref": "#/components/parameters/After"},
                  {"name": "wait", "in": "query", "description": "Seconds to wait for an event when there is none yet.", "schema": {"type": "integer", "minimum": 0, "maximum": 30}}
                ],
                "responses": {
                  "200": {"description": "Events after the cursor (maybe none), and the cursor to ask with next.", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["events", "next"],
                    "properties": {"events": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}},
                                   "next": {"type": "string"}}}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/v1/stats": {
              "get": {
                "operationId": "getStats",
                "summary": "Outcomes by status and reason, request rates, deactivations and the queue over a window (what `apnsd stats --json` prints). Scope: read.",
                "parameters": [
                  {"name": "since", "in": "query", "description": "ISO 8601, or a duration back from now: 90m, 24h, 7d. Default 1h.", "schema": {"type": "string", "minLength": 1}},
                  {"name": "campaign", "in": "query", "description": "Only this campaign's deliveries.", "schema": {"$ref": "#/components/schemas/ID"}}
                ],
                "responses": {
                  "200": {"description": "The window's figures.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Stats"}}}},
                  "400": {"$ref": "#/components/responses/Invalid"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            }
          },
          "components": {
            "securitySchemes": {
              "bearer": {"type": "http", "scheme": "bearer", "description": "An API key's secret (`apnsd api-key create NAME --scope send --scope read --scope admin`)."}
            },
            "parameters": {
              "ID": {"name": "id", "in": "path", "required": true, "schema": {"$ref": "#/components/schemas/ID"}},
              "Token": {"name": "token", "in": "path", "required": true, "schema": {"$ref": "#/components/schemas/DeviceToken"}},
              "Topic": {"name": "topic", "in": "query", "description": "Which registration, when the token has several.", "schema": {"$ref": "#/components/schemas/Topic"}},
              "Limit": {"name": "limit", "in": "query", "description": "Items per page; 100 when not given.", "schema": {"type": "integer", "minimum": 1, "maximum": 1000}},
              "After": {"name": "after", "in": "query", "description": "The `next` cursor of the page before.", "schema": {"type": "string", "pattern": "^[1-9][0-9]{0,17}$"}},
              "IdempotencyKey": {"name": "Idempotency-Key", "in": "header",
                "description": "Within 24 h, the same key (per API key) with the same JSON body returns the first response again (200, Idempotent-Replayed: true) and enqueues nothing; with another body, 422.",
                "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"}}
            },
            "headers": {
              "IdempotentReplayed": {"description": "This is the first response to the same Idempotency-Key, replayed.", "schema": {"const": "true"}}
            },
            "responses": {
              "Invalid": {"description": "Invalid (unknown fields are invalid); `field` names the one at fault, `index` the batch item.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "Unauthorized": {"description": "No API key, or not a live one.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "Forbidden": {"description": "The API key lacks this route's scope.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "NotFound": {"description": "No such thing.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "Conflict": {"description": "Its state does not allow this.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "TooLarge": {"description": "The body is over 1 MiB (64 MiB on the batch and campaign routes).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "UnsupportedMediaType": {"description": "The body is not Content-Type: application/json.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "IdempotencyKeyReused": {"description": "The Idempotency-Key was used with another body.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "APNsRefused": {"description": "APNs refused the channel request (code apns_refused; the message has APNs's status and reason, e.g. 400 ChannelNotRegistered or 400 FeatureNotEnabled).",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "APNsFailed": {"description": "APNs failed (a 5xx: apns_failed), answered unexpectedly (apns_bad_answer), or could not be reached (apns_unreachable).",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "Unavailable": {"description": "The database cannot be used right now (Retry-After), or the server is shutting down: retry.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
            },
            "schemas": {
              "Stats": {
                "type": "object",
                "required": ["since", "until", "seconds", "outcomes", "requests", "requestsPerSecond", "accepted", "acceptedPerSecond",
                             "deactivations", "deactivated", "queue", "campaign"],
                "properties": {
                  "since": {"type": "string", "format": "date-time"},
                  "until": {"type": "string", "format": "date-time"},
                  "seconds": {"type": "number", "minimum": 0},
                  "outcomes": {"type": "object", "description": "status (retry: an answer tried again) → reason (none) → count",
                               "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}},
                  "requests": {"type": "integer", "minimum": 0},
                  "requestsPerSecond": {"type": "number", "minimum": 0},
                  "accepted": {"type": "integer", "minimum": 0},
                  "acceptedPerSecond": {"type": "number", "minimum": 0},
                  "deactivations": {"type": "object", "description": "reason → devices", "additionalProperties": {"type": "integer", "minimum": 0}},
                  "deactivated": {"type": "integer", "minimum": 0},
                  "queue": {"type": "object", "required": ["pendingSingle", "pendingBulk", "oldestDueAgeSeconds"],
                            "properties": {"pendingSingle": {"type": "integer", "minimum": 0}, "pendingBulk": {"type": "integer", "minimum": 0},
                                           "oldestDueAgeSeconds": {"type": "number", "minimum": 0}}},
                  "campaign": {"oneOf": [{"$ref": "#/components/schemas/Campaign"}, {"type": "null"}]}
                }
              },
              "ID": {"type": "string", "pattern": "^[1-9][0-9]{0,17}$", "description": "A notification's or campaign's id (one id space)."},
              "Cursor": {"type": ["string", "null"], "description": "Pass as `after` for the next page; null on the last."},
              "Time": {"type": "string", "format": "date-time"},
              "DeviceToken": {"type": "string", "pattern": "^([0-9a-fA-F]{2}){1,100}$", "description": "Hexadecimal, as the app got it from APNs."},
              "Environment": {"type": "string", "enum": ["production", "development", "sandbox"]},
              "PushType": {"type": "string", "enum": ["alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity", "pushtotalk", "controls", "widgets"]},
              "CampaignStatus": {"type": "string", "enum": ["draft", "scheduled", "running", "completed", "cancelled"]},
              "CampaignKind": {"type": "string", "enum": ["single", "bulk", "verify"]},
              "DeliveryStatus": {"type": "string", "enum": ["pending", "accepted", "rejected", "unregistered", "failed", "cancelled"]},
              "Counts": {"type": "object", "description": "Deliveries by status.", "additionalProperties": {"type": "integer", "minimum": 0},
                "required": ["pending", "accepted", "unregistered", "rejected", "failed", "cancelled"]},
              "Error": {
                "type": "object", "required": ["error"],
                "properties": {"error": {"type": "object", "required": ["code", "message"], "properties": {
                  "code": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
                  "message": {"type": "string"},
                  "field": {"type": "string", "description": "The one field at fault."},
                  "index": {"type": "integer", "minimum": 0, "description": "The batch item at fault."}}}}
              },
              "Readiness": {
                "type": "object", "required": ["status", "checks"],
                "properties": {"status": {"type": "string", "enum": ["ready", "unready"]},
                               "checks": {"type": "object", "additionalProperties": {"type": "string"}},
                               "credentials": {"type": "object", "description": "With a worker: each sending credential by name. A paused one alone leaves apnsd ready (the check credentials fails only when every one is paused).",
                                               "additionalProperties": {"$ref": "#/components/schemas/CredentialState"}}}
              },
              "CredentialState": {
                "type": "object", "required": ["status"],
                "properties": {"status": {"type": "string", "enum": ["ok", "paused"]},
                               "reason": {"type": "string", "description": "Why it is paused, e.g. 403 InvalidProviderToken, or certificate expired on …"},
                               "since": {"type": "string", "format": "date-time"},
                               "certificateDaysLeft": {"type": "integer", "description": "Whole days until its client certificate expires (negative: expired); certificate credentials only."}}
              },
              "Payload": {"type": "object", "required": ["aps"], "properties": {"aps": {"type": "object"}}, "description": "The APNs payload, sent as given. With pushType liveactivity, aps is checked against ActivityKit's rules (event start|update|end, timestamp in seconds, content-state, start's alert/attributes-type/attributes; README, Live Activities) and a broken one is a 400 naming the member."},
              "Topic": {"type": "string", "maxLength": 255, "pattern": "^[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*$", "description": "The app's bundle id; default apns.topic. The push type's suffix (.push-type.liveactivity, .voip, …) is added when missing; another push type's .push-type. suffix is refused."},
              "Priority": {"type": "integer", "enum": [10, 5, 1]},
              "Expiration": {"type": "integer", "minimum": 0, "description": "Epoch seconds; 0: deliver once or never."},
              "CollapseID": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[^\\u0000-\\u001f\\u007f]+$"},
              "APNsID": {"type": "string", "format": "uuid"},
              "NotificationRequest": {
                "type": "object", "additionalProperties": false, "required": ["payload"],
                "description": "Exactly one of token, tokens, user, users; environment only with token or tokens.",
                "oneOf": [{"required": ["token"]}, {"required": ["tokens"]}, {"required": ["user"]}, {"required": ["users"]}],
                "properties": {
                  "token": {"$ref": "#/components/schemas/DeviceToken"},
                  "tokens": {"type": "array", "minItems": 1, "maxItems": 10000, "items": {"$ref": "#/components/schemas/DeviceToken"}},
                  "user": {"type": "string", "minLength": 1, "maxLength": 255},
                  "users": {"type": "array", "minItems": 1, "maxItems": 10000, "items": {"type": "string", "minLength": 1, "maxLength": 255}},
                  "environment": {"$ref": "#/components/schemas/Environment"},
                  "payload": {"$ref": "#/components/schemas/Payload"},
                  "topic": {"$ref": "#/components/schemas/Topic"},
                  "pushType": {"$ref": "#/components/schemas/PushType"},
                  "priority": {"$ref": "#/components/schemas/Priority"},
                  "expiration": {"$ref": "#/components/schemas/Expiration"},
                  "collapseId": {"$ref": "#/components/schemas/CollapseID"},
                  "apnsId": {"$ref": "#/components/schemas/APNsID"}
                }
              },
              "BroadcastRequest": {
                "type": "object", "additionalProperties": false, "required": ["channel", "payload"],
                "properties": {
                  "channel": {"type": "string", "minLength": 1, "description": "The channel's number (GET /v1/channels) or the id APNs gave it."},
                  "payload": {"$ref": "#/components/schemas/Payload"},
                  "topic": {"$ref": "#/components/schemas/Topic"},
                  "pushType": {"type": "string", "enum": ["liveactivity"]},
                  "priority": {"$ref": "#/components/schemas/Priority"},
                  "expiration": {"$ref": "#/components/schemas/Expiration"},
                  "environment": {"$ref": "#/components/schemas/Environment"},
                  "apnsId": {"$ref": "#/components/schemas/APNsID"}
                }
              },
              "BroadcastEnqueued": {"type": "object", "required": ["id", "channel", "deliveries"],
                "properties": {"id": {"$ref": "#/components/schemas/ID"}, "channel": {"$ref": "#/components/schemas/ID"},
                               "deliveries": {"type": "integer", "minimum": 1, "maximum": 1}}},
              "CampaignRequest": {
                "type": "object", "additionalProperties": false, "required": ["payload", "audience"],
                "properties": {
                  "audience": {"oneOf": [
                    {"type": "object", "additionalProperties": false, "required": ["all"], "properties": {"all": {"const": true}}},
                    {"type": "object", "additionalProperties": false, "required": ["users"], "properties": {"users": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1, "maxLength": 255}}}},
                    {"type": "object", "additionalProperties": false, "required": ["tokens"], "properties": {"tokens": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/DeviceToken"}}}},
                    {"type": "object", "additionalProperties": false, "required": ["activityType"],
                     "description": "The Live Activity tokens registered for activityType under the topic's bundle id (of these users when given); pushType must be liveactivity.",
                     "properties": {"activityType": {"$ref": "#/components/schemas/ActivityType"},
                                    "kind": {"type": "string", "enum": ["activity", "pushToStart"], "description": "activity (default): update tokens; pushToStart: push-to-start tokens."},
                                    "users": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1, "maxLength": 255}}}}]},
                  "at": {"type": "string", "format": "date-time", "description": "When to start; now when not given."},
                  "environment": {"$ref": "#/components/schemas/Environment"},
                  "payload": {"$ref": "#/components/schemas/Payload"},
                  "topic": {"$ref": "#/components/schemas/Topic"},
                  "pushType": {"$ref": "#/components/schemas/PushType"},
                  "priority": {"$ref": "#/components/schemas/Priority"},
                  "expiration": {"$ref": "#/components/schemas/Expiration"},
                  "collapseId": {"$ref": "#/components/schemas/CollapseID"},
                  "apnsId": {"$ref": "#/components/schemas/APNsID"}
                }
              },
              "Enqueued": {"type": "object", "required": ["id", "deliveries"],
                "properties": {"id": {"$ref": "#/components/schemas/ID"}, "deliveries": {"type": "integer", "minimum": 0}}},
              "BatchEnqueued": {"type": "object", "required": ["ids"],
                "properties": {"ids": {"type": "array", "items": {"$ref": "#/components/schemas/ID"}}}},
              "Created": {"type": "object", "required": ["id"], "properties": {"id": {"$ref": "#/components/schemas/ID"}}},
              "Cancelled": {"type": "object", "required": ["cancelled", "inFlight"],
                "properties": {"cancelled": {"type": "integer", "minimum": 0},
                               "inFlight": {"type": "integer", "minimum": 0, "description": "Deliveries already on their way to APNs."}}},
              "Delivery": {
                "type": "object", "required": ["id", "token", "status", "httpStatus", "reason", "apnsId", "attempts", "updatedAt"],
                "properties": {
                  "id": {"$ref": "#/components/schemas/ID"},
                  "campaign": {"$ref": "#/components/schemas/ID"},
                  "token": {"oneOf": [{"$ref": "#/components/schemas/DeviceToken"}, {"type": "null"}], "description": "null for a broadcast."},
                  "channel": {"type": ["integer", "null"], "description": "A broadcast's channel (its number); null for a device."},
                  "status": {"$ref": "#/components/schemas/DeliveryStatus"},
                  "httpStatus": {"type": ["integer", "null"]},
                  "reason": {"type": ["string", "null"]},
                  "apnsId": {"type": ["string", "null"]},
                  "attempts": {"type": "integer", "minimum": 0},
                  "updatedAt": {"$ref": "#/components/schemas/Time"}
                }
              },
              "NotificationStatus": {
                "type": "object", "required": ["id", "createdAt", "status", "counts", "deliveries"],
                "properties": {
                  "id": {"$ref": "#/components/schemas/ID"},
                  "kind": {"$ref": "#/components/schemas/CampaignKind"},
                  "createdAt": {"$ref": "#/components/schemas/Time"},
                  "status": {"$ref": "#/components/schemas/CampaignStatus"},
                  "counts": {"$ref": "#/components/schemas/Counts"},
                  "deliveries": {"type": "array", "maxItems": 1000, "items": {"$ref": "#/components/schemas/Delivery"}}
                }
              },
              "Campaign": {
                "type": "object", "required": ["id", "kind", "status", "createdAt"],
                "properties": {
                  "id": {"$ref": "#/components/schemas/ID"},
                  "kind": {"$ref": "#/components/schemas/CampaignKind"},
                  "status": {"$ref": "#/components/schemas/CampaignStatus"},
                  "audience": {"type": "string"},
                  "audienceSize": {"type": ["integer", "null"]},
                  "activityType": {"type": ["string", "null"], "description": "For an activity audience: its activity type."},
                  "activityKind": {"type": ["string", "null"], "enum": ["activity", "pushToStart", null], "description": "For an activity audience: the kind of token it reaches."},
                  "channel": {"type": ["integer", "null"], "description": "For a broadcast: its channel's number."},
                  "environment": {"type": ["string", "null"]},
                  "topic": {"type": "string"},
                  "pushType": {"$ref": "#/components/schemas/PushType"},
                  "priority": {"type": "integer"},
                  "expiration": {"type": ["integer", "null"]},
                  "collapseId": {"type": ["string", "null"]},
                  "scheduledAt": {"type": ["string", "null"], "format": "date-time"},
                  "createdAt": {"$ref": "#/components/schemas/Time"},
                  "startedAt": {"type": ["string", "null"], "format": "date-time"},
                  "finishedAt": {"type": ["string", "null"], "format": "date-time"},
                  "expanded": {"type": "boolean"},
                  "paused": {"type": "boolean"},
                  "total": {"type": "integer", "minimum": 0}
                }
              },
              "CampaignStatusReport": {
                "allOf": [{"$ref": "#/components/schemas/Campaign"}],
                "required": ["counts", "ratePerSecond", "eta"],
                "properties": {
                  "counts": {"$ref": "#/components/schemas/Counts"},
                  "ratePerSecond": {"type": "number", "minimum": 0, "description": "Deliveries finished per second now."},
                  "eta": {"type": ["string", "null"], "format": "date-time", "description": "When it should finish at that rate; null when unknown or finished."}
                }
              },
              "Device": {
                "type": "object", "required": ["token", "topic", "environment", "user", "active", "registeredAt", "deactivatedAt", "reason", "kind", "activityType"],
                "properties": {
                  "token": {"$ref": "#/components/schemas/DeviceToken"},
                  "topic": {"type": "string"},
                  "environment": {"type": "string", "enum": ["production", "development"]},
                  "user": {"type": ["string", "null"]},
                  "active": {"type": "boolean"},
                  "registeredAt": {"$ref": "#/components/schemas/Time"},
                  "deactivatedAt": {"type": ["string", "null"], "format": "date-time"},
                  "reason": {"type": ["string", "null"], "description": "Why it was deactivated: Unregistered, BadDeviceToken, DeviceTokenNotForTopic, Replaced, Removed."},
                  "kind": {"$ref": "#/components/schemas/DeviceKind"},
                  "activityType": {"type": ["string", "null"], "description": "The ActivityAttributes type name of an activity or pushToStart token."}
                }
              },
              "ChannelStorage": {"type": "string", "enum": ["none", "latest"], "description": "latest (default): APNs keeps the most recent message (message-storage-policy 1); none: nothing is kept (policy 0; broadcasts need expiration 0)."},
              "Channel": {
                "type": "object", "required": ["id", "channelId", "topic", "environment", "storage", "messageStoragePolicy", "credential", "createdAt", "deletedAt"],
                "properties": {
                  "id": {"type": "string", "description": "The local number (a JSON string, as every id)."},
                  "channelId": {"type": "string", "description": "The id APNs gave (base64)."},
                  "topic": {"type": "string"},
                  "environment": {"type": "string", "enum": ["production", "development"]},
                  "storage": {"$ref": "#/components/schemas/ChannelStorage"},
                  "messageStoragePolicy": {"type": "integer", "enum": [0, 1]},
                  "credential": {"type": "string"},
                  "createdAt": {"$ref": "#/components/schemas/Time"},
                  "deletedAt": {"type": ["string", "null"], "format": "date-time"},
                  "atAPNs": {"type": "boolean", "description": "Listed by APNs (GET /v1/channels?topic= only)."}
                }
              },
              "ChannelShown": {
                "allOf": [{"$ref": "#/components/schemas/Channel"}, {"type": "object", "required": ["apnsStorage"],
                  "properties": {"apnsStorage": {"type": ["string", "null"], "enum": ["none", "latest", null]}}}]
              },
              "DeviceKind": {"type": "string", "enum": ["device", "activity", "pushToStart"], "description": "device (default); activity: the update token of one running Live Activity; pushToStart: the app's push-to-start token."},
              "ActivityType": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_.]{0,199}$", "description": "The ActivityAttributes type name; required for kind activity and pushToStart, refused for device."},
              "Event": {
                "type": "object", "required": ["id", "type", "token", "topic", "reason", "at"],
                "properties": {
                  "id": {"type": "string"},
                  "type": {"type": "string", "enum": ["device.deactivated", "delivery.failed"]},
                  "token": {"$ref": "#/components/schemas/DeviceToken"},
                  "topic": {"type": "string"},
                  "reason": {"type": ["string", "null"]},
                  "at": {"$ref": "#/components/schemas/Time"}
                }
              }
            }
          }
        }
        """#
}
