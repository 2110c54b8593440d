"""Unit tests of the engine: normalisation, planning, check mode, partial failure."""

from __future__ import annotations

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    REFUSED,
    UNREACHABLE,
    ConcurrentChange,
    DeviceError,
    InputError,
    PartialFailure,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import (
    Change,
    Resource,
    differences,
    merge,
    reconcile,
    strip_unset,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine_settings import (
    MERGE_ATTEMPTS,
    reconcile_read_back,
    reconcile_settings,
    replace_settings,
    write_settings,
)


class Things(Resource):
    """An in-memory resource: objects with a name, a colour, a set of tags, an atomic shape."""

    atomic = ("shape",)

    def __init__(self, objects, fail_on=None):
        super().__init__(client=None)
        self.objects = {o["name"]: dict(o) for o in objects}
        self.calls = []
        self.fail_on = fail_on

    def read(self):
        return {k: dict(v) for k, v in self.objects.items()}

    def defaults(self):
        return {"colour": "grey", "tags": []}

    def normalise(self, obj):
        return dict(obj, tags=sorted(set(obj.get("tags", []))))

    def _do(self, action, key):
        if self.fail_on == (action, key):
            raise DeviceError(REFUSED, "%s %s refused" % (action, key), status=400)
        self.calls.append((action, key))

    def create(self, after):
        self._do("create", after["name"])
        self.objects[after["name"]] = after

    def update(self, before, after):
        self._do("update", after["name"])
        self.objects[after["name"]] = after

    def delete(self, before):
        self._do("delete", before["name"])
        del self.objects[before["name"]]


RED = {"name": "a", "colour": "red", "tags": ["x", "y"], "shape": {"circle": {"r": 1}}}


def test_strip_unset_and_merge():
    assert strip_unset({"a": None, "b": {"c": None, "d": 1}, "e": [{"f": None}]}) == {"b": {"d": 1}, "e": [{}]}
    merged = merge({"shape": {"circle": {"r": 1}}, "x": {"y": 1, "z": 2}}, {"shape": {"square": {"s": 2}}, "x": {"y": 5}},
                   atomic=("shape",))
    assert merged == {"shape": {"square": {"s": 2}}, "x": {"y": 5, "z": 2}}


def test_unset_keys_are_not_compared_and_unordered_lists_normalised():
    things = Things([RED])
    result = reconcile(things, [{"name": "a", "colour": None, "tags": ["y", "x", "x"]}], "merged", check_mode=False)
    assert result["changed"] is False
    assert things.calls == []


def test_merged_updates_only_what_differs_and_creates_with_defaults():
    things = Things([RED, {"name": "b", "colour": "blue", "tags": []}])
    result = reconcile(things, [{"name": "a", "colour": "green"}, {"name": "c"}], "merged", check_mode=False)
    assert result["changed"] is True
    assert things.calls == [("update", "a"), ("create", "c")]
    assert things.objects["a"]["tags"] == ["x", "y"]  # kept: not set by the user
    assert things.objects["c"] == {"name": "c", "colour": "grey", "tags": []}
    assert result["diff"]["before"]["a"]["colour"] == "red"
    assert result["diff"]["after"]["a"]["colour"] == "green"


def test_replaced_resets_unset_keys_overridden_also_deletes():
    things = Things([RED, {"name": "b", "colour": "blue", "tags": []}])
    result = reconcile(things, [{"name": "a", "shape": {"circle": {"r": 1}}}], "replaced", check_mode=False)
    assert things.objects["a"] == {"name": "a", "colour": "grey", "tags": [], "shape": {"circle": {"r": 1}}}
    assert result["changes"] == [{"action": "update", "key": "a", "differences": [
        {"path": "colour", "current": "red", "declared": "grey"}, {"path": "tags", "current": ["x", "y"], "declared": []}]}]
    result = reconcile(things, [{"name": "a", "shape": {"circle": {"r": 1}}}], "overridden", check_mode=False)
    assert result["changes"] == [{"action": "delete", "key": "b"}]
    assert list(things.objects) == ["a"]


def test_deleted_listed_or_all_and_gathered():
    things = Things([RED, {"name": "b", "colour": "blue", "tags": []}])
    assert reconcile(things, [], "gathered", check_mode=False)["gathered"][0]["name"] == "a"
    assert reconcile(things, [{"name": "zz"}], "deleted", check_mode=False)["changed"] is False
    assert reconcile(things, [{"name": "b"}], "deleted", check_mode=False)["changed"] is True
    assert reconcile(things, [], "deleted", check_mode=False)["changes"] == [{"action": "delete", "key": "a"}]
    assert things.objects == {}


def test_check_mode_writes_nothing_and_reports_the_same_result():
    things = Things([RED])
    desired = [{"name": "a", "colour": "green"}, {"name": "n"}]
    checked = reconcile(things, desired, "overridden", check_mode=True)
    assert things.calls == []
    real = reconcile(things, desired, "overridden", check_mode=False)
    assert checked == real


def test_duplicate_keys_are_refused_before_reading():
    class Unreadable(Things):
        def read(self):
            raise AssertionError("must not read")

    with pytest.raises(InputError) as caught:
        reconcile(Unreadable([]), [{"name": "a"}, {"name": "a"}], "merged", check_mode=False)
    assert caught.value.problems == ["config[1]: name 'a' is listed more than once"]


def test_partial_failure_names_written_and_unwritten_changes():
    things = Things([RED, {"name": "b", "colour": "blue", "tags": []}], fail_on=("create", "d"))
    desired = [{"name": "a", "colour": "green"}, {"name": "c"}, {"name": "d"}]
    with pytest.raises(PartialFailure) as caught:
        reconcile(things, desired, "overridden", check_mode=False)
    assert caught.value.done == [{"action": "update", "key": "a"}, {"action": "create", "key": "c"}]
    assert caught.value.pending == [{"action": "create", "key": "d"}, {"action": "delete", "key": "b"}]
    assert "b" in things.objects  # nothing deleted before the failure


def test_settings_merge_compare_and_write():
    writes = []
    current = {"enabled": False, "servers": ["b", "a"], "level": "info"}

    def norm(obj):
        return dict(obj, servers=sorted(obj["servers"]))

    same = reconcile_settings(current, {"servers": ["a", "b"], "level": None}, writes.append, False, normalise=norm)
    assert same["changed"] is False and writes == []
    checked = reconcile_settings(current, {"enabled": True}, writes.append, True, normalise=norm)
    assert checked["changed"] is True and writes == []
    done = reconcile_settings(current, {"enabled": True}, writes.append, False, normalise=norm)
    assert writes == [{"enabled": True, "servers": ["a", "b"], "level": "info"}]
    assert done["diff"] == checked["diff"]


def test_fixed_resources_refuse_unknown_keys_before_writing():
    things = Things([RED])
    things.fixed = True
    with pytest.raises(InputError) as caught:
        reconcile(things, [{"name": "zz", "colour": "red"}], "merged", check_mode=False)
    assert caught.value.problems == ["config[0]: name 'zz': the device has no such object (it has a)"]
    assert things.calls == []


class LossyThings(Things):
    """Loses the answer of one write: ``acts`` says whether the device acted before the
    connection dropped; ``readable`` whether it can be read back afterwards."""

    def __init__(self, objects, lose, acts, readable=True):
        super().__init__(objects)
        self.lose, self.acts, self.readable = lose, acts, readable
        self.attempts = []

    def read(self):
        if not self.readable and self.lose is None:
            raise DeviceError(UNREACHABLE, "cannot connect")
        return super().read()

    def create(self, after):
        self.attempts.append(after["name"])
        if self.lose == ("create", after["name"]):
            self.lose = None
            if self.acts:
                super().create(after)
            raise DeviceError(UNREACHABLE, "closed the connection")
        super().create(after)


@pytest.mark.parametrize("acts", [True, False])
def test_a_write_whose_answer_was_lost_is_read_back_never_sent_twice_blindly(acts):
    things = LossyThings([RED], lose=("create", "c"), acts=acts)
    result = reconcile(things, [{"name": "c"}, {"name": "d"}], "merged", check_mode=False)
    # landed: not sent again; not landed: sent once more, now that the device said it has nothing
    assert things.attempts == (["c", "d"] if acts else ["c", "c", "d"])
    assert sorted(things.objects) == ["a", "c", "d"]
    assert result["lost_answers"] == [{"action": "create", "key": "c", "landed": acts}]
    assert result["changed"] is True


def test_a_lost_answer_that_cannot_be_read_back_is_reported_as_unknown():
    things = LossyThings([RED], lose=("create", "c"), acts=True, readable=False)
    with pytest.raises(PartialFailure) as caught:
        reconcile(things, [{"name": "c"}, {"name": "d"}], "merged", check_mode=False)
    assert caught.value.done == []
    assert caught.value.unknown == [{"action": "create", "key": "c"}]
    assert caught.value.pending == [{"action": "create", "key": "d"}]


@pytest.mark.parametrize("acts", [True, False])
def test_a_settings_write_whose_answer_was_lost_is_read_back(acts):
    device, sent = {"level": "info"}, []

    def write(body):
        sent.append(body)
        if len(sent) == 1:
            if acts:
                device.update(body)
            raise DeviceError(UNREACHABLE, "closed the connection")
        device.update(body)

    lost = write_settings(write, {"level": "error"}, lambda: dict(device))
    assert lost == [{"landed": acts}]
    assert len(sent) == (1 if acts else 2) and device == {"level": "error"}


def test_a_refused_settings_write_is_not_sent_again():
    sent = []

    def write(body):
        sent.append(body)
        raise DeviceError(REFUSED, "refused", status=400)

    with pytest.raises(DeviceError):
        write_settings(write, {"level": "error"}, lambda: {})
    assert len(sent) == 1


class SharedSettings:
    """A settings object written whole; ``overwrite`` times another writer puts back the
    version it read before this run's write (a lost update); ``lose`` loses one answer."""

    def __init__(self, overwrite=0, lose=False):
        self.value = {"servers": ["a"]}
        self.overwrite, self.lose = overwrite, lose
        self.writes = 0

    def read(self):
        return {"servers": list(self.value["servers"])}

    def write(self, after):
        stale = self.read()
        self.writes += 1
        self.value = after
        if self.overwrite:
            self.overwrite -= 1
            self.value = dict(stale, servers=stale["servers"] + ["other"])
        if self.lose:
            self.lose = False
            raise DeviceError(UNREACHABLE, "closed the connection")


def adding(*servers):
    return lambda current: {"servers": current["servers"] + [s for s in servers if s not in current["servers"]]}


def test_a_merged_write_is_read_back_and_merged_again_when_overwritten():
    device = SharedSettings(overwrite=1)
    result = reconcile_read_back(device.read, adding("b"), device.write, False)
    assert device.writes == 2 and result["merged_again"] == 1
    assert device.value == {"servers": ["a", "other", "b"]}  # both writers' servers
    assert result["after"] == device.value and result["changed"] is True


def test_a_write_that_never_sticks_fails_saying_so():
    device = SharedSettings(overwrite=MERGE_ATTEMPTS)
    with pytest.raises(ConcurrentChange) as caught:
        reconcile_read_back(device.read, adding("b"), device.write, False)
    assert device.writes == MERGE_ATTEMPTS
    assert "concurrent change was detected" in str(caught.value)


def test_a_merged_write_in_check_mode_or_already_there_writes_nothing():
    device = SharedSettings()
    assert reconcile_read_back(device.read, adding("b"), device.write, True)["changed"] is True
    assert reconcile_read_back(device.read, adding("a"), device.write, False)["changed"] is False
    assert device.writes == 0


def test_a_merged_write_whose_answer_was_lost_is_judged_by_the_read_back():
    device = SharedSettings(lose=True)
    result = reconcile_read_back(device.read, adding("b"), device.write, False)
    assert device.writes == 1 and result["lost_answers"] == [{"landed": True}]


def test_differences_name_each_changed_leaf_with_both_values():
    before = {"name": "Mux 1", "monitoring": "started", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}},
              "pids": [1, 2]}
    after = {"name": "Mux 1", "monitoring": "started", "source": {"multicast": {"address": "239.1.1.1", "port": 5002}},
             "pids": [2, 1]}
    assert differences(before, after) == [
        {"path": "source.multicast.port", "current": 5000, "declared": 5002},
        {"path": "pids", "current": [1, 2], "declared": [2, 1]},  # lists whole
    ]
    assert differences(after, after) == []


