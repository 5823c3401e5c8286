/// The schema, as an ordered list of migrations. Documented for operators in SCHEMA.md.
///
/// NEVER edit a migration once it has shipped: append a new one (e.g. "0002-…") instead.
///
/// Performance notes, learnt by measuring: CHECK constraints and partial-index conditions avoid `IN (…)`
/// lists of more than two values (SQLite builds an ephemeral table for them on every row written), and
/// every index on `deliveries` takes keys that grow with time or with device id, never random keys (a
/// random-keyed index rewrites most of its pages at every commit of a large campaign).
enum Schema {
    static let migrator = Migrator(migrations: [
        .init(id: "0001-devices-campaigns-deliveries", sql: v1),
        .init(id: "0002-device-users", sql: v2),
        .init(id: "0003-workers-leases-cancels", sql: v3),
        .init(id: "0004-api-keys", sql: v4),
        .init(id: "0005-api-enqueue", sql: v5),
        .init(id: "0006-events", sql: v6),
        .init(id: "0007-gauges", sql: v7),
        .init(id: "0008-deferred-batches", sql: v8),
        .init(id: "0010-attempts", sql: v10),
        .init(id: "0011-outcome-counts", sql: v11),
        .init(id: "0012-pause", sql: v12),
        .init(id: "0013-verify", sql: v13),
        .init(id: "0014-live-activity-tokens", sql: v14),
        .init(id: "0015-broadcast-channels", sql: v15),
        .init(id: "0016-broadcasts", sql: v16),
        .init(id: "0017-worker-process", sql: v17),
        .init(id: "0018-worker-view", sql: v18),
        .init(id: "0019-due-at", sql: v19),
        .init(id: "0020-idempotency-by-key-id", sql: v20),
        .init(id: "0021-webhook-parked", sql: v21),
        .init(id: "0022-campaign-outcome-counts", sql: v22),
        .init(id: "0023-device-users-pending", sql: v23),
        .init(id: "0024-due-unleased", sql: v24),
        .init(id: "0025-unexpanded", sql: v25),
    ])

    private static let v1 = """
        CREATE TABLE devices (
            id              INTEGER PRIMARY KEY,
            token           TEXT    NOT NULL,
            topic           TEXT    NOT NULL,
            environment     TEXT    NOT NULL CHECK (environment IN ('production', 'development')),
            user_id         TEXT,
            active          INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
            registered_at   INTEGER NOT NULL,
            deactivated_at  INTEGER,
            reason          TEXT,
            UNIQUE (token, topic)
        );
        CREATE INDEX devices_by_user ON devices (user_id) WHERE user_id IS NOT NULL;

        CREATE TABLE campaigns (
            id                   INTEGER PRIMARY KEY,
            kind                 TEXT    NOT NULL CHECK (kind IN ('single', 'bulk')),
            status               TEXT    NOT NULL
                                 CHECK (status = 'draft' OR status = 'scheduled' OR status = 'running'
                                        OR status = 'completed' OR status = 'cancelled'),
            topic                TEXT    NOT NULL,
            push_type            TEXT    NOT NULL,
            priority             INTEGER NOT NULL,
            expiration           INTEGER,
            collapse_id          TEXT,
            payload              BLOB    NOT NULL,
            audience             TEXT    NOT NULL CHECK (audience = 'tokens' OR audience = 'users' OR audience = 'all'),
            audience_environment TEXT    CHECK (audience_environment IN ('production', 'development')),
            audience_size        INTEGER NOT NULL DEFAULT 0,
            expanded             INTEGER NOT NULL DEFAULT 0 CHECK (expanded IN (0, 1)),
            expansion_cursor     INTEGER NOT NULL DEFAULT 0,
            scheduled_at         INTEGER NOT NULL,
            created_at           INTEGER NOT NULL,
            started_at           INTEGER,
            finished_at          INTEGER,
            total                INTEGER NOT NULL DEFAULT 0,
            pending              INTEGER NOT NULL DEFAULT 0,
            accepted             INTEGER NOT NULL DEFAULT 0,
            rejected             INTEGER NOT NULL DEFAULT 0,
            unregistered         INTEGER NOT NULL DEFAULT 0,
            failed               INTEGER NOT NULL DEFAULT 0,
            cancelled            INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX campaigns_to_expand ON campaigns (scheduled_at, id) WHERE expanded = 0;
        CREATE INDEX campaigns_by_kind ON campaigns (kind, id);

        CREATE TABLE campaign_audience (
            campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
            seq         INTEGER NOT NULL,
            value       TEXT    NOT NULL,
            PRIMARY KEY (campaign_id, seq)
        ) WITHOUT ROWID;

        CREATE TABLE deliveries (
            id              INTEGER PRIMARY KEY,
            campaign_id     INTEGER NOT NULL REFERENCES campaigns (id),
            device_id       INTEGER,
            token           TEXT    NOT NULL,
            environment     TEXT    NOT NULL CHECK (environment IN ('production', 'development')),
            priority_class  INTEGER NOT NULL,
            status          TEXT    NOT NULL
                            CHECK (status = 'pending' OR status = 'accepted' OR status = 'rejected'
                                   OR status = 'unregistered' OR status = 'failed' OR status = 'cancelled'),
            attempts        INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL,
            leased_until    INTEGER,
            http_status     INTEGER,
            reason          TEXT,
            apns_id         TEXT,
            created_at      INTEGER NOT NULL,
            updated_at      INTEGER NOT NULL
        );
        CREATE INDEX deliveries_due ON deliveries (priority_class, next_attempt_at) WHERE status = 'pending';
        CREATE INDEX deliveries_by_campaign ON deliveries (campaign_id);
        CREATE UNIQUE INDEX deliveries_by_device ON deliveries (device_id, campaign_id) WHERE device_id IS NOT NULL;
        CREATE UNIQUE INDEX deliveries_by_unregistered_token ON deliveries (token, campaign_id) WHERE device_id IS NULL;
        CREATE INDEX deliveries_problems ON deliveries (status) WHERE status <> 'pending' AND status <> 'accepted';
        """

