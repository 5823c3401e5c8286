#!/usr/bin/env python3
"""Benchmarks/frontdoor.py: hostile clients against a running `apnsd serve`, and what a fresh client sees meanwhile.

    frontdoor.py slowloris URL N            N sockets trickle a request head, one header line every 5 s
    frontdoor.py longpoll URL N KEY         N keep-alive GET /v1/events?wait=12 with a read key
    frontdoor.py declare URL N PID          N unauthenticated POSTs declaring a 64 MiB body and sending 1 byte

The hostile sockets come from 127.0.0.1, the fresh client from 127.0.0.2 (another client address, as an attacker's and
a user's would be). slowloris and longpoll keep their sockets for PHASE seconds (50), the trickle going on in a thread
of its own, while a fresh client asks GET /healthz again and again (30 s timeout each; a timeout counts as 30); they
print the median and worst wait, and how many hostile sockets the server had closed (or answered) by the end. declare
prints serve's VmRSS and VmSize (address space) before and 3 s after, and how many of the POSTs were answered. One
`key value` line each, for Benchmarks/run.
"""
import os
import resource
import select
import socket
import statistics
import sys
import threading
import time
from urllib.parse import urlparse

PROBE_TIMEOUT = 30.0
PHASE = 50.0
HOSTILE_SOURCE = "127.0.0.1"
PROBE_SOURCE = "127.0.0.2"


def address(url):
    parsed = urlparse(url)
    return parsed.hostname, parsed.port


def connect(host, port):
    sock = socket.create_connection((host, port), timeout=10, source_address=(HOSTILE_SOURCE, 0))
    sock.setblocking(False)
    return sock


def probe(host, port):
    """Seconds until GET /healthz answers (its status line read), or PROBE_TIMEOUT."""
    started = time.monotonic()
    try:
        with socket.create_connection((host, port), timeout=PROBE_TIMEOUT, source_address=(PROBE_SOURCE, 0)) as sock:
            sock.settimeout(max(0.1, PROBE_TIMEOUT - (time.monotonic() - started)))
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
            if not sock.recv(64).startswith(b"HTTP/1.1 200"):
                return PROBE_TIMEOUT
    except OSError:
        return PROBE_TIMEOUT
    return time.monotonic() - started


def closed_by_server(sockets):
    """How many of the sockets the server has closed (EOF or reset); drains what they were sent."""
    closed = 0
    for sock in sockets:
        try:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                while True:
                    data = sock.recv(65536)
                    if not data:
                        closed += 1
                        break
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    return closed


def probes(host, port, hostile, started):
    """Probes /healthz until PHASE seconds after `started`, then reports."""
    times = []
    while time.monotonic() - started < PHASE or not times:
        times.append(probe(host, port))
        time.sleep(0.5)
    print(f"healthz_median {statistics.median(times):.3f}")
    print(f"healthz_max {max(times):.3f}")
    print(f"probes {len(times)}")
    print(f"closed {closed_by_server(hostile)}")
    print(f"hostile {len(hostile)}")


def open_many(host, port, count):
    opened = []
    for _ in range(count):
        try:
            opened.append(connect(host, port))
        except OSError:
            break
    return opened


def slowloris(url, count):
    host, port = address(url)
    started = time.monotonic()
    sockets = open_many(host, port, count)
    for sock in sockets:
        try:
            sock.send(b"GET /healthz HTTP/1.1\r\nHost: bench\r\n")
        except OSError:
            pass
    done = threading.Event()

    def trickle():
        while not done.wait(5):
            for sock in sockets:
                try:
                    sock.send(b"X-Trickle: 1\r\n")
                except OSError:
                    pass

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    time.sleep(1)
    probes(host, port, sockets, started)
    done.set()


def longpoll(url, count, key):
    host, port = address(url)
    started = time.monotonic()
    sockets = open_many(host, port, count)
    request = f"GET /v1/events?wait=12 HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {key}\r\n\r\n".encode()
    for sock in sockets:
        try:
            sock.send(request)
        except OSError:
            pass
    time.sleep(1)
    probes(host, port, sockets, started)


def memory(pid):
    values = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, rest = line.partition(":")
            if name in ("VmRSS", "VmSize", "VmHWM"):
                values[name] = int(rest.split()[0]) // 1024
    return values


def declare(url, count, pid):
    host, port = address(url)
    before = memory(pid)
    sockets = open_many(host, port, count)
    head = (
        b"POST /v1/notifications/batch HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        b"Content-Length: 67108864\r\n\r\n{"
    )
    for sock in sockets:
        try:
            sock.send(head)
        except OSError:
            pass
    time.sleep(3)
    after = memory(pid)
    answered = 0
    for sock in sockets:
        try:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable and sock.recv(64).startswith(b"HTTP/1.1 "):
                answered += 1
        except OSError:
            pass
    print(f"rss_before_mib {before.get('VmRSS', 0)}")
    print(f"rss_after_mib {after.get('VmRSS', 0)}")
    print(f"vmsize_before_mib {before.get('VmSize', 0)}")
    print(f"vmsize_after_mib {after.get('VmSize', 0)}")
    print(f"answered {answered}")
    print(f"hostile {len(sockets)}")


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    mode, url, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "slowloris":
        slowloris(url, count)
    elif mode == "longpoll":
        longpoll(url, count, sys.argv[4])
    elif mode == "declare":
        declare(url, count, int(sys.argv[4]))
    else:
        sys.exit(f"frontdoor.py: unknown mode {mode!r} (slowloris, longpoll or declare)")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