def test_differences_of_a_field_that_becomes_a_dict_or_is_new():
    assert differences({"source": {"asi": {"port": 1}}}, {"source": {"multicast": {"port": 5000}}}) == [
        {"path": "source.multicast.port", "current": None, "declared": 5000},
        {"path": "source.asi.port", "current": 1, "declared": None}]
    assert differences({}, {"level": "info"}) == [{"path": "level", "current": None, "declared": "info"}]


def test_differences_list_the_fields_a_replaced_object_drops():
    before = {"name": "BBC One HD", "source": {"multicast": {"address": "239.1.1.1", "port": 5000,
                                                             "source_address": "10.0.0.7"}},
              "scte35": True, "thumbnails": {"enabled": True, "pid": 256}, "note": None}
    after = {"name": "BBC One HD", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}}
    assert differences(before, after) == [
        {"path": "source.multicast.source_address", "current": "10.0.0.7", "declared": None},
        {"path": "scte35", "current": True, "declared": None},
        {"path": "thumbnails.enabled", "current": True, "declared": None},
        {"path": "thumbnails.pid", "current": 256, "declared": None},
    ]  # a field that was not set (None) is not a difference
    dropped = differences({"stream": {"url": "udp://bob:secret@239.1.1.1:1234"}, "password": "old"}, {})
    assert dropped == [{"path": "stream.url", "current": "udp://***@239.1.1.1:1234", "declared": None},
                       {"path": "password", "current": "********", "declared": None}]
    update = Change("update", "BBC One HD", before=before, after=after)
    assert [d["path"] for d in update.summary(detail=True)["differences"]][0] == "source.multicast.source_address"