    /// User ids move from an index on `devices` to a table of their own. With the index, every imported device
    /// inserted a random key into it (half of `device import`'s time); the table is filled by the Store in user
    /// order, chunk by chunk. The Store adds the links; the triggers drop a link when its device changes user
    /// or is deleted, so a link always matches `devices.user_id`.
    private static let v2 = """
        CREATE TABLE device_users (
            user_id   TEXT    NOT NULL,
            device_id INTEGER NOT NULL,
            PRIMARY KEY (user_id, device_id)
        ) WITHOUT ROWID;
        INSERT INTO device_users (user_id, device_id)
            SELECT user_id, id FROM devices WHERE user_id IS NOT NULL ORDER BY user_id, id;
        DROP INDEX devices_by_user;
        CREATE TRIGGER devices_user_changed AFTER UPDATE OF user_id ON devices
            WHEN OLD.user_id IS NOT NULL AND OLD.user_id IS NOT NEW.user_id
        BEGIN
            DELETE FROM device_users WHERE user_id = OLD.user_id AND device_id = OLD.id;
        END;
        CREATE TRIGGER devices_deleted AFTER DELETE ON devices WHEN OLD.user_id IS NOT NULL
        BEGIN
            DELETE FROM device_users WHERE user_id = OLD.user_id AND device_id = OLD.id;
        END;
        """

    /// Several workers on one queue: each registers in `workers` and heartbeats; a lease names its owner
    /// (`deliveries.leased_by`) and lasts while the owner's heartbeat is fresh. `cancel_requests` lets
    /// `campaign cancel` stop every live worker before it commits. Leases taken before this migration had no
    /// owner: they keep their old expiry (`next_attempt_at`), so a worker of the previous version still
    /// running is not raced.
    private static let v3 = """
        CREATE TABLE workers (
            id           INTEGER PRIMARY KEY,
            host         TEXT    NOT NULL,
            pid          INTEGER NOT NULL,
            started_at   INTEGER NOT NULL,
            heartbeat_at INTEGER NOT NULL,
            cancel_seen  INTEGER NOT NULL DEFAULT 0
        );
        ALTER TABLE deliveries ADD COLUMN leased_by INTEGER;
        CREATE INDEX deliveries_leased ON deliveries (leased_by) WHERE leased_by IS NOT NULL;
        UPDATE deliveries SET leased_until = NULL WHERE leased_until IS NOT NULL;
        CREATE TABLE cancel_requests (
            seq          INTEGER PRIMARY KEY,
            campaign_id  INTEGER NOT NULL REFERENCES campaigns (id),
            requested_at INTEGER NOT NULL,
            done_at      INTEGER
        );
        CREATE TABLE cancel_acks (
            seq       INTEGER NOT NULL,
            worker_id INTEGER NOT NULL,
            in_flight INTEGER NOT NULL,
            PRIMARY KEY (seq, worker_id)
        ) WITHOUT ROWID;
        """

