import Intake

/// The help texts, one per command, in the style of swift-argument-parser.
enum Help {
    /// Derived from `Configuration.settings`, the one declaration of every setting.
    static let settings: String = {
        var lines = [
            "SETTINGS (config file → APNSD_* environment → flags):",
            "  --config PATH            JSON config file (or APNSD_CONFIG; ./apnsd.json when present)",
        ]
        for setting in Configuration.settings {
            let name = "--\(setting.flag) \(setting.value)"
            let padded = name.count < 25 ? name + String(repeating: " ", count: 25 - name.count) : name + " "
            let defaultText = setting.defaultValue == "none" ? "" : "; default \(setting.defaultValue)"
            lines.append("  \(padded)\(setting.help.replacingOccurrences(of: "`", with: ""))")
            lines.append("                           \(setting.key), \(setting.environment)\(defaultText)")
        }
        for list in Configuration.listSettings {
            lines.append("  \(list.key) (config file only): \(list.help.replacingOccurrences(of: "`", with: ""))")
        }
        return lines.joined(separator: "\n")
    }()

    /// A command's words as a key of `commands`: `device add` when that has an entry of its own, else the command.
    static func path(of words: [String]) -> String {
        guard let command = words.first, !command.hasPrefix("-") else { return "" }
        if words.count > 1, commands["\(command) \(words[1])"] != nil { return "\(command) \(words[1])" }
        return command
    }

    /// What `apnsd <path> --help` prints: the command's text, then any option its parser accepts (`options`,
    /// from its `Arguments` declaration) that the text does not describe — so an option added to a command is
    /// never missing from its help (a test keeps that line empty) — then the settings.
    static func text(for path: String, accepting options: Set<String>) -> String? {
        guard let text = commands[path] ?? commands[String(path.prefix { $0 != " " })] else { return nil }
        var parts = [text]
        let undescribed = options.subtracting(Configuration.flagNames).sorted().filter { !text.contains("--\($0)") }
        if !undescribed.isEmpty {
            parts.append("OPTIONS NOT DESCRIBED ABOVE: " + undescribed.map { "--\($0)" }.joined(separator: ", "))
        }
        parts.append(settings)
        return parts.joined(separator: "\n\n")
    }

    /// `apnsd --version`: one line.
    static let version = "apnsd \(BuildInfo.version) (\(BuildInfo.description))"

    static let main = """
        OVERVIEW: apnsd — a push dispatch service for Apple devices.

        USAGE: apnsd <command> [options]

        COMMANDS:
          init                     Create or migrate the database.
          device add|remove|import|list|verify
                                   Register, remove (deactivate) and list devices; import a token file; check devices
                                   with a silent push (dead tokens are deactivated).
          send                     Enqueue one notification (ahead of bulk work); prints its id.
          campaign create|list|show|watch|pause|resume|cancel|retry
                                   Bulk campaigns: all devices, some users, or a token file; now or later.
          cancel ID                Cancel a campaign or a single send (by the id 'send' printed).
          worker                   Send what is due (--until-idle: exit when done). Several may share a database.
          serve                    The HTTP API and a worker in one process (--no-worker: the API only).
          workers                  The workers on this database, their heartbeats and leases.
          status                   Workers and what they see of APNs, credentials, the queue, the webhook.
          log                      The delivery log.
          stats                    Outcomes by status and reason, request rates, deactivations, the queue.
          backup PATH              A consistent copy of the database, taken while workers run.
          migrate                  Copy a SQLite database into PostgreSQL (--from PATH --to URL), for several hosts.
          prune                    Delete old deliveries and stale devices (retention.*); campaigns keep their counts.
          config check             Load the settings and the key, mint a token, resolve the APNs hosts; exit 0/1.
          api-key create|list|revoke
                                   Keys for the HTTP API: a secret printed once, only its hash stored.
          channel create|list|show|delete
                                   iOS 18 broadcast channels (Live Activities), at APNs and in a local table.
          webhook status|retry     The webhook's backlog, failing batch and parked batches; send parked ones again.

        Run 'apnsd <command> --help' (e.g. 'apnsd device add --help') for a command's options;
        'apnsd --version' for the version and build.

        \(settings)

        EXIT CODES: 0 success, 64 usage error, 1 any other failure (one line on stderr).
        """

