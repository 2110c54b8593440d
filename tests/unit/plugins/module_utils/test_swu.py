"""Reading a bundle's version and target on the controller, and ordering versions (a downgrade
is refused unless allowed)."""

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils import _swu as swu
from bm_simulator import swu as builder


@pytest.mark.parametrize("model, target", [
    ("ts_analyzer", ["TSA-4"]),
    (["TSA-4", "TSA-8"], ["TSA-4", "TSA-8"]),
    ([], None),
])
def test_read_description_gives_version_and_target(tmp_path, model, target):
    path = tmp_path / "fw.swu"
    path.write_bytes(builder.build("2.4.1", model=model))
    assert swu.read_description(str(path)) == {"version": "2.4.1", "target": target}
    assert swu.read_version(str(path)) == "2.4.1"


def test_every_hardware_compatibility_list_counts(tmp_path):
    """Board sections each carry their own list (SWUpdate); `=` and `:` both assign in libconfig."""
    text = (b'software = {\n version = "3.0";\n a = { hardware-compatibility = [ "A-1", "B-2" ]; };\n'
            b' b = { hardware-compatibility: [ "B-2" , "C-3"]; };\n};\n')
    path = tmp_path / "fw.swu"
    path.write_bytes(builder.cpio_pack([("sw-description", text)]))
    assert swu.read_description(str(path))["target"] == ["A-1", "B-2", "C-3"]


@pytest.mark.parametrize("first, second, order", [
    ("2.4.1", "2.4.1", 0),
    ("2.4.1", "3.1.0", -1),
    ("2.10.0", "2.9.1", 1),
    ("2.4.1.1", "2.4.1", 1),
    ("2.4", "2.4.0", -1),
    ("v2", "2.4", None),
])
def test_compare_versions(first, second, order):
    assert swu.compare_versions(first, second) == order


def test_same_model_ignores_case_and_spacing():
    assert swu.same_model("FMM-8  FM Monitoring Receiver", "fmm-8 fm monitoring receiver ")
    assert not swu.same_model("TSA-4", "TSA-8")