    /// API keys for the HTTP API: only the SHA-256 hash of each secret (lowercase hex) is stored, never the secret.
    /// A revoked key's row is deleted, so its name can be used again. `scopes` is a comma-separated list in the
    /// order send, read, admin. `last_used_at` is written at most once a minute per key.
    private static let v4 = """
        CREATE TABLE api_keys (
            id           INTEGER PRIMARY KEY,
            name         TEXT    NOT NULL UNIQUE,
            secret_hash  TEXT    NOT NULL UNIQUE CHECK (length(secret_hash) = 64),
            scopes       TEXT    NOT NULL CHECK (scopes <> ''),
            created_at   INTEGER NOT NULL,
            last_used_at INTEGER
        );
        """

    /// The HTTP API's enqueues: a producer-chosen `apns-id` per notification (`campaigns.apns_id`), and idempotency
    /// keys. A key is scoped (`api:NAME` for an API key, `cli` for the command line), remembers the SHA-256 of the
    /// request it came with and what that request created (`campaign_ids`, comma-separated, and the deliveries of
    /// each), and is forgotten after 24 hours (`idempotency_by_age` finds the expired ones).
    private static let v5 = """
        ALTER TABLE campaigns ADD COLUMN apns_id TEXT;
        CREATE TABLE idempotency_keys (
            scope        TEXT    NOT NULL,
            key          TEXT    NOT NULL,
            request_hash TEXT    NOT NULL,
            campaign_ids TEXT    NOT NULL,
            deliveries   TEXT    NOT NULL,
            created_at   INTEGER NOT NULL,
            PRIMARY KEY (scope, key)
        ) WITHOUT ROWID;
        CREATE INDEX idempotency_by_age ON idempotency_keys (created_at);
        """

    /// The event feed and the webhook: one row per deactivation and per failed delivery, written in the
    /// transaction of the change. AUTOINCREMENT so that an id is never reused once pruned (a cursor past the
    /// last event stays valid); a single writer at a time makes ids increase in commit order. `webhook_cursor`
    /// holds one row: the last event the webhook acknowledged.
    private static let v6 = """
        CREATE TABLE events (
            id          INTEGER PRIMARY KEY AUTOINCREMENT,
            type        TEXT    NOT NULL CHECK (type = 'device.deactivated' OR type = 'delivery.failed'),
            token       TEXT    NOT NULL,
            topic       TEXT    NOT NULL,
            environment TEXT    NOT NULL,
            user_id     TEXT,
            reason      TEXT,
            campaign_id INTEGER,
            delivery_id INTEGER,
            at          INTEGER NOT NULL
        );
        CREATE TABLE webhook_cursor (
            id         INTEGER PRIMARY KEY CHECK (id = 1),
            event_id   INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        """

