#!/usr/bin/env bash
# make demo: a simulated fleet (3 TS analyzers + 3 FM monitors on loopback), configured from
# playbooks/inventory/group_vars by playbooks/site.yml, twice (the second run changes nothing),
# audited in check mode (no drift, nothing written), backed up, and stopped.
# Leaves no process behind (trap EXIT). Variables: DEMO_PORT (18080), DEMO_ADDRESS (127.0.66.1).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=$ROOT/.venv/bin
PORT=${DEMO_PORT:-18080}
ADDRESS=${DEMO_ADDRESS:-127.0.66.1}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bm-demo.XXXXXX")
# One inventory directory, as the README tells users to build: the example group_vars plus the
# hosts file the simulator writes (two -i sources would warn about the directory's group_vars).
cp -r "$ROOT/playbooks/inventory" "$WORK/inventory"
SIM_PID=

stop() {
  if [ -n "$SIM_PID" ] && kill -0 "$SIM_PID" 2>/dev/null; then
    kill -TERM "$SIM_PID" 2>/dev/null || true
    wait "$SIM_PID" 2>/dev/null || true
    echo "== simulator stopped"
  fi
  rm -rf "$WORK"
}
trap stop EXIT
trap 'exit 130' INT TERM

# the example inventory reads the password from the environment; the simulator's is the factory one
export BROADCAST_MONITORING_PASSWORD=${BROADCAST_MONITORING_PASSWORD:-admin}
export ANSIBLE_COLLECTIONS_PATH=$ROOT/build/collections ANSIBLE_NOCOLOR=1 ANSIBLE_LOCALHOST_WARNING=0 \
       ANSIBLE_DISPLAY_SKIPPED_HOSTS=0 ANSIBLE_RETRY_FILES_ENABLED=0
unset PYTHONPATH

banner() { printf '\n==== %s\n' "$*"; }
playbook() {  # ansible-playbook against the simulator's hosts + the example group_vars; prints the recap
  local log=$WORK/last.log
  local start=$SECONDS
  if ! "$BIN/ansible-playbook" -i "$WORK/inventory" "$@" >"$log" 2>&1; then
    cat "$log"; echo "FAILED: ansible-playbook $*"; exit 1
  fi
  sed -n '/^PLAY RECAP/,$p' "$log" | sed '/^$/d'
  echo "($((SECONDS - start)) s)"
}

banner "1. Simulated fleet: 3 TS analyzers + 3 FM monitors on $ADDRESS.. port $PORT"
# this tree's simulator (bm-simulator), whether or not the venv holds an installed copy
PYTHONPATH="$ROOT/simulator/src" "$BIN/python" -m bm_simulator fleet --ts 3 --fm 3 --address "$ADDRESS" --port "$PORT" --time-scale 0.05 \
  --inventory "$WORK/inventory/hosts.yml" >"$WORK/sim.log" 2>&1 &
SIM_PID=$!
for _ in $(seq 1 100); do
  grep -q '^ready' "$WORK/sim.log" 2>/dev/null && break
  kill -0 "$SIM_PID" 2>/dev/null || { cat "$WORK/sim.log"; echo "the simulator did not start"; exit 1; }
  sleep 0.1
done
grep -q '^ready' "$WORK/sim.log" || { cat "$WORK/sim.log"; echo "the simulator is not ready"; exit 1; }
cat "$WORK/sim.log"
"$BIN/ansible-inventory" -i "$WORK/inventory/hosts.yml" --graph 2>/dev/null

banner "2. site.yml: bring every device to the state declared in playbooks/inventory/group_vars"
playbook "$ROOT/playbooks/site.yml"

banner "3. site.yml again: nothing left to change (changed=0 everywhere)"
playbook "$ROOT/playbooks/site.yml"
if grep -E 'changed=[1-9]' "$WORK/last.log" >/dev/null; then echo "FAILED: the second run changed something"; exit 1; fi
echo "idempotent: changed=0 on every device"

banner "4. audit.yml: drift report in check mode (nothing is written)"
"$BIN/python" "$ROOT/tools/demo_requests.py" clear "$WORK/inventory/hosts.yml"
playbook "$ROOT/playbooks/audit.yml" -e "audit_report=$WORK/drift.json"
cat "$WORK/drift.txt"   # the table audit.yml prints, as it writes it beside the report
"$BIN/python" "$ROOT/tools/demo_requests.py" count "$WORK/inventory/hosts.yml"
echo "report: drift.json ($(wc -c <"$WORK/drift.json") bytes), devices with drift: $("$BIN/python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices_with_drift"] or "none")' "$WORK/drift.json")"

banner "5. Backup of every device"
mkdir -p "$WORK/backups"
if [ -f "$ROOT/playbooks/backup.yml" ]; then
  playbook "$ROOT/playbooks/backup.yml" -e "backup_dir=$WORK/backups" -e backup_history=false
else
  playbook "$ROOT/tools/demo_backup.yml" -e "backup_dir=$WORK/backups"
fi
find "$WORK/backups" -mindepth 1 -maxdepth 1 -printf "%M %8s %TY-%Tm-%Td %TH:%TM %f\n" | sort -k5

rm -rf "$ROOT/build/demo" && mkdir -p "$ROOT/build/demo"
cp -r "$WORK/drift.json" "$WORK/drift.txt" "$WORK/backups" "$ROOT/build/demo/"
banner "6. Done: drift report and backups kept in build/demo/; stopping the simulator"
