"""Fake devices that misbehave on purpose, for the hostile-device tests (issue 24): an
analyzer that names its files to lead out of ``dest``, a device that answers one byte every
half second, and TLS endpoints with certificates that must be refused.

These are not the simulator: the simulator follows the interface documents, these break them
the way a compromised or broken device on a site network could. Each serves on its own
loopback address in 127.77.0.0/16 (never anything else), from a thread with its own event loop.
"""

import asyncio
import contextlib
import datetime
import ipaddress
import random
import threading

from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

TOKEN = "hostile-device-token"


def loopback_address():
    """A random address in 127.77.0.0/16 (the range for servers tests start by hand)."""
    rng = random.SystemRandom()
    return "127.77.%d.%d" % (rng.randint(1, 254), rng.randint(1, 254))


class Served:
    """A server running in a thread: ``address``, ``port``, and ``requests`` (method, path) it received."""

    def __init__(self, address):
        self.address = address
        self.port = None
        self.requests = []
        self.loop = asyncio.new_event_loop()


@contextlib.contextmanager
def serving(start, address=None):
    """Run ``start(served)`` (a coroutine that starts a server on ``served.address`` and
    returns its port and a coroutine function that stops it) in a thread; yield ``served``."""
    served = Served(address or loopback_address())
    ready = threading.Event()
    holder = {}

    def run():
        asyncio.set_event_loop(served.loop)
        try:
            served.port, holder["stop"] = served.loop.run_until_complete(start(served))
        except Exception as err:  # reported to the test
            holder["error"] = err
            ready.set()
            return
        ready.set()
        served.loop.run_forever()
        served.loop.run_until_complete(holder["stop"]())
        served.loop.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(30)
    if "error" in holder:
        raise holder["error"]
    try:
        yield served
    finally:
        served.loop.call_soon_threadsafe(served.loop.stop)
        thread.join(30)


# -- an analyzer that names files to lead out of dest ------------------------------------------
def hostile_analyzer_app(served, file_names, input_id):
    """The few analyzer endpoints the download operations use, with the capture files
    ``file_names`` listed on its card and one input ``Mux 1`` whose id is ``input_id``."""

    @web.middleware
    async def log(request, handler):
        served.requests.append((request.method, request.path))
        return await handler(request)

    async def login(request):
        return web.json_response({"role": "admin", "token": TOKEN})

    async def files(request):
        return web.json_response({"files": [{"filename": name, "size": 4, "timestamp": "2026-11-21T10:00:00Z",
                                             "recording": False} for name in file_names]})

    async def status(request):
        return web.json_response({"status": "ok", "total_mb": 1000, "used_mb": 1, "recording": None})

    async def download_token(request):
        return web.json_response({"token": "one-time"})

    async def download(request):
        return web.Response(body=b"evil", content_type="application/octet-stream")

    async def inputs(request):
        return web.json_response([{"id": input_id, "name": "Mux 1", "state": "ok",
                                   "config": {"asi": {"port": 1}}, "alerts_config": {"profile_id": 1}}])

    async def alerts_csv(request):
        return web.Response(text="error,start\n", content_type="text/csv")

    app = web.Application(middlewares=[log])
    app.router.add_post("/api/user/login", login)
    app.router.add_post("/api/sdcard/status", status)
    app.router.add_post("/api/sdcard/files", files)
    app.router.add_get("/api/sdcard/download_token", download_token)
    app.router.add_get("/api/sdcard/download", download)
    app.router.add_get("/api/inputs", inputs)
    app.router.add_get("/api/inputs/{id}/alerts/download", alerts_csv)
    return app


def app_server(make_app, ssl_context=None):
    """A ``serving`` start function for an aiohttp application ``make_app(served)``."""

    async def start(served):
        runner = web.AppRunner(make_app(served), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, served.address, 0, ssl_context=ssl_context)
        await site.start()
        return runner.addresses[0][1], runner.cleanup

    return start


# -- a device that answers one byte every half second ------------------------------------------
DRIP_ANSWER = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n"
               + b'{"role": "admin", "token": "' + b"x" * 34 + b'"}')


def slow_drip_server(interval=0.5, limit=120):
    """A ``serving`` start function: every connection gets a complete, valid HTTP answer,
    one byte every ``interval`` seconds, repeated; after ``limit`` bytes the connection is
    closed (so that a client without an overall deadline ends some day, and a test of it
    fails instead of hanging)."""

    handlers = set()

    async def handle(reader, writer):
        handlers.add(asyncio.current_task())
        try:
            await reader.readuntil(b"\r\n\r\n")
            for index in range(limit):
                writer.write(DRIP_ANSWER[index % len(DRIP_ANSWER):][:1])
                await writer.drain()
                await asyncio.sleep(interval)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.CancelledError):
            pass
        finally:
            writer.close()
            handlers.discard(asyncio.current_task())

    async def start(served):
        server = await asyncio.start_server(handle, served.address, 0)

        async def stop():
            server.close()
            for task in list(handlers):
                task.cancel()
            await asyncio.gather(*handlers, return_exceptions=True)
            await server.wait_closed()

        return server.sockets[0].getsockname()[1], stop

    return start


# -- certificates ------------------------------------------------------------------------------
def _name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def make_ca(folder, name="test CA"):
    """A CA (key, certificate) and its certificate file in ``folder``."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(_name(name)).issuer_name(_name(name))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=30)).not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), True)
            .sign(key, hashes.SHA256()))
    path = folder / ("%s.pem" % name.replace(" ", "-"))
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key, cert, str(path)


def make_device_cert(folder, ca, address, expired=False):
    """A device certificate for ``address`` (an IP address) signed by ``ca``; its chain and
    key files in ``folder``, as (cert_file, key_file)."""
    ca_key, ca_cert, unused = ca
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    start, end = (now - datetime.timedelta(days=20), now - datetime.timedelta(days=10)) if expired else (
        now - datetime.timedelta(days=1), now + datetime.timedelta(days=10))
    cert = (x509.CertificateBuilder().subject_name(_name("device %s" % address)).issuer_name(ca_cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(end)
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(address))]), False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), True)
            .sign(ca_key, hashes.SHA256()))
    stem = "device-%s%s" % (address, "-expired" if expired else "")
    cert_file, key_file = folder / (stem + ".pem"), folder / (stem + ".key")
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_file), str(key_file)