    /// Counters for `/metrics` that a scrape reads in O(1) instead of counting rows: pending deliveries by class
    /// (moved by the campaigns' own `pending` counters, which every write path already keeps, so a trigger fires
    /// once per campaign per batch, not per delivery) and devices by state (moved per device row).
    private static let v7 = """
        CREATE TABLE gauge_counts (
            name  TEXT    PRIMARY KEY,
            value INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO gauge_counts (name, value)
            SELECT 'pending.single', COALESCE(SUM(pending), 0) FROM campaigns WHERE kind = 'single'
            UNION ALL SELECT 'pending.bulk', COALESCE(SUM(pending), 0) FROM campaigns WHERE kind = 'bulk'
            UNION ALL SELECT 'devices.active', COUNT(*) FROM devices WHERE active = 1
            UNION ALL SELECT 'devices.inactive', COUNT(*) FROM devices WHERE active = 0;
        CREATE TRIGGER gauge_campaign_inserted AFTER INSERT ON campaigns WHEN new.pending <> 0 BEGIN
            UPDATE gauge_counts SET value = value + new.pending WHERE name = 'pending.' || new.kind;
        END;
        CREATE TRIGGER gauge_campaign_pending AFTER UPDATE OF pending ON campaigns WHEN new.pending <> old.pending BEGIN
            UPDATE gauge_counts SET value = value + new.pending - old.pending WHERE name = 'pending.' || new.kind;
        END;
        CREATE TRIGGER gauge_campaign_deleted AFTER DELETE ON campaigns WHEN old.pending <> 0 BEGIN
            UPDATE gauge_counts SET value = value - old.pending WHERE name = 'pending.' || old.kind;
        END;
        CREATE TRIGGER gauge_device_inserted AFTER INSERT ON devices BEGIN
            UPDATE gauge_counts SET value = value + 1 WHERE name = IIF(new.active = 1, 'devices.active', 'devices.inactive');
        END;
        CREATE TRIGGER gauge_device_state AFTER UPDATE OF active ON devices WHEN new.active <> old.active BEGIN
            UPDATE gauge_counts SET value = value + IIF(new.active = 1, 1, -1) WHERE name = 'devices.active';
            UPDATE gauge_counts SET value = value + IIF(new.active = 1, -1, 1) WHERE name = 'devices.inactive';
        END;
        CREATE TRIGGER gauge_device_deleted AFTER DELETE ON devices BEGIN
            UPDATE gauge_counts SET value = value - 1 WHERE name = IIF(old.active = 1, 'devices.active', 'devices.inactive');
        END;
        """

    /// Large API batches stored as one row each, their notifications written as campaigns by the worker (see
    /// `Store+Batches`). A batch's notifications take the ids `first_id ..< first_id + count` and its last one is
    /// a campaign row from the start, which keeps every later campaign id above the range. `cursor` counts the
    /// notifications already written as campaigns; the row is deleted when none is left. The triggers count the
    /// notifications still in the row as pending single sends.
    private static let v8 = """
        CREATE TABLE deferred_batches (
            first_id   INTEGER PRIMARY KEY,
            count      INTEGER NOT NULL CHECK (count > 0),
            cursor     INTEGER NOT NULL DEFAULT 0,
            offset     INTEGER NOT NULL DEFAULT 0,
            items      BLOB    NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TRIGGER gauge_batch_inserted AFTER INSERT ON deferred_batches BEGIN
            UPDATE gauge_counts SET value = value + new.count - new.cursor WHERE name = 'pending.single';
        END;
        CREATE TRIGGER gauge_batch_cursor AFTER UPDATE OF cursor ON deferred_batches BEGIN
            UPDATE gauge_counts SET value = value - (new.cursor - old.cursor) WHERE name = 'pending.single';
        END;
        CREATE TRIGGER gauge_batch_deleted AFTER DELETE ON deferred_batches BEGIN
            UPDATE gauge_counts SET value = value - (old.count - old.cursor) WHERE name = 'pending.single';
        END;
        """

    /// `apnsd log --attempts` and the log's new filters. Only answers that were retried are stored: a delivery's
    /// last answer is its own row (`http_status`, `reason`, `updated_at`), so a first-time 200 — nearly all of
    /// them — writes nothing here. Keyed by (delivery, attempt) without a rowid, so a delivery's history is one
    /// B-tree range, and deleted with its delivery. `deliveries_by_update` serves `--since`/`--until`/`--follow`
    /// (its key is a time, so it grows at its right end like the others); `deliveries_by_reason` serves
    /// `--reason`: only rows with a reason enter it, so a 200 never does.
    private static let v10 = """
        CREATE TABLE delivery_attempts (
            delivery_id INTEGER NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
            attempt     INTEGER NOT NULL,
            at          INTEGER NOT NULL,
            http_status INTEGER,
            reason      TEXT,
            PRIMARY KEY (delivery_id, attempt)
        ) WITHOUT ROWID;
        CREATE INDEX deliveries_by_update ON deliveries (updated_at);
        CREATE INDEX deliveries_by_reason ON deliveries (reason) WHERE reason IS NOT NULL;
        """

