"""The backup document's identity fields and the formats it loads (no device needed)."""

import json
import os

import pytest
import yaml

from ansible_collections.broadcast.monitoring.plugins.module_utils._backup import format as backup
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api as fm_device
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_device
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api_backup as ts_backup
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


def test_recorded_collection_version_is_the_collections():
    with open(os.path.join(ROOT, "galaxy.yml"), encoding="utf-8") as handle:
        assert backup.COLLECTION_VERSION == yaml.safe_load(handle)["version"]


@pytest.mark.parametrize("doc, version", [
    ({"format": backup.FORMAT, "device_type": "ts_analyzer", "device": {"firmware_version": "2.4.1"}}, "2.4.1"),
    ({"format": backup.FORMAT_1, "device_type": "ts_analyzer", "firmware_version": "1.0.0"}, "1.0.0"),
])
def test_both_formats_load_and_name_their_firmware(doc, version):
    loaded = backup.load(json.dumps(doc), ts_device)
    assert backup.backup_firmware(loaded) == version


def test_other_formats_and_types_are_refused():
    with pytest.raises(InputError, match="format broadcast.monitoring.backup/2 or broadcast.monitoring.backup/1"):
        backup.load(json.dumps({"format": "broadcast.monitoring.backup/3", "device_type": "ts_analyzer"}), ts_device)
    with pytest.raises(InputError, match="a backup of a ts_analyzer cannot be restored to a fm_monitor"):
        backup.load(json.dumps({"format": backup.FORMAT, "device_type": "ts_analyzer"}), fm_device)


def test_address_lists_sort_numerically_and_tolerate_other_strings():
    addresses = ["10.0.0.100:162", "10.0.0.9:162", "host.example", "9.1.1.1:2000"]
    assert sorted(addresses, key=ts_backup.address_key) == ["9.1.1.1:2000", "10.0.0.9:162", "10.0.0.100:162",
                                                            "host.example"]