def test_differences_hide_secrets_and_mask_user_info():
    before = {"stream": {"url": "udp://bob:old-secret@239.1.1.1:1234"}, "password": "old-pass"}
    after = {"stream": {"url": "udp://bob:new-secret@239.1.1.1:1234"}, "password": "new-pass"}
    found = differences(before, after)
    assert found == [{"path": "stream.url", "current": "udp://***@239.1.1.1:1234", "declared": "udp://***@239.1.1.1:1234"},
                     {"path": "password", "current": "********", "declared": "********"}]
    assert "secret" not in repr(found) and "pass" not in repr([d["current"] for d in found])


def test_only_an_update_summary_carries_differences():
    update = Change("update", "Mux 1", before={"name": "Mux 1", "monitoring": "started"},
                    after={"name": "Mux 1", "monitoring": "stopped"})
    assert update.summary() == {"action": "update", "key": "Mux 1"}
    assert update.summary(detail=True) == {"action": "update", "key": "Mux 1", "differences": [
        {"path": "monitoring", "current": "started", "declared": "stopped"}]}
    assert Change("create", "New", after={"name": "New"}).summary(detail=True) == {"action": "create", "key": "New"}
    assert Change("delete", "Old", before={"name": "Old"}).summary(detail=True) == {"action": "delete", "key": "Old"}


