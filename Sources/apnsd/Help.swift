import Intake

/// The help texts, one per command, in the style of swift-argument-parser.
enum Help {
    /// Derived from `Configuration.settings`, the one declaration of every setting.
    static let settings: String = {
        var lines = ["SETTINGS (config file → APNSD_* environment → flags):",
                     "  --config PATH            JSON config file (or APNSD_CONFIG; ./apnsd.json when present)"]
        for setting in Configuration.settings {
            let name = "--\(setting.flag) \(setting.value)"
            let padded = name.count < 25 ? name + String(repeating: " ", count: 25 - name.count) : name + " "
            let defaultText = setting.defaultValue == "none" ? "" : "; default \(setting.defaultValue)"
            lines.append("  \(padded)\(setting.help.replacingOccurrences(of: "`", with: ""))")
            lines.append("                           \(setting.key), \(setting.environment)\(defaultText)")
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
      device add|import|list   Register devices, import a token file, list devices.
      send                     Enqueue one notification (ahead of bulk work); prints its id.
      campaign create|list|show|cancel|retry
                               Bulk campaigns: all devices, some users, or a token file; now or later.
      cancel ID                Cancel a campaign or a single send (by the id 'send' printed).
      worker                   Send what is due (--until-idle: exit when done). Several may share a database.
      serve                    The HTTP API and a worker in one process (--no-worker: the API only).
      workers                  The workers on this database, their heartbeats and leases.
      log                      The delivery log.
      api-key create|list|revoke
                               Keys for the HTTP API: a secret printed once, only its hash stored.

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
        "device": """
        OVERVIEW: The device registry.

        USAGE:
          apnsd device add TOKEN ...       Register or re-register a device.
          apnsd device import FILE|- ...   Register the devices of a token file.
          apnsd device list ...            List devices.

        Run 'apnsd device <subcommand> --help' for its options.

        EXAMPLES:
          apnsd device add 3f2a…c9 --topic com.example.app --user 42
          cut -d, -f1,2 tokens.csv | apnsd device import - --topic com.example.app
        """,
        "device add": """
        OVERVIEW: Register or re-register a device (refreshes its registration time, reactivates it).

        USAGE: apnsd device add TOKEN [--topic T] [--environment production|development] [--user ID]

          --topic T          the app's bundle id (default: apns.topic)
          --environment E    production (default) or development
          --user ID          the user the device belongs to ('send --user', 'campaign create --user')

        EXAMPLE:
          apnsd device add 3f2a…c9 --topic com.example.app --user 42
        """,
        "device import": """
        OVERVIEW: Register the devices of a file (or stdin): lines 'token[,user[,environment]]'. Bad lines are
        reported with their numbers, good ones imported.

        USAGE: apnsd device import FILE|- [--topic T] [--environment E]

          --topic T          the app's bundle id (default: apns.topic)
          --environment E    for lines that name none: production (default) or development

        EXAMPLE:
          cut -d, -f1,2 tokens.csv | apnsd device import - --topic com.example.app
        """,
        "device list": """
        OVERVIEW: The registered devices.

        USAGE: apnsd device list [--active|--inactive] [--json]

          JSON Lines with --json: token, topic, environment, user, active, registeredAt, deactivatedAt, reason.
        """,
        "send": """
        OVERVIEW: Validate and enqueue one notification; print its id. Goes ahead of campaigns.

        USAGE: apnsd send TOKEN|--user ID --payload JSON|@FILE [--topic T] [--push-type P] [--priority 10|5|1]
                          [--expiration EPOCH] [--collapse-id ID] [--apns-id UUID] [--environment E]
                          [--idempotency-key K]
          --idempotency-key K  a rerun with the same key and the same notification prints the first id and
                               enqueues nothing (keys are remembered 24 h); another notification is refused

        EXAMPLE:
          apnsd send 3f2a…c9 --topic com.example.app --payload '{"aps":{"alert":"Your order shipped"}}'
        """,
        "campaign": """
        OVERVIEW: Bulk campaigns.

        USAGE:
          apnsd campaign create ...   Queue a notification for all devices, some users, or a token file.
          apnsd campaign list         The campaigns (single sends included).
          apnsd campaign show ID      One campaign's counts.
          apnsd campaign cancel ID    Stop it and cancel what is still pending.
          apnsd campaign retry ID     Requeue its failed or rejected deliveries.

        Run 'apnsd campaign <subcommand> --help' for its options.

        EXAMPLE:
          id=$(apnsd campaign create --all --topic com.example.app --payload @promo.json --at 2026-12-01T09:00:00Z)
        """,
        "campaign create": """
        OVERVIEW: Queue a bulk campaign; print its id alone on stdout.

        USAGE: apnsd campaign create --payload JSON|@FILE (--all | --user ID ... | --tokens FILE) [--topic T]
                                     [--environment E] [--push-type P] [--priority N] [--expiration EPOCH]
                                     [--collapse-id ID] [--apns-id UUID] [--at ISO8601] [--idempotency-key K]

          --all | --user ID ... | --tokens FILE
                               the audience: every active device, those of some users, or a file of tokens
          --at ISO8601         send from then on (default: now)
          --idempotency-key K  a rerun (a cron job's retry) prints the first run's id and creates nothing

        EXAMPLE:
          id=$(apnsd campaign create --all --topic com.example.app --payload @promo.json --at 2026-12-01T09:00:00Z)
        """,
        "campaign list": """
        OVERVIEW: The campaigns, single sends included.

        USAGE: apnsd campaign list [--json]
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

        USAGE: apnsd worker [--until-idle] [--json]

          --until-idle   Exit once nothing is due within the retry cap (pending retries are waited for;
                         campaigns scheduled later are left for a later run). Prints a summary.
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
          port 0 it names the port the kernel picked.
          GET /healthz   200 {"status": "ok"} while the process runs.
          GET /readyz    200 when the database is writable and the worker (if any) runs; else 503
                         {"status": "unready", "checks": {NAME: "ok" | REASON}}.
          GET /metrics   Prometheus text format.
          SIGINT/SIGTERM stop accepting, finish open requests (up to 10 s), drain the worker, exit 0.

        EXAMPLES:
          apnsd serve --listen 127.0.0.1:8080
          apnsd serve --no-worker --listen '[::1]:0' --tls-cert server.pem --tls-key server.key
          curl -s http://127.0.0.1:8080/readyz
        """,
        "workers": """
        OVERVIEW: The workers registered on this database: id, host, pid, start, last heartbeat, leases held.
        A worker whose heartbeat is older than worker.lease is stale: the next worker takes its leases over.

        USAGE: apnsd workers [--json]
        """,
        "cancel": """
        OVERVIEW: Cancel a campaign or a single send (the id 'apnsd send' printed). Same as 'campaign cancel'.

        USAGE: apnsd cancel ID [--json]
        """,
        "log": """
        OVERVIEW: The delivery log, oldest first.

        USAGE: apnsd log [--campaign ID] [--token TOKEN] [--status S] [--json]

          status: pending, accepted, rejected, unregistered, failed, cancelled
          JSON Lines with --json: id, campaign, token, status, httpStatus, reason, apnsId, attempts, updatedAt
          (ids are JSON strings).
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
                    admin (campaigns: create, cancel, retry). Without --scope: send and read.

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
    ]
}
