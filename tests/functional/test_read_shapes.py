"""Issue 19: READ_SHAPES, what each device file declares it reads of each answer (and what
device_compatibility reports against), holds every field the readers actually use. The
modules run with BROADCAST_MONITORING_READ_AUDIT set, which makes every answer record the
top-level fields read of it (shapes.AuditedAnswer): first the example inventory's whole
state through device_state (so every list has objects to read), then every module's
documented examples in check mode, against each device type. A field read of a declared
answer that the declaration does not name is a reader the compatibility report cannot
vouch for."""

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api as fm_device
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_device
from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import READ_AUDIT

from .conftest import EXAMPLE_VARS, connection, example_state, module_examples
from .test_direct_execution import examples_for

DEVICE = {"ts_analyzer": ts_device, "fm_monitor": fm_device}


def declared_fields(declared):
    return set(declared.required + declared.optional) | {
        alias for names in declared.aliases.values() for alias in names}


@pytest.mark.parametrize("kind", ["ts_analyzer", "fm_monitor"])
def test_every_field_the_readers_use_is_declared(play, sim, tmp_path, kind):
    device = sim.fleet.of_kind(kind)[0]
    sim.call(device.reset)
    audit = tmp_path / "reads.tsv"
    tasks = [{"broadcast.monitoring.device_state": dict(connection(device), device_type=kind, parts=example_state(kind))}]
    tasks += [dict(example, check_mode=True, ignore_errors=True)
              for name in examples_for(kind) for example in module_examples(name)]
    try:
        out = play.run(tasks, device.name, extra_vars=EXAMPLE_VARS, env={READ_AUDIT: str(audit)},
                       cwd=str(tmp_path))
    finally:
        sim.call(device.reset)
    assert out[0].get("failed") is not True, out[0]
    reads = {}
    for line in audit.read_text(encoding="utf-8").splitlines():
        where, field = line.split("\t")
        reads.setdefault(where, set()).add(field)
    shapes = {"GET " + declared.path: declared for declared in DEVICE[kind].READ_SHAPES}
    # the audit saw the declared answers read (else this test would pass on nothing)
    assert len(set(reads) & set(shapes)) >= len(shapes) - 1, sorted(reads)
    undeclared = {where: sorted(fields - declared_fields(shapes[where]))
                  for where, fields in reads.items() if where in shapes and fields - declared_fields(shapes[where])}
    assert undeclared == {}, "read but not declared in %s.READ_SHAPES: %s" % (DEVICE[kind].__name__, undeclared)