    /// `apnsd stats` and `GET /v1/stats` without scanning the log: outcomes counted per minute as they are written
    /// (one upsert per status and reason per written batch), and the events by time.
    private static let v11 = """
        CREATE TABLE outcome_counts (
            minute   INTEGER NOT NULL,
            status   TEXT    NOT NULL,
            reason   TEXT    NOT NULL,
            count    INTEGER NOT NULL,
            requests INTEGER NOT NULL,
            PRIMARY KEY (minute, status, reason)
        ) WITHOUT ROWID;
        CREATE INDEX events_by_time ON events (at);
        """

    /// `campaign pause` / `resume`: a paused campaign is not expanded and its pending deliveries are due at
    /// `Lease.pausedUntilResumed` (never, until resumed); the partial index lists the paused ones for workers.
    private static let v12 = """
        ALTER TABLE campaigns ADD COLUMN paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1));
        CREATE INDEX campaigns_paused ON campaigns (id) WHERE paused = 1;
        """

    /// `apnsd device verify`: a verify campaign is a bulk campaign (kind 'bulk', so every bulk rule and the bulk
    /// gauge apply) flagged here; the API and the CLI show its kind as `verify`.
    private static let v13 = """
        ALTER TABLE campaigns ADD COLUMN verify INTEGER NOT NULL DEFAULT 0 CHECK (verify IN (0, 1));
        """

    /// Live Activities: a device row's `kind` is `device` (every row before this migration), `activity` (the update
    /// token of one running activity) or `pushToStart` (the app's push-to-start token), with the activity type
    /// (ActivityAttributes name) of the two Live Activity kinds. Uniqueness stays (token, topic), the topic being
    /// the app's bundle id for every kind. `devices_by_activity` holds only active Live Activity tokens,
    /// for audiences by type. A campaign to an activity audience is stored as `all` or `users` with the type and
    /// kind of token it reaches (`audience_activity_type`, `audience_activity_kind`; both NULL otherwise).
    private static let v14 = """
        ALTER TABLE devices ADD COLUMN kind TEXT NOT NULL DEFAULT 'device'
            CHECK (kind = 'device' OR kind = 'activity' OR kind = 'pushToStart');
        ALTER TABLE devices ADD COLUMN activity_type TEXT CHECK ((activity_type IS NULL) = (kind = 'device'));
        CREATE INDEX devices_by_activity ON devices (topic, kind, activity_type, id) WHERE activity_type IS NOT NULL AND active = 1;
        ALTER TABLE campaigns ADD COLUMN audience_activity_type TEXT;
        ALTER TABLE campaigns ADD COLUMN audience_activity_kind TEXT
            CHECK ((audience_activity_kind IS NULL) = (audience_activity_type IS NULL)
                   AND (audience_activity_kind IS NULL OR audience_activity_kind = 'activity' OR audience_activity_kind = 'pushToStart'));
        """

    /// iOS 18 broadcast channels (`apnsd channel`): one row per channel APNs created, by a local number that a
    /// broadcast delivery can reference; `channel_id` as APNs gave it (base64, no length assumed), unique per
    /// environment (a channel belongs to one); `storage` the message storage policy (0 none, 1 latest);
    /// `credential` the name of the credential that made it. A deleted channel keeps its row with `deleted_at`.
    private static let v15 = """
        CREATE TABLE channels (
            id          INTEGER PRIMARY KEY,
            channel_id  TEXT    NOT NULL CHECK (channel_id <> ''),
            topic       TEXT    NOT NULL CHECK (topic <> ''),
            environment TEXT    NOT NULL CHECK (environment = 'production' OR environment = 'development'),
            storage     INTEGER NOT NULL CHECK (storage = 0 OR storage = 1),
            credential  TEXT    NOT NULL,
            created_at  INTEGER NOT NULL,
            deleted_at  INTEGER
        );
        CREATE UNIQUE INDEX channels_by_channel_id ON channels (channel_id, environment);
        CREATE INDEX channels_by_topic ON channels (topic, id);
        """