class HookedThings(Things):
    """Things that record each hook the engine calls, and refuse a planned red square."""

    def __init__(self, objects):
        super().__init__(objects)
        self.hooks = []

    def check(self, desired, run):
        self.hooks.append("check")
        return []

    def read_for(self, desired, run):
        self.hooks.append("read_for %s" % ",".join(o["name"] for o in desired))
        return super().read_for(desired, run)

    def check_against(self, desired, current, run):
        self.hooks.append("check_against")
        return []

    def prepare(self, desired, current, run):
        self.hooks.append("prepare")
        return desired

    def check_planned(self, changes, run):
        self.hooks.append("check_planned")
        return ["%s: colour: no red %s" % (c.key, c.after["shape"]) for c in changes
                if c.after.get("colour") == "red" and c.after.get("shape") == "square"]

    def update(self, before, after):
        self.hooks.append("update")
        super().update(before, after)


def test_the_hooks_run_in_the_declared_order_and_see_what_they_need():
    things = HookedThings([{"name": "a", "colour": "blue", "shape": "round"}])
    reconcile(things, [{"name": "a", "colour": "green"}], "merged", check_mode=False)
    assert things.hooks == ["check", "read_for a", "check_against", "prepare", "check_planned", "update"]


class CompletedThings(Things):
    """Things that see the run in each hook and complete the desired objects in ``prepare``."""

    def __init__(self, objects):
        super().__init__(objects)
        self.runs = []

    def check(self, desired, run):
        self.runs.append(("check", run.state, run.check_mode))
        return []

    def prepare(self, desired, current, run):
        self.runs.append(("prepare", run.state, run.check_mode))
        return [dict(obj, shape=current[obj["name"]]["shape"]) if obj["name"] in current else obj for obj in desired]


