"""fm_station's options are checked in the device folder (_fm/actions.py), before any request."""

from __future__ import annotations

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.actions import check_station, station

ABSENT = {"state": "absent", "tuner_id": None, "scan_timeout": 30, "station_ids": None, "frequencies": None,
          "all_stations": False}


@pytest.mark.parametrize("changed, problems", [
    ({"state": "scanned", "tuner_id": -1}, ["tuner_id: must be >= 0, got -1"]),
    ({}, ["state: absent needs station_ids, frequencies or all_stations=true"]),
    ({"all_stations": True, "frequencies": [88000]}, ["all_stations: deletes every record; leave out frequencies"]),
    ({"station_ids": [-2], "frequencies": [80000]}, ["station_ids[0]: must be", "frequencies[0]: must be in the FM band"]),
    ({"frequencies": [88000]}, []),
])
def test_station_options(changed, problems):
    found = check_station(dict(ABSENT, **changed))
    assert len(found) == len(problems)
    assert all(message.startswith(start) for message, start in zip(found, problems)), found


def test_bad_station_options_send_nothing():
    class NoRequest:
        def __getattr__(self, name):
            return lambda *args, **kwargs: pytest.fail("a request was sent: %s" % name)

    with pytest.raises(InputError):
        station(NoRequest(), ABSENT, check_mode=False)