    /// Broadcasts (`apnsd send --channel`): a single-send campaign whose one delivery goes to a channel. Both rows
    /// name the channel's local number; the delivery's `token` holds the id APNs gave the channel (what is sent),
    /// with no device.
    private static let v16 = """
        ALTER TABLE campaigns ADD COLUMN channel_id INTEGER REFERENCES channels (id);
        ALTER TABLE deliveries ADD COLUMN channel_id INTEGER REFERENCES channels (id);
        """

    /// What tells whether a worker's process still lives, read from `/proc` when it starts: the host's boot id, the
    /// inode of its pid namespace, and its start time in clock ticks after boot. A worker on the same boot and pid
    /// namespace whose pid is gone, or is another process's, is dead at once. NULL in rows of older workers.
    private static let v17 = """
        ALTER TABLE workers ADD COLUMN boot_id TEXT;
        ALTER TABLE workers ADD COLUMN pid_namespace INTEGER;
        ALTER TABLE workers ADD COLUMN process_start INTEGER;
        """

    /// What the worker sees (WorkerView's JSON), written with its heartbeat.
    private static let v18 = """
        ALTER TABLE workers ADD COLUMN view TEXT;
        """

    /// When a pending delivery that a worker holds became due (`due_at`): set by the claim from `next_attempt_at`,
    /// kept while the row is leased, held through an outage or a paused credential, or released unsent; NULL
    /// otherwise (its `next_attempt_at` says when it is due). `deliveries_due_at` holds only the rows that have one,
    /// so the oldest due delivery of a class is two index reads, whatever the queue's size. Rows leased when this
    /// runs have none: they count from their release.
    private static let v19 = """
        ALTER TABLE deliveries ADD COLUMN due_at INTEGER;
        CREATE INDEX deliveries_due_at ON deliveries (priority_class, due_at) WHERE status = 'pending' AND due_at IS NOT NULL;
        """

    /// Idempotency keys belong to an API key's row id, never to its name: `api_keys` is rebuilt with AUTOINCREMENT so
    /// that an id is never given again (a key revoked and created again under its name is a new id), and
    /// `idempotency_keys.scope` (`api:NAME` or `cli`) becomes `api_key_id` (the key's id, 0 for the command line).
    /// A record of a name goes to the key of that name if it was made since that key was created; one older than the
    /// key, or of a name no key has, was made with a revoked key and is dropped (no key may see it).
    private static let v20 = """
        CREATE TABLE api_keys_by_id (
            id           INTEGER PRIMARY KEY AUTOINCREMENT,
            name         TEXT    NOT NULL UNIQUE,
            secret_hash  TEXT    NOT NULL UNIQUE CHECK (length(secret_hash) = 64),
            scopes       TEXT    NOT NULL CHECK (scopes <> ''),
            created_at   INTEGER NOT NULL,
            last_used_at INTEGER
        );
        INSERT INTO api_keys_by_id (id, name, secret_hash, scopes, created_at, last_used_at)
            SELECT id, name, secret_hash, scopes, created_at, last_used_at FROM api_keys;
        DROP TABLE api_keys;
        ALTER TABLE api_keys_by_id RENAME TO api_keys;

        CREATE TABLE idempotency_keys_by_id (
            api_key_id   INTEGER NOT NULL,
            key          TEXT    NOT NULL,
            request_hash TEXT    NOT NULL,
            campaign_ids TEXT    NOT NULL,
            deliveries   TEXT    NOT NULL,
            created_at   INTEGER NOT NULL,
            PRIMARY KEY (api_key_id, key)
        ) WITHOUT ROWID;
        INSERT INTO idempotency_keys_by_id (api_key_id, key, request_hash, campaign_ids, deliveries, created_at)
            SELECT 0, key, request_hash, campaign_ids, deliveries, created_at FROM idempotency_keys WHERE scope = 'cli';
        INSERT INTO idempotency_keys_by_id (api_key_id, key, request_hash, campaign_ids, deliveries, created_at)
            SELECT k.id, i.key, i.request_hash, i.campaign_ids, i.deliveries, i.created_at
            FROM idempotency_keys i JOIN api_keys k ON i.scope = 'api:' || k.name AND i.created_at >= k.created_at;
        DROP TABLE idempotency_keys;
        ALTER TABLE idempotency_keys_by_id RENAME TO idempotency_keys;
        CREATE INDEX idempotency_by_age ON idempotency_keys (created_at);
        """

