"""Firmware bundles (.swu) for the simulated devices: build, read, verify.

A bundle is a ``newc`` cpio archive: ``sw-description`` first (libconfig text carrying the
software ``version`` and the sha256 of each image), then ``sw-description.sig``, then the
images. The simulated devices trust one test key, derived here from a fixed seed so that no
private key file is shipped; "signed" means an Ed25519 signature of ``sw-description`` by it.

    bm-simulator bundle --version 2.4.1 --out fw.swu [--model ts_analyzer|fm_monitor|NAME ...]
                        [--no-target] [--unsigned|--wrong-key|--tamper]
    bm-simulator show-bundle fw.swu

The bundle's target is SWUpdate's ``hardware-compatibility`` list in ``sw-description``: the
models it is made for. By default a test bundle names every simulated model (one bundle for
the whole test fleet); ``--model`` (repeatable; a device type stands for its model) names
only those, and ``--no-target`` leaves the list out.
"""

import argparse
import hashlib
import re
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

DESCRIPTION = "sw-description"
SIGNATURE = "sw-description.sig"
IMAGE = "rootfs.img"
_TRUSTED = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"broadcast.monitoring simulator test key").digest())
_UNTRUSTED = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"somebody else's key").digest())
VERSION_RE = re.compile(rb'\bversion\s*=\s*"([^"]+)"')
TARGET_RE = re.compile(rb'\bhardware-compatibility\s*[:=]\s*\[([^\]]*)\]')
#: the model each simulated device type reports (ts.py's GET /system/device ``model``,
#: fm.py's GET /status ``versions.model_name``)
MODELS = {"ts_analyzer": "TSA-4", "fm_monitor": "FMM-8 FM Monitoring Receiver"}


class BundleError(ValueError):
    """The bundle is not one the device accepts; the message says why."""


def _pad(length):
    return b"\0" * ((4 - length % 4) % 4)


def cpio_member(name, data, ino):
    encoded = name.encode() + b"\0"
    fields = [ino, 0o100644, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(encoded), 0]
    header = b"070701" + b"".join(b"%08X" % f for f in fields)
    return header + encoded + _pad(len(header) + len(encoded)) + data + _pad(len(data))


def cpio_pack(members):
    out = b"".join(cpio_member(name, data, i + 1) for i, (name, data) in enumerate(members))
    out += cpio_member("TRAILER!!!", b"", 0)
    return out + b"\0" * ((512 - len(out) % 512) % 512)


def cpio_unpack(blob):
    """[(name, data), ...] of a newc archive; BundleError when it is not one."""
    members, pos = [], 0
    while True:
        header = blob[pos:pos + 110]
        if len(header) < 110 or header[:6] not in (b"070701", b"070702"):
            raise BundleError("not a newc cpio archive (bad header at byte %d)" % pos)
        try:
            size, namesize = int(header[54:62], 16), int(header[94:102], 16)
        except ValueError:
            raise BundleError("corrupt cpio header at byte %d" % pos) from None
        name_start = pos + 110
        name = blob[name_start:name_start + namesize - 1].decode("utf-8", "replace")
        data_start = name_start + namesize + len(_pad(110 + namesize))
        data = blob[data_start:data_start + size]
        if len(data) < size:
            raise BundleError("truncated cpio member %s" % name)
        pos = data_start + size + len(_pad(size))
        if name == "TRAILER!!!":
            return members
        members.append((name, data))


def models_of(model):
    """The target list for ``model``: None (every simulated model), a name or device type,
    or a list of them; ``[]`` for no target."""
    if model is None:
        return list(MODELS.values())
    names = [model] if isinstance(model, str) else list(model)
    return [MODELS.get(name, name) for name in names]


def description(version, image, target=None):
    compatible = ('\thardware-compatibility: [ %s ];\n' % ", ".join('"%s"' % name for name in target)
                  if target else "")
    return (
        'software =\n{\n\tversion = "%s";\n\tdescription = "broadcast.monitoring simulator firmware";\n%s'
        '\timages: (\n\t\t{\n\t\t\tfilename = "%s";\n\t\t\tsha256 = "%s";\n\t\t}\n\t);\n}\n'
        % (version, compatible, IMAGE, hashlib.sha256(image).hexdigest())
    ).encode()