def test_the_hooks_get_the_run_and_the_plan_is_made_from_what_prepare_returns():
    things = CompletedThings([{"name": "a", "colour": "blue", "shape": "round"}])
    config = [{"name": "a", "colour": "green"}]
    result = reconcile(things, config, "replaced", check_mode=True)
    assert things.runs == [("check", "replaced", True), ("prepare", "replaced", True)]
    assert result["after"] == [{"name": "a", "colour": "green", "tags": [], "shape": "round"}]
    assert config == [{"name": "a", "colour": "green"}] and things.calls == []


def test_a_planned_object_the_resource_refuses_stops_before_any_write():
    # only the plan shows it: the colour is the user's, the shape the device's
    things = HookedThings([{"name": "a", "colour": "blue", "shape": "square"}])
    with pytest.raises(InputError) as err:
        reconcile(things, [{"name": "a", "colour": "red"}], "merged", check_mode=False)
    assert err.value.problems == ["a: colour: no red square"]
    assert things.calls == [] and "update" not in things.hooks


def ordered(obj):
    return dict(obj, list=sorted(obj["list"]))


def test_replace_settings_writes_what_was_kept_and_compares_in_a_given_order():
    sent = []
    device = {"list": [2, 1], "x": 1}
    same = replace_settings(device, {"list": [1, 2], "x": 1}, sent.append, lambda: device, False, ordered)
    assert same["changed"] is False and sent == []
    changed = replace_settings(device, {"list": [1, 3], "x": 1}, sent.append, lambda: device, True, ordered)
    assert changed["changed"] is True and sent == []  # check mode
    changed = replace_settings(device, {"list": [3, 1], "x": 1}, sent.append, lambda: device, False, ordered)
    assert sent == [{"list": [3, 1], "x": 1}]  # as kept, not as compared
    assert changed["diff"] == {"before": device, "after": {"list": [3, 1], "x": 1}}


def test_replace_settings_judges_a_lost_answer_by_the_read_back_in_the_same_order():
    device = {"list": [2, 1]}
    attempts = []

    def write(body):
        attempts.append(body)
        device.update(list=list(reversed(body["list"])))  # lands, stored in another order
        raise DeviceError(UNREACHABLE, "connection reset")

    out = replace_settings({"list": [5]}, {"list": [1, 2]}, write, lambda: device, False, ordered)
    assert len(attempts) == 1 and out["lost_answers"] == [{"landed": True}]
