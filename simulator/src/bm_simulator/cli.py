"""bm-simulator: simulated transport-stream analyzers and FM monitors on loopback addresses.

    bm-simulator fleet --ts N --fm M --inventory PATH [options]   a fleet in factory state
    bm-simulator twin BACKUP... --inventory PATH [options]   one twin per device_backup file
    bm-simulator bundle --version V --out FILE [--model M] [--tamper ...]   a test firmware bundle
    bm-simulator show-bundle FILE   a bundle's version and target, and whether devices accept it

Each command's --help lists its options.
"""

import argparse
import asyncio
import logging
import os
import signal
import sys

from . import core, swu, twin
from .fleet import Fleet, loopback_addresses, port_is_bindable

FALLBACK_PORT = 8080


FLEET_HELP = """Start N analyzers and M FM monitors in factory state on consecutive loopback addresses
from --address, all on --port; write an Ansible inventory of them to --inventory, print
"ready: K devices" and serve until SIGINT or SIGTERM."""


TWIN_HELP = """Start one twin per device_backup file (formats broadcast.monitoring.backup/1 and /2): a
simulated unit of the backup's device type, in the backed-up state (configuration, network
identity, hostname, time and logging settings; model, serial number and firmware version), on
consecutive loopback addresses from --address, all on --port. The inventory names each twin after
its file (<host>.json gives host <host>), in the groups ts_analyzers and fm_monitors, so the
unit's own group_vars and host_vars apply. Inputs receive their streams and enabled tuners on a
frequency of the station list lock, except where the backup's snapshot saw no signal. Twins
start with the factory passwords (admin/admin, user/user): backups hold no password. Prints
"ready: K devices" and serves until SIGINT or SIGTERM."""


def add_fleet_arguments(parser):
    parser.add_argument("--ts", type=int, default=0, help="number of transport-stream analyzers")
    parser.add_argument("--fm", type=int, default=0, help="number of FM monitors")
    add_serving_arguments(parser)
    add_variant_arguments(parser)
    parser.add_argument("--fm-conf", choices=("complete", "partial"), default="complete",
                        help="what an FM monitor's GET /conf carries (its structure is not shown): everything, or "
                             "no log settings and no per-tuner hw_settings, thresholds and schedule, which are then "
                             "set only through their own endpoints (default %(default)s)")


def add_twin_arguments(parser):
    parser.add_argument("backups", nargs="+", metavar="BACKUP",
                        help="a device_backup file, <host>.json (one twin each, in this order)")
    add_serving_arguments(parser)
    add_variant_arguments(parser)
    # A backup holds every field the unit gave, those no document names too: the unit keeps
    # them, so its twin does (README, "Twins").
    parser.set_defaults(unknown_fields="keep")


def add_serving_arguments(parser):
    """Where the devices listen and where their inventory goes: every command that serves."""
    parser.add_argument("--inventory", required=True, help="where to write the Ansible YAML inventory")
    parser.add_argument("--address", default="127.0.10.1", help="first loopback address (default %(default)s)")
    parser.add_argument("--port", type=int, default=80, help="port on every address (default %(default)s)")
    parser.add_argument("--time-scale", type=float, default=1.0, help="multiplies every device delay")
    parser.add_argument("--state-dir", help="persist each device's state as JSON here")