    static let commands: [String: String] = [
        "init": """
        OVERVIEW: Create the database, or bring its schema up to date. Safe to run again.

        USAGE: apnsd init [--database PATH] [--group NAME]

          --group NAME   Share the database with the users of group NAME, so that producers and the worker may
                         run as different users: its directory (created if missing) becomes group NAME, mode
                         2770 (setgid: the -wal and -shm files SQLite creates there get the group), the database
                         file group NAME, mode 0660. An existing directory is changed only if it holds nothing
                         but the database. Run it as root, or as the owner and a member of NAME.
        """,
        "prune": PruneCommand.help,
        "migrate": MigrateCommand.help,
        "backup": """
        OVERVIEW: Write a consistent copy of the database to PATH while workers and the API keep running
        (SQLite's online backup: one snapshot, a single file). PATH must not exist; the copy is created 0600.

        USAGE: apnsd backup PATH [--json]

        RESTORE: stop every apnsd process using the database, move the database and its -wal and -shm files
        aside, copy the backup in their place with the same owner and mode (chown/chmod as the original), then
        start apnsd again; it migrates the copy if it is older.

        EXAMPLE:
          apnsd backup /var/backups/apnsd-$(date +%F).sqlite
        """,
        "stats": """
        OVERVIEW: What happened in a window: outcomes by status and reason (retry: answers tried again), APNs
        requests and accepted deliveries per second, devices deactivated by reason, and the queue now. Read from
        per-minute counters and indexes: as fast on millions of deliveries as on ten.

        USAGE: apnsd stats [--since 1h] [--campaign ID] [--json]

          --since T      a duration back from now (90m, 24h, 7d) or an ISO 8601 time; default 1h. Whole minutes:
                         the window may start up to a minute earlier.
          --campaign ID  only that campaign: final outcomes of its deliveries written in the window.
          --json         the same object as GET /v1/stats.
        """,
        "config": """
        OVERVIEW: The settings.

        USAGE:
          apnsd config check ...   Load the settings and the key, mint a token, resolve the hosts; exit 0/1.

        Run 'apnsd config check --help' for its options.
        """,
        "config check": """
        OVERVIEW: Check the settings before a deploy: loads them (file → environment → flags), loads the key and
        mints a provider token, resolves the APNs hosts (push and channel management), opens the database
        read-only, checks the CA file and the API's listen address and TLS files. One line per check; never prints
        the key or a token.

        USAGE: apnsd config check [--json]

          Exit 0 when every check passed, 1 when one failed (64 for a bad setting, as every command).
        """,
        "device": """
        OVERVIEW: The device registry.

        USAGE:
          apnsd device add TOKEN ...       Register or re-register a device (--replaces OLD after a reinstall).
          apnsd device remove TOKEN ...    Deactivate a device, or every device of a user (reason Removed).
          apnsd device import FILE|- ...   Register the devices of a token file.
          apnsd device list ...            List devices.
          apnsd device verify ...          A silent push to each device: dead tokens are deactivated.

        Run 'apnsd device <subcommand> --help' for its options.

        EXAMPLES:
          apnsd device add 3f2a…c9 --topic com.example.app --user 42
          cut -d, -f1,2 tokens.csv | apnsd device import - --topic com.example.app
        """,
        "device add": """
        OVERVIEW: Register or re-register a device (refreshes its registration time, reactivates it).

        USAGE: apnsd device add TOKEN [--topic T] [--environment production|development] [--user ID] [--replaces OLD]
                                [--kind device|activity|pushToStart --activity-type T]

          --topic T          the app's bundle id (default: apns.topic)
          --environment E    production (default) or development
          --user ID          the user the device belongs to ('send --user', 'campaign create --user')
          --replaces OLD     the app got TOKEN in place of OLD (reinstall, restore): OLD is deactivated (reason
                             Replaced) and TOKEN keeps OLD's user unless --user is given
          --kind K           device (default), activity (the update token of one running Live Activity) or
                             pushToStart (the app's push-to-start token); every kind is registered under the
                             app's bundle id (a .push-type.liveactivity suffix given is dropped)
          --activity-type T  the ActivityAttributes type name: required with --kind activity or pushToStart,
                             refused otherwise ('campaign create --activity-type T' sends to these tokens)

          Registering a token again for the same topic updates it, its kind and activity type included.

        EXAMPLES:
          apnsd device add 3f2a…c9 --topic com.example.app --user 42
          apnsd device add 80c1…7e --topic com.example.app --kind activity --activity-type DeliveryAttributes --user 42
        """,
        "device remove": """
        OVERVIEW: Deactivate a device, or every device of a user (signed out everywhere, or erased), with reason
        Removed and its event, as DELETE /v1/devices/{token} and DELETE /v1/users/{user}/devices do.

        USAGE: apnsd device remove TOKEN [--topic T] | --user ID

          --topic T          which registration, when TOKEN is registered for several topics
          --user ID          every active device of this user

        EXAMPLE:
          apnsd device remove --user 42
        """,
        "device verify": """
        OVERVIEW: Before a large campaign: a background push (content-available, priority 5) to each device,
        through the queue as a campaign of kind verify (durable, cancellable, watchable) at the worker's rate;
        410 and 400 answers deactivate devices as usual. Prints the campaign id, waits for it to end and prints
        the counts.

        USAGE: apnsd device verify (--all | --user ID ... | --tokens FILE) [--topic T] [--environment E]
                                   [--at ISO8601|now] [--idempotency-key K] [--no-wait] [--json]

          --all | --user ID ... | --tokens FILE
                             the devices: every active one, those of some users, or a file of tokens
          --topic T          the app's bundle id (default: apns.topic)
          --environment E    only devices of this environment (for --tokens: the unregistered tokens' one)
          --at ISO8601|now   from then on (default: now; more than 5 minutes past is refused)
          --idempotency-key K  a rerun prints the first run's id and queues nothing
          --no-wait          print the id and return at once
          --json             the campaign when it ends, as 'campaign show --json'

        EXAMPLE:
          apnsd device verify --all --topic com.example.app && apnsd campaign create --all --payload @promo.json
        """,
        "device import": """
        OVERVIEW: Register the devices of a file (or stdin): lines 'token[,user[,environment]]'. Bad lines are
        reported with their numbers, good ones imported.

        USAGE: apnsd device import FILE|- [--topic T] [--environment E] [--kind K --activity-type T]

          --topic T          the app's bundle id (default: apns.topic)
          --environment E    for lines that name none: production (default) or development
          --kind K           every line's kind: device (default), activity or pushToStart ('device add --help')
          --activity-type T  every line's activity type: required with --kind activity or pushToStart

        EXAMPLE:
          cut -d, -f1,2 tokens.csv | apnsd device import - --topic com.example.app
        """,
        "device list": """
        OVERVIEW: The registered devices.

        USAGE: apnsd device list [--active|--inactive] [--user ID] [--kind device|activity|pushToStart] [--json]

          --user ID          only this user's devices
          --kind K           only tokens of this kind
          Aligned columns: TOKEN, TOPIC, ENV, KIND, ACTIVITY (the activity type), USER, ACTIVE, REASON, REGISTERED.
          JSON Lines with --json: token, topic, environment, user, active, registeredAt, deactivatedAt, reason,
          kind, activityType.
        """,
        "send": """
        OVERVIEW: Validate and enqueue one notification; print its id. Goes ahead of campaigns.

        USAGE: apnsd send TOKEN|--user ID|--channel ID --payload JSON|@FILE [--topic T] [--push-type P]
                          [--priority 10|5|1] [--expiration EPOCH] [--collapse-id ID] [--apns-id UUID]
                          [--environment E] [--idempotency-key K]
          --channel ID         an iOS 18 broadcast on a channel (its number from `apnsd channel list`, or the id
                               APNs gave it): a Live Activity update or end, payload up to 5120 bytes, priority
                               10, 5 or 1; topic and environment are the channel's; a channel that stores no
                               message takes expiration 0 (sent as 0 when left out)
          --idempotency-key K  a rerun with the same key and the same notification prints the first id and
                               enqueues nothing (keys are remembered 24 h); another notification is refused

        A Live Activity push (--push-type liveactivity, priority 10 or 5) must carry an aps that ActivityKit can
        use — event start|update|end, timestamp in seconds, content-state, and for a start alert, attributes-type
        and attributes (README, "Live Activities"); a broken one is refused before anything is stored.

        EXAMPLES:
          apnsd send 3f2a…c9 --topic com.example.app --payload '{"aps":{"alert":"Your order shipped"}}'
          apnsd send 8c4d…a2 --topic com.example.app --push-type liveactivity --priority 5 --payload @update.json
            (update.json: {"aps":{"event":"update","timestamp":1765000600,"content-state":{"score":"1-0"}}})
          apnsd send --channel 3 --priority 5 --payload @update.json
        """,
        "campaign": """
        OVERVIEW: Bulk campaigns.

        USAGE:
          apnsd campaign create ...   Queue a notification for all devices, some users, or a token file.
          apnsd campaign list         The campaigns (single sends included), filtered by kind and status.
          apnsd campaign show ID      One campaign's counts.
          apnsd campaign watch ID     Its progress until it ends (bar and ETA, or JSON lines).
          apnsd campaign pause ID     Stop sending it without losing its place ('resume ID' goes on).
          apnsd campaign cancel ID    Stop it and cancel what is still pending.
          apnsd campaign retry ID     Requeue its failed or rejected deliveries.

        Run 'apnsd campaign <subcommand> --help' for its options.

        EXAMPLE:
          id=$(apnsd campaign create --all --topic com.example.app --payload @promo.json --at 2027-01-15T09:00:00Z)
        """,
        "campaign create": """
        OVERVIEW: Queue a bulk campaign; print its id alone on stdout.

        USAGE: apnsd campaign create --payload JSON|@FILE (--all | --user ID ... | --tokens FILE
                                     | --activity-type T [--kind activity|pushToStart] [--user ID ...]) [--topic T]
                                     [--environment E] [--push-type P] [--priority N] [--expiration EPOCH]
                                     [--collapse-id ID] [--apns-id UUID] [--at ISO8601|now] [--idempotency-key K]
                                     [--dry-run]

          --all | --user ID ... | --tokens FILE
                               the audience: every active device, those of some users, or a file of tokens
                               (--all and --user reach devices of kind device only, never Live Activity tokens)
          --activity-type T    the audience: the Live Activity tokens registered for activity type T under the
                               topic's bundle id (of the users given with --user); needs --push-type liveactivity
          --kind K             with --activity-type: activity (default: update tokens of running activities) or
                               pushToStart (push-to-start tokens: the push starts an activity)
          --at ISO8601|now     send from then on (default: now); a time more than 5 minutes past is refused
          --idempotency-key K  a rerun (a cron job's retry) prints the first run's id and creates nothing
          --dry-run            print how many devices it would reach, by environment, as JSON
                               ({"dryRun":true,"audience":{"production":N,"development":M}}); write nothing

        EXAMPLES:
          id=$(apnsd campaign create --all --topic com.example.app --payload @promo.json --at 2027-01-15T09:00:00Z)
          apnsd campaign create --activity-type DeliveryAttributes --push-type liveactivity --topic com.example.app \\
              --payload @update.json
        """,
        "campaign list": """
        OVERVIEW: The campaigns, newest first: every kind (single sends are campaigns too) and status unless
        filtered.

        USAGE: apnsd campaign list [--kind single|bulk|verify] [--status S] [--limit N] [--json]

          --kind K           only single sends, bulk campaigns, or verify campaigns ('device verify')
          --status S         draft, scheduled, running, completed or cancelled
          --limit N          the newest N
        """,
        "campaign watch": """
        OVERVIEW: A campaign's progress until it ends: on a terminal a line redrawn in place (bar, percent, counts,
        rate, ETA), otherwise one JSON line per interval. Exit 0 when it completes, 1 when it was cancelled or
        deliveries failed.

        USAGE: apnsd campaign watch ID [--interval SECONDS] [--json]

          --interval S       seconds between looks (default 1)
          --json             JSON lines even on a terminal
        """,
        "campaign pause": """
        OVERVIEW: Stop sending a running or scheduled bulk campaign without losing its place: workers release what
        they hold of it (requests already on a connection finish); 'campaign resume ID' goes on where it stopped.

        USAGE: apnsd campaign pause ID [--json]
        """,
        "campaign resume": """
        OVERVIEW: Go on with a paused campaign where it stopped: its held deliveries are due at once, in order.

        USAGE: apnsd campaign resume ID [--json]
        """,
        "campaign show": """
        OVERVIEW: One campaign: its audience, status and counts by delivery status.

        USAGE: apnsd campaign show ID [--json]
        """,
        "campaign cancel": """
        OVERVIEW: Cancel a campaign. Every running worker stops sending it first; then its pending deliveries
        become cancelled. Prints how many were cancelled and how many had already been sent (their answer is
        logged).

        USAGE: apnsd campaign cancel ID [--json]
        """,
        "campaign retry": """
        OVERVIEW: Requeue a campaign's failed (default) or rejected deliveries, attempts reset.

        USAGE: apnsd campaign retry ID [--status failed|rejected] [--json]
        """,
        "worker": """
        OVERVIEW: Send what is due: claim, sign, send over pooled HTTP/2 connections, record outcomes.

        USAGE: apnsd worker [--until-idle] [--json] [--worker-listen HOST:PORT]

          --worker-listen HOST:PORT
                         Serve GET /metrics (this worker's series and the database's gauges), /healthz
                         and /readyz (database, worker) there, as serve does; no API key is asked, so
                         keep it on loopback (another address draws a warning). The first stdout line
                         is 'listening on http://HOST:PORT' (port 0: the port the kernel picked).
          --until-idle   Exit once nothing is due within the retry cap (pending retries are waited for;
                         campaigns scheduled later are left for a later run). Prints a summary.
                         Leases of other workers: a dead one's (same host boot and pid namespace, its
                         pid gone or another process's) are taken over at once and sent; a silent
                         one's (no heartbeat for 2 x worker.heartbeat) when its worker.lease runs out;
                         a live one's are left to it, one line each before the summary:
                         'N deliveries are being sent by worker ID (HOST, PID)' (--json: heldElsewhere).
          SIGHUP         Read the settings and the key file again: a new key (another key id, team or key
                         material), retry.* and log.level apply at once; the log names what else changed and
                         needs a restart. Settings that do not load change nothing.
          SIGINT/SIGTERM stop claiming, take back what has not been written to APNs, finish what has,
                         record it and exit. While the database refuses writes the worker keeps its outcomes
                         and retries; a second signal makes it exit anyway (those are sent again later).
          Exit 1 with --until-idle when APNs stayed unreachable longer than retry.cap: the work stays
          pending with its attempts unspent.
        """,
        "serve": """
        OVERVIEW: The HTTP API and, unless --no-worker, a worker (the one 'apnsd worker' runs) in one process.

        USAGE: apnsd serve [--no-worker] [--listen HOST:PORT] [--tls-cert PEM --tls-key PEM]

          --no-worker    The API only; run 'apnsd worker' separately.
          The first line on stdout is 'listening on http://HOST:PORT' (https with a certificate): with
          port 0 it names the port the kernel picked. Plain HTTP on an address other than loopback logs a
          warning (serve.plain_http): put TLS in front, or set api.tlsCert and api.tlsKey.
          Webhook        With webhook.url, events are POSTed there, signed (X-Apnsd-Signature: t=…,v1=…);
                         'apnsd webhook status' shows what waits and what was parked.
          GET /healthz   200 {"status": "ok"} while the process runs.
          GET /readyz    Whether this process can do its job now (for a load balancer): 200 when the
                         database is writable and answers and the worker (if any) runs; else 503
                         {"status": "unready", "checks": {NAME: "ok" | REASON}}; checks: database, worker.
          GET /v1/status APNs reachability, credentials, workers, the queue: 'apnsd status --json'.
          GET /metrics   Prometheus text format.
          Access log     One api.request line per request on stderr (method, route template, status,
                         duration_ms, api_key name, replay), whatever --log-level says; --api-access-log false
                         (api.accessLog, APNSD_API_ACCESS_LOG) turns it off.
          SIGINT/SIGTERM stop accepting, finish open requests (up to 10 s), drain the worker, exit 0.
          SIGHUP         Reload the worker's key, retry.* and log.level, as 'apnsd worker' does; the topics
                         the API accepts and channel management follow the credentials reloaded (with
                         --no-worker, the credentials are all that is reloaded).

        EXAMPLES:
          apnsd serve --listen 127.0.0.1:8080
          apnsd serve --no-worker --listen '[::1]:0' --tls-cert server.pem --tls-key server.key
          curl -s http://127.0.0.1:8080/readyz
        """,
        "status": """
        OVERVIEW: What GET /v1/status answers, from any process that reaches the database: the database
        check; each worker (id, host, pid, heartbeatAge, leases, state: sending, waiting or stale) and why
        it waits; APNs per environment and the credentials as the live workers last reported them (each
        worker stores its view with its heartbeat); pending deliveries and the oldest due one's age by
        class; paused campaigns; the webhook's backlog (lastError: only serve's GET /v1/status knows it;
        'apnsd webhook status' shows the stored one and the parked batches).

        USAGE: apnsd status [--json]

          --json         The JSON object, as GET /v1/status (scope read) answers it.
        """,
        "workers": """
        OVERVIEW: The workers registered on this database: id, host, pid, start, last heartbeat, leases held.
        A worker whose heartbeat is older than worker.lease is stale: the next worker takes its leases over.
        A worker on this host's boot and pid namespace whose process is gone is dead ("dead": true in
        --json): the next worker that looks takes its leases over at once.

        USAGE: apnsd workers [--json]
        """,
        "cancel": """
        OVERVIEW: Cancel a campaign or a single send (the id 'apnsd send' printed). Same as 'campaign cancel'.

        USAGE: apnsd cancel ID [--json]
        """,
        "log": """
        OVERVIEW: The delivery log, oldest first; the filters combine, each through an index.

        USAGE: apnsd log [--campaign ID] [--token TOKEN] [--user ID] [--status S] [--reason R] [--since T]
                         [--until T] [--limit N] [--follow] [--attempts] [--json]

          --status S     pending, accepted, rejected, unregistered, failed, cancelled
          --reason R     an APNs reason, such as BadDeviceToken or Unregistered
          --user ID      the deliveries to a user's devices
          --since T      rows changed since T: a duration back from now (90m, 24h, 7d) or an ISO 8601 time
          --until T      rows changed before T (same forms); not with --follow
          --limit N      the newest N (printed oldest first)
          --follow       keep printing rows as they change, like tail -f; SIGINT/SIGTERM end it (exit 0)
          --attempts     under each row, every answer APNs gave it (a 429 and a 503 before its 200)
          JSON Lines with --json: id, campaign, token, status, httpStatus, reason, apnsId, attempts, updatedAt
          (ids are JSON strings), and with --attempts an "answers" array.
        """,
        "webhook": """
        OVERVIEW: The webhook (webhook.url): what waits for it and what it set aside. A batch the receiver
        refuses webhook.maxAttempts times, and that has failed for at least an hour, is parked: later events go
        on, and its events stay readable through GET /v1/events while events are kept.

        USAGE:
          apnsd webhook status [--json]   The backlog (events not yet acknowledged), the batch failing now with
                                          its last error, and the parked batches.
          apnsd webhook retry             POST every parked batch once more, signed afresh: they arrive after
                                          later events (out of order). Delivered ones are no longer parked;
                                          exit 1 when the receiver refused one again.

          --json         One object: url (without query), backlog, lastError, failing, parked, parkedEvents.
        """,
        "api-key": """
        OVERVIEW: Keys for the HTTP API (every /v1 request sends 'Authorization: Bearer SECRET').

        USAGE:
          apnsd api-key create NAME [--scope S]...   A new key; its secret printed once.
          apnsd api-key list                         The keys, never a secret.
          apnsd api-key revoke NAME                  The key stops working at once.

        Run 'apnsd api-key <subcommand> --help' for its options.

        EXAMPLES:
          apnsd api-key create backend > backend.secret
          apnsd api-key create ops --scope read --scope admin
          apnsd api-key revoke backend
        """,
        "api-key create": """
        OVERVIEW: Create an HTTP API key. Prints the new secret alone on stdout, once: the database keeps only
        its SHA-256 hash.

        USAGE: apnsd api-key create NAME [--scope send|read|admin]...

          NAME      1-64 characters of A-Z a-z 0-9 . _ -
          --scope   send (enqueue and cancel notifications, register and remove devices), read (every GET),
                    admin (campaigns: create, cancel, retry; broadcast channels: create, delete).
                    Without --scope: send and read.

        EXAMPLES:
          apnsd api-key create backend > backend.secret
          apnsd api-key create ops --scope read --scope admin
        """,
        "api-key list": """
        OVERVIEW: The API keys: name, scopes, creation and last use (recorded at most once a minute); never a
        secret.

        USAGE: apnsd api-key list [--json]

          JSON Lines with --json: name, scopes (an array), createdAt, lastUsedAt.
        """,
        "api-key revoke": """
        OVERVIEW: Delete an API key: it stops working at once, and its name may be used again.

        USAGE: apnsd api-key revoke NAME
        """,
        "channel": """
        OVERVIEW: iOS 18 broadcast channels for Live Activities, over Apple's channel management API
        (apns.channelProductionURL / apns.channelDevelopmentURL), authenticated with the credential that sends
        the bundle id (apns.credentials topics) and kept in the local 'channels' table too.

        USAGE:
          apnsd channel create --topic BUNDLE [--storage none|latest] [--environment E]
          apnsd channel list [--topic BUNDLE [--environment E]] [--deleted] [--json]
          apnsd channel show ID [--json]
          apnsd channel delete ID

        ID is the local number 'create' printed, or the channel id APNs gave (base64).
        Run 'apnsd channel <subcommand> --help' for its options.

        EXAMPLES:
          apnsd channel create --topic com.example.scores --storage none
          apnsd channel list --topic com.example.scores
          apnsd channel delete 3
        """,
        "channel create": """
        OVERVIEW: Create a broadcast channel at APNs, then record it locally (nothing is recorded when APNs
        refuses: its reason is printed, exit 1).

        USAGE: apnsd channel create --topic BUNDLE [--storage none|latest] [--environment E] [--json]

          --topic         the app's bundle id, without a .push-type. suffix (default: apns.topic)
          --storage       latest (default): APNs keeps the most recent message (message-storage-policy 1);
                          none: nothing is kept (policy 0), a larger publishing budget, broadcasts need
                          expiration 0. The policy cannot change later.
          --environment   production (default) or development; a channel belongs to one environment
          --json          the new channel as JSON: id, channelId, topic, environment, storage,
                          messageStoragePolicy, credential, createdAt, deletedAt

        EXAMPLES:
          apnsd channel create --topic com.example.scores
          apnsd channel create --topic com.example.scores --storage none --environment development
        """,
        "channel list": """
        OVERVIEW: The channels recorded locally (not deleted ones unless --deleted). With --topic, APNs's list of
        that app's channels is read too (in --environment, or in each environment the app has channels in;
        production when none) and a last column says whether APNs lists each one ("missing": deleted elsewhere);
        channels APNs lists that are not recorded here are shown as "not recorded".

        USAGE: apnsd channel list [--topic BUNDLE [--environment E]] [--deleted] [--json]

          --topic         only this app's channels, compared with APNs
          --environment   with --topic: compare in this environment only
          --deleted       also the channels deleted with 'channel delete' (their rows are kept)
          --json          JSON Lines as 'channel create --json'; with --topic also atAPNs (true/false), and
                          channels only APNs knows as {"id":null,"channelId",…,"atAPNs":true}
        """,
        "channel show": """
        OVERVIEW: One channel: the local row, and its storage policy as APNs reads it now (not asked for a
        deleted channel). An APNs error (ChannelNotRegistered…) is printed with its reason, exit 1.

        USAGE: apnsd channel show ID [--json]

          ID       the local number or the APNs channel id
          --json   as 'channel create --json', plus apnsStorage (none, latest, or null when deleted)
        """,
        "channel delete": """
        OVERVIEW: Delete a channel at APNs, then mark its local row deleted (kept for the log; 'channel list
        --deleted' shows it). Messages APNs holds already are not discarded.

        USAGE: apnsd channel delete ID

          ID   the local number or the APNs channel id
        """,
    ]
}