    /// The webhook's failing batch and the batches it set aside. `webhook_failure` holds one row while a batch
    /// fails (its events at the last attempt, refused attempts, first failure, last error), so the count survives a
    /// restart and `apnsd webhook status` reads it; `webhook_parked` holds one row per batch parked after
    /// `webhook.maxAttempts` refusals and an hour of failing (its events stay in `events`: the cursor moved past
    /// them, so retention counts them acknowledged), until `apnsd webhook retry` delivers it.
    private static let v21 = """
        CREATE TABLE webhook_failure (
            id               INTEGER PRIMARY KEY CHECK (id = 1),
            first_event_id   INTEGER NOT NULL,
            last_event_id    INTEGER NOT NULL,
            events           INTEGER NOT NULL,
            attempts         INTEGER NOT NULL,
            first_failure_at INTEGER NOT NULL,
            last_error       TEXT    NOT NULL,
            updated_at       INTEGER NOT NULL
        );
        CREATE TABLE webhook_parked (
            id               INTEGER PRIMARY KEY,
            first_event_id   INTEGER NOT NULL,
            last_event_id    INTEGER NOT NULL CHECK (last_event_id >= first_event_id),
            events           INTEGER NOT NULL,
            attempts         INTEGER NOT NULL,
            first_failure_at INTEGER NOT NULL,
            parked_at        INTEGER NOT NULL,
            last_error       TEXT    NOT NULL
        );
        """

    /// A bulk campaign's outcomes per minute, status and reason (`GET /v1/stats/series?campaign=`), counted as they
    /// are written (one upsert per outcome per written batch), so that its chart and its reasons never scan its
    /// deliveries.
    private static let v22 = """
        CREATE TABLE campaign_outcome_counts (
            campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
            minute      INTEGER NOT NULL,
            status      TEXT    NOT NULL,
            reason      TEXT    NOT NULL,
            count       INTEGER NOT NULL,
            requests    INTEGER NOT NULL,
            PRIMARY KEY (campaign_id, minute, status, reason)
        ) WITHOUT ROWID;
        """

    /// A big `device import` links users once, at its end, in user order (`device_users_pending`): linking each
    /// transaction's devices as it went put random keys all over `device_users`, whose pages every commit wrote
    /// again. A waiting link is dropped with the same triggers that drop a link, so that applying it later never
    /// links a device that has since changed user or gone.
    private static let v23 = """
        CREATE TABLE device_users_pending (
            device_id INTEGER PRIMARY KEY,
            user_id   TEXT    NOT NULL
        );
        DROP TRIGGER devices_user_changed;
        DROP TRIGGER devices_deleted;
        CREATE TRIGGER devices_user_changed AFTER UPDATE OF user_id ON devices
            WHEN OLD.user_id IS NOT NULL AND OLD.user_id IS NOT NEW.user_id
        BEGIN
            DELETE FROM device_users WHERE user_id = OLD.user_id AND device_id = OLD.id;
            DELETE FROM device_users_pending WHERE device_id = OLD.id;
        END;
        CREATE TRIGGER devices_deleted AFTER DELETE ON devices WHEN OLD.user_id IS NOT NULL
        BEGIN
            DELETE FROM device_users WHERE user_id = OLD.user_id AND device_id = OLD.id;
            DELETE FROM device_users_pending WHERE device_id = OLD.id;
        END;
        """

    /// A row a worker leases leaves `deliveries_due` instead of moving to its far end: the claim deletes one key
    /// instead of deleting one and inserting another, and the record that ends the lease touches the index no more.
    /// Leased rows were never due (`next_attempt_at` = `Lease.heldByOwner`), so every query of the index says
    /// `leased_by IS NULL` and finds what it found before.
    private static let v24 = """
        DROP INDEX deliveries_due;
        CREATE INDEX deliveries_due ON deliveries (priority_class, next_attempt_at)
            WHERE status = 'pending' AND leased_by IS NULL;
        """

    /// A bulk campaign's audience not expanded yet, counted before its first page (`ExpansionCounts`): `total` and
    /// `pending` include it. NULL: never counted (a single send; a campaign whose expansion began before this).
    private static let v25 = """
        ALTER TABLE campaigns ADD COLUMN unexpanded INTEGER;
        """
}