def add_variant_arguments(parser):
    """The behaviours the interface documents leave open, and test conditions (faults, seed)."""
    parser.add_argument("--faults", help="fault rules: TARGET:KIND[,key=value...] separated by ';'")
    parser.add_argument("--seed", type=int, default=0, help="seed for simulated measurements and faults")
    parser.add_argument("--ts-upgrade", choices=("reboots", "pending"), default="reboots",
                        help="what an analyzer does after an accepted firmware upload (its document leaves it open): "
                             "reboot into it at once, or keep running with reboot_needed until rebooted "
                             "(default %(default)s; FM monitors always keep running, as their document says)")
    parser.add_argument("--ts-role-denied", type=int, choices=(403, 401), default=403,
                        help="status an analyzer gives a user token on an admin route (default %(default)s)")
    parser.add_argument("--unknown-fields", choices=("refuse", "keep"), default="refuse",
                        help="what a device does with a field it does not know in a body (the documents do not "
                             "say): refuse it with 400, or keep it and return it in the reads (default %(default)s)")
    parser.add_argument("--shape", choices=core.SHAPES, default="documented",
                        help="how answers are shaped where the documents leave it open: as documented, with a field"
                             " no document names in every object, with every array in another order, without null"
                             " fields, with the other field names of the notes, with a schedule's events of a day"
                             " in another order, or with the analyzer's DNS servers named dns_servers (default"
                             " %(default)s)")
    parser.add_argument("--bundle-target", choices=("ignored", "checked"), default="ignored",
                        help="whether a device refuses a firmware bundle whose hardware-compatibility names other "
                             "models (the documents do not say): install any signed bundle, or check (default "
                             "%(default)s)")
    parser.add_argument("--factory-reset-firmware", choices=("kept", "factory"), default="kept",
                        help="the firmware a device runs after a factory reset (the documents say a reset restores "
                             "the default configuration, address and credentials, not what of the firmware): the "
                             "one it had installed, or the factory version 1.0.0 (default %(default)s)")


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="bm-simulator", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    fleet = sub.add_parser("fleet", help="serve a fleet in factory state", description=FLEET_HELP)
    add_fleet_arguments(fleet)
    twins = sub.add_parser("twin", help="serve a twin of each backed-up device", description=TWIN_HELP)
    add_twin_arguments(twins)
    bundle = sub.add_parser("bundle", help="build a test firmware bundle (.swu)", description=swu.BUILD_HELP)
    swu.add_build_arguments(bundle)
    show = sub.add_parser("show-bundle", help="print a bundle's version and whether the devices accept it",
                          description=swu.SHOW_HELP)
    show.add_argument("path", help="the bundle file")
    args = parser.parse_args(argv)
    if args.command == "fleet":
        check_fleet_args(parser, args)
    if args.command == "twin":
        check_twin_args(parser, args)
    return args


def check_twin_args(parser, args):
    if args.time_scale <= 0:
        parser.error("--time-scale must be > 0")
    try:
        args.twins = [twin.read_backup(path) for path in args.backups]
        loopback_addresses(args.address, len(args.twins))
    except ValueError as err:
        parser.error(str(err))
    # a twin saves its state as <host>.json in --state-dir: never onto the backup it was given
    for path, (host, _doc) in zip(args.backups, args.twins):
        state = os.path.join(args.state_dir, "%s.json" % host) if args.state_dir else None
        if state and os.path.exists(state) and os.path.samefile(state, path):
            parser.error("%s: the twin's state file in --state-dir would be this backup (read as saved state and"
                         " overwritten): give --state-dir a folder of its own" % path)
    args.ts = args.fm = 0
    args.fm_conf = "complete"


def check_fleet_args(parser, args):
    if args.ts < 0 or args.fm < 0 or args.ts + args.fm == 0:
        parser.error("--ts and --fm must be >= 0 and start at least one device")
    if args.time_scale <= 0:
        parser.error("--time-scale must be > 0")
    try:
        loopback_addresses(args.address, args.ts + args.fm)
    except ValueError as err:
        parser.error(str(err))


async def serve(args):
    port = args.port
    if not port_is_bindable(args.address, port):
        print(
            "simulator: cannot bind port %d on %s (needs root or is taken); using port %d instead"
            % (port, args.address, FALLBACK_PORT),
            file=sys.stderr,
        )
        port = FALLBACK_PORT
    fleet = Fleet(
        ts=args.ts, fm=args.fm, address=args.address, port=port, time_scale=args.time_scale,
        state_dir=args.state_dir, faults=args.faults, seed=args.seed, ts_upgrade=args.ts_upgrade,
        ts_role_denied=args.ts_role_denied,
        unknown_fields=args.unknown_fields, fm_conf=args.fm_conf, shape=args.shape,
        bundle_target=args.bundle_target, twins=getattr(args, "twins", ()),
        factory_reset_firmware=args.factory_reset_firmware,
    )
    try:
        await fleet.start()
    except ValueError:  # a backup a twin could not take
        await fleet.stop()
        raise
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):  # before "ready": a caller may stop it at once
        loop.add_signal_handler(sig, stopping.set)
    fleet.write_inventory(args.inventory)
    print("ready: %d devices" % len(fleet.devices), flush=True)
    await stopping.wait()
    await fleet.stop()


def main(argv=None):
    logging.basicConfig(level=logging.WARNING, format="simulator: %(message)s")
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "bundle":
        return swu.build_command(args)
    if args.command == "show-bundle":
        return swu.show_command(args.path)
    try:
        asyncio.run(serve(args))
    except ValueError as err:  # a bad --faults spec, a backup a twin could not take
        print("simulator: %s" % err, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
