"""A role of the collection, run as users run it (by its FQCN): the backup role writes the
device's configuration to <backup_dir>/<host>.json and rewrites nothing on a second run.
`make artifact` runs this file against the installed tarball too (a role file missing from
the artifact fails here)."""

import json


def role_tasks(backup_dir):
    return [
        {"name": "Backup role", "ansible.builtin.include_role": {"name": "broadcast.monitoring.backup"},
         "vars": {"backup_dir": str(backup_dir), "broadcast_monitoring_password": "admin"}},
        {"name": "What the role did", "ansible.builtin.debug": {"var": "backup_result"}},
    ]


def test_backup_role_from_the_collection(play, sim, tmp_path):
    device = play.device("fm-001")
    sim.call(device.reset)
    backup_dir = tmp_path / "backups"
    first = play.run(role_tasks(backup_dir), "fm-001")
    assert first[1]["backup_result"]["changed"] is True, first.output
    document = json.loads((backup_dir / "fm-001.json").read_text())
    assert isinstance(document, dict) and document, document
    assert sim.call(device.writes) == []  # a backup only reads
    second = play.run(role_tasks(backup_dir), "fm-001")
    assert second[1]["backup_result"]["changed"] is False, second.output
    assert len(list((backup_dir / "history").iterdir())) == 1
