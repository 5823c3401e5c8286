"""aioapns_peer — the peer row of `Benchmarks/run endtoend`: aioapns 4.0 sending to apns-mock.

Sends one notification to each token of a file, as apnsd's worker does with a campaign, over CONNECTIONS
connections with INFLIGHT requests in flight on each, and prints "sent N accepted A seconds S".

aioapns has no setting for its host: its protocol classes name api.push.apple.com on port 443, so they are
pointed at apns-mock here. Everything else is aioapns's own: its pool, its JWT (ES256 from the same .p8), its h2.

  aioapns_peer.py URL CA-FILE KEY-FILE KEY-ID TEAM-ID TOPIC TOKEN-FILE CONNECTIONS INFLIGHT
"""

import asyncio
import ssl
import sys
import time
import urllib.parse

from aioapns import APNs, NotificationRequest
from aioapns import connection as aioapns_connection


async def main() -> int:
    url, ca_file, key_file, key_id, team_id, topic, token_file, connections, inflight = sys.argv[1:10]
    address = urllib.parse.urlsplit(url)
    for protocol in (aioapns_connection.APNsProductionClientProtocol,
                     aioapns_connection.APNsDevelopmentClientProtocol):
        protocol.APNS_SERVER = address.hostname
        protocol.APNS_PORT = address.port
    with open(key_file) as f:
        key = f.read()
    with open(token_file) as f:
        tokens = [line.split(",")[0].strip() for line in f if line.strip()]

    # One client of one connection each: aioapns's own pool opens a second connection only once the first holds
    # the server's whole stream limit (1000), which is never the case at INFLIGHT requests each.
    clients = []
    for _ in range(int(connections)):
        context = ssl.create_default_context(cafile=ca_file)
        clients.append(APNs(key=key, key_id=key_id, team_id=team_id, topic=topic, max_connections=1,
                            use_sandbox=False, ssl_context=context))
    accepted = 0
    position = 0

    async def sender(client: APNs) -> None:
        nonlocal accepted, position
        while position < len(tokens):
            token = tokens[position]
            position += 1
            request = NotificationRequest(device_token=token, message={"aps": {"alert": "bench"}})
            result = await client.send_notification(request)
            if result.is_successful:
                accepted += 1

    started = time.monotonic()
    await asyncio.gather(*(sender(client) for client in clients for _ in range(int(inflight))))
    seconds = time.monotonic() - started
    print(f"sent {len(tokens)} accepted {accepted} seconds {seconds:.3f}")
    return 0 if accepted == len(tokens) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