def build(version, unsigned=False, wrong_key=False, tamper=False, model=None):
    """A bundle of ``version`` for ``model`` (see ``models_of``; ``[]``: a bundle naming no model)."""
    image = ("simulated root filesystem %s\n" % version).encode() * 64
    desc = description(version, image, models_of(model))
    members = [(DESCRIPTION, desc)]
    if not unsigned:
        members.append((SIGNATURE, (_UNTRUSTED if wrong_key else _TRUSTED).sign(desc)))
    if tamper:
        image = image.replace(b"simulated", b"SIMULATED", 1)
    members.append((IMAGE, image))
    return cpio_pack(members)


def read_version(blob):
    members = cpio_unpack(blob)
    if not members or members[0][0] != DESCRIPTION:
        raise BundleError("first member of the bundle must be sw-description")
    match = VERSION_RE.search(members[0][1])
    if not match:
        raise BundleError("sw-description carries no version")
    return match.group(1).decode()


def read_target(blob):
    """The models the bundle's ``hardware-compatibility`` lists name; [] when it has none."""
    found = []
    for listed in TARGET_RE.findall(cpio_unpack(blob)[0][1]):
        found += [name.decode() for name in re.findall(rb'"([^"]*)"', listed)]
    return found


def verify(blob, model=None):
    """The bundle's version when the device would install it; BundleError otherwise. With
    ``model`` (a device that checks the target), a bundle whose target names other models
    is refused; one that names none is installed."""
    members = cpio_unpack(blob)
    version = read_version(blob)
    files = dict(members)
    desc = files[DESCRIPTION]
    if SIGNATURE not in files:
        raise BundleError("bundle is not signed (no sw-description.sig)")
    try:
        _TRUSTED.public_key().verify(files[SIGNATURE], desc)
    except InvalidSignature:
        raise BundleError("signature of sw-description does not verify against the device key") from None
    for name, digest in re.findall(rb'filename = "([^"]+)";\s*sha256 = "([0-9a-f]+)"', desc):
        data = files.get(name.decode())
        if data is None or hashlib.sha256(data).hexdigest().encode() != digest:
            raise BundleError("image %s does not match its checksum (altered bundle)" % name.decode())
    target = read_target(blob)
    if model is not None and target and model not in target:
        raise BundleError("bundle is for %s, not for this %s" % (", ".join(target), model))
    return version


BUILD_HELP = """Write a test firmware bundle: a newc cpio archive with sw-description (carrying
--version and the models it is for), its Ed25519 signature by the simulator's test key, and an
image. The simulated devices install it; --unsigned, --wrong-key and --tamper make bundles they
refuse. Test bundles only: no real device trusts the simulator's key."""

SHOW_HELP = "Print a bundle's version and the models it is for, and whether the simulated devices accept it."


def add_build_arguments(parser):
    parser.add_argument("--version", required=True, help="the firmware version the bundle installs")
    parser.add_argument("--out", required=True, help="the bundle file to write")
    aim = parser.add_mutually_exclusive_group()
    aim.add_argument("--model", action="append",
                     help="a model the bundle is for (repeatable; ts_analyzer or fm_monitor stand for the simulated"
                          " models %s); default: every simulated model" % ", ".join(MODELS.values()))
    aim.add_argument("--no-target", action="store_true", help="no hardware-compatibility list: names no model")
    bad = parser.add_mutually_exclusive_group()
    bad.add_argument("--unsigned", action="store_true", help="no signature (refused)")
    bad.add_argument("--wrong-key", action="store_true", help="signed by an untrusted key (refused)")
    bad.add_argument("--tamper", action="store_true", help="image altered after signing (refused)")


def build_command(args):
    with open(args.out, "wb") as handle:
        handle.write(build(args.version, args.unsigned, args.wrong_key, args.tamper,
                           model=[] if args.no_target else args.model))
    return 0


def show_command(path):
    with open(path, "rb") as handle:
        blob = handle.read()
    try:
        version = verify(blob)
        print("version %s, for %s, accepted" % (version, ", ".join(read_target(blob)) or "no model named"))
    except BundleError as err:
        print("refused: %s" % err)
        return 1
    return 0


def main(argv=None):
    """``python -m bm_simulator.swu build|show``: the bundle commands of bm-simulator, as before."""
    parser = argparse.ArgumentParser(prog="python -m bm_simulator.swu")
    sub = parser.add_subparsers(dest="command", required=True)
    add_build_arguments(sub.add_parser("build", help="build a test bundle", description=BUILD_HELP))
    sub.add_parser("show", help=SHOW_HELP, description=SHOW_HELP).add_argument("path")
    args = parser.parse_args(argv)
    if args.command == "build":
        return build_command(args)
    return show_command(args.path)


if __name__ == "__main__":
    sys.exit(main())
