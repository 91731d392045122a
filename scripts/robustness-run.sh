#!/bin/bash
# Repeated rank deaths and hostile connections (docs: DEVELOPERS.md):
#   kill:    4 ranks, rank 1 SIGKILLed mid-collective, KILLS times; counts the runs where the
#            launcher blamed rank 1, every survivor named rank 1, nothing hung, nothing leaked
#            (/dev/shm entries, abstract sockets, leftover processes).
#   orphan:  3 ranks holding WholeMemory, the launcher SIGKILLed, ORPHANS times (half of them with
#            the ranks spinning in a synchronous loop); counts ranks still alive 15 s later and
#            leaked abstract sockets and /dev/shm entries.
#   garbage: 2 ranks with an intruder (test/fixtures/intruder.py: silent, garbage, 1 GiB frame,
#            forged hello, forged local descriptor message), GARBAGE times; counts completed
#            launches and intruder connections that received anything.
# Usage: KILLS=20 ORPHANS=10 GARBAGE=10 bash scripts/robustness-run.sh   (after npm run build)
set -uo pipefail
kills=${KILLS:-20} orphans=${ORPHANS:-10} garbage=${GARBAGE:-10}
launcher=dist/bin/tfjs-wm-run.js
py=$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3 )
shm() { ls /dev/shm 2>/dev/null | sort; }
socks() { grep -c '@tfjs-wm-' /proc/net/unix; }
procs() { pgrep -fc 'whole_memory_ranks|bootstrap_ranks' || true; }

blamed=0 named=0 hung=0 leaked=0
for i in $(seq "$kills"); do
  before_shm=$(shm) before_socks=$(socks)
  out=$(WM_TEST_TIMEOUT_MS=5000 timeout 60 node $launcher -n 4 dist/test/fixtures/whole_memory_ranks.js die 2>&1); rc=$?
  [ $rc -eq 124 ] && hung=$((hung + 1))
  grep -q 'rank 1 was killed by SIGKILL' <<<"$out" && blamed=$((blamed + 1))
  [ "$(grep -cE 'ERROR rank [023]: .*rank 1 (disconnected|exited|did not)' <<<"$out")" -eq 3 ] && named=$((named + 1))
  sleep 0.2
  [ "$(shm)" != "$before_shm" ] || [ "$(socks)" -gt "$before_socks" ] || [ "$(procs)" -gt 0 ] && leaked=$((leaked + 1))
done

orphaned=0 oleaked=0 oslowest=0
for i in $(seq "$orphans"); do
  before_shm=$(shm) before_socks=$(socks)
  out=$(mktemp)
  WM_TEST_BUSY=$((i % 2)) node $launcher -n 3 dist/test/fixtures/whole_memory_ranks.js hold >"$out" 2>&1 &
  l=$!
  for _ in $(seq 300); do [ "$(grep -c HOLDING "$out")" -eq 3 ] && break; sleep 0.1; done
  pids=$(sed -n 's/.*HOLDING rank [0-9]* pid \([0-9]*\).*/\1/p' "$out")
  kill -9 $l; wait $l 2>/dev/null
  t0=$(date +%s%N) left=3
  for _ in $(seq 1500); do
    left=0; for p in $pids; do kill -0 "$p" 2>/dev/null && left=$((left + 1)); done
    [ $left -eq 0 ] && break; sleep 0.01
  done
  ms=$(( ($(date +%s%N) - t0) / 1000000 )); [ $ms -gt $oslowest ] && oslowest=$ms
  orphaned=$((orphaned + left))
  sleep 0.2
  [ "$(shm)" != "$before_shm" ] || [ "$(socks)" -gt "$before_socks" ] && oleaked=$((oleaked + 1))
  rm -f "$out"
done

completed=0 received=0 dropped=0 ghung=0
for i in $(seq "$garbage"); do
  port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
  WM_TEST_JOIN_DELAY_MS=2500 timeout 60 node $launcher -n 2 --master-port "$port" dist/test/fixtures/bootstrap_ranks.js >/tmp/wm-garbage.out 2>&1 &
  ranks=$!
  report=$($py test/fixtures/intruder.py 127.0.0.1 "$port" 4)
  wait $ranks; rc=$?
  [ $rc -eq 124 ] && ghung=$((ghung + 1))
  grep -q 'OK rank 0' /tmp/wm-garbage.out && grep -q 'OK rank 1' /tmp/wm-garbage.out && [ $rc -eq 0 ] && completed=$((completed + 1))
  grep -q '"leaked": \[\]' <<<"$report" || received=$((received + 1))
  dropped=$((dropped + $(grep -c 'dropped a connection' /tmp/wm-garbage.out)))
done

printf '%-8s %5s  %s\n' run tries result
printf '%-8s %5d  launcher blamed rank 1: %d, all 3 survivors named rank 1: %d, hung: %d, leaked: %d\n' kill "$kills" $blamed $named $hung $leaked
printf '%-8s %5d  ranks left running after the launcher was SIGKILLed: %d, runs that leaked: %d, slowest exit of all 3 ranks: %d ms\n' orphan "$orphans" $orphaned $oleaked $oslowest
printf '%-8s %5d  launches completed: %d, intruder got data: %d, hung: %d, strangers dropped and reported: %d\n' garbage "$garbage" $completed $received $ghung $dropped
