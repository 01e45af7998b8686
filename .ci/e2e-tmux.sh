#!/usr/bin/env bash
# End-to-end walk of the TUI on the embedded demo run, in a detached tmux
# pane of fixed size (tui-stack.md §2.4): the planted spike
# (testdata/demo/TRUTH.json) is the first candidate → `p` pins it (the
# header shows the pin) → `3` shows F! at the planted layer → `enter`
# names the planted operator → `q` exits 0 and leaves the alternate screen.
# Then the follow walk: the TUI follows a temp copy of the demo's monitor
# CSV tree holding the steps before the fault; the fault step's files land
# while it is open → the planted spike appears as a new (+) candidate.
# Asserts on capture-pane text; each wait times out after 20 s. The walk
# runs on its own tmux server (socket E2E_TMUX_SOCKET, default
# spikescope-e2e-PID), never on the user's.
# usage: .ci/e2e-tmux.sh /path/to/spikescope
set -euo pipefail
BIN=$(realpath "${1:?usage: $0 /path/to/spikescope}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRUTH="$ROOT/testdata/demo/TRUTH.json"
WAIT_S=${E2E_WAIT_S:-20}
command -v tmux >/dev/null || { echo "e2e: tmux is not installed"; exit 1; }
[ -x "$BIN" ] || { echo "e2e: $BIN is not an executable"; exit 1; }
[ -r "$TRUTH" ] || { echo "e2e: $TRUTH not found"; exit 1; }

# truth FIELD: a number or string field of TRUTH.json (no jq needed)
truth() {
  sed -n "s/^ *\"$1\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$TRUTH" | head -1
}
OPT=$(truth fault_optimizer_step); MS=$(truth fault_micro_step); RANK=$(truth fault_rank)
LAYER=$(truth fault_layer); PARAM=$(truth parameter); OPER=$(truth planted_operator)
for v in OPT MS RANK LAYER PARAM OPER; do
  [ -n "${!v}" ] || { echo "e2e: cannot read $v from $TRUTH"; exit 1; }
done
TAIL=${PARAM#*mlp.}   # the distinctive end of the parameter name (e.g. linear_fc2.weight)
SOCK=${E2E_TMUX_SOCKET:-spikescope-e2e-$$}
tmux() { command tmux -L "$SOCK" "$@"; }

S=""
WORK=$(mktemp -d)   # the UI's working directory (where `r` would write)
fail() {
  echo "e2e FAIL ($COLS×$ROWS): $*"
  if [ -n "$S" ]; then echo "---- screen ----"; tmux capture-pane -p -t "$S" 2>/dev/null || true; echo "----"; fi
  exit 1
}
cleanup() { [ -n "$S" ] && tmux kill-session -t "$S" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

screen() { tmux capture-pane -p -t "$S"; }
wait_for() { # wait_for TEXT: poll the pane until TEXT shows
  local deadline=$((SECONDS + WAIT_S))
  until screen | grep -qF -- "$1"; do
    (( SECONDS < deadline )) || fail "timed out after ${WAIT_S}s waiting for: $1"
    sleep 0.1
  done
}
wait_re() { # wait_re REGEX DESCRIPTION
  local deadline=$((SECONDS + WAIT_S))
  until screen | grep -qE -- "$1"; do
    (( SECONDS < deadline )) || fail "timed out after ${WAIT_S}s waiting for $2"
    sleep 0.1
  done
}

walk() { # walk COLS ROWS
  COLS=$1 ROWS=$2
  S="spikescope-e2e-$$-$COLS"
  tmux new-session -d -s "$S" -x "$COLS" -y "$ROWS" \
    "cd '$WORK' && TERM=xterm-256color '$BIN'; echo EXIT=\$?; sleep 30"
  wait_for "candidate 1 of"

  # 1. the planted spike is the first candidate: the row under the header
  # (columns by header name: the step column only shows on wide screens)
  first=$(first_row)
  [ -n "$first" ] || fail "no candidate table on the Phase 1 screen"
  read -r idx opt ms rank param <<<"$first"
  [ "$idx" = 1 ] && [ "$opt" = "$OPT" ] && [ "$ms" = "$MS" ] && [ "$rank" = "$RANK" ] ||
    fail "first candidate is '$first', want opt $OPT ms $MS rank $RANK"
  case "$param" in *"$TAIL") ;; *) fail "first candidate's parameter is '$param', want …$TAIL";; esac

  # 2. p pins it; the header shows the pin
  tmux send-keys -t "$S" p
  wait_for "PIN opt=$OPT,ms=$MS,rank=$RANK"
  screen | head -1 | grep -qF "PIN opt=$OPT,ms=$MS,rank=$RANK" || fail "the pin is not in the header line"

  # 3. Phase 3: F! at the planted layer (the start marker ▶ may precede it)
  tmux send-keys -t "$S" 3
  wait_for "F-anomaly"
  wait_re "^ *[▶◀]*$LAYER .*F!" "F! on layer $LAYER"
  screen | head -1 | grep -qF "PIN opt=$OPT" || fail "the pin left the header on Phase 3"

  # 4. enter on the (preselected) earliest divergent layer names the operator
  tmux send-keys -t "$S" Enter
  wait_for "ops ("
  wait_for "$OPER"

  # 5. q quits with status 0 and the alternate screen is gone
  tmux send-keys -t "$S" q
  wait_for "EXIT="
  screen | grep -qx "EXIT=0" || fail "exit status: $(screen | grep EXIT=)"
  if screen | grep -qF "F-anomaly"; then fail "the UI is still on screen after exit (alternate screen not left)"; fi
  tmux kill-session -t "$S"; S=""
  echo "e2e ok at ${COLS}×${ROWS}"
}

# first_row: "# opt ms rank parameter" of the first candidate row
first_row() {
  screen | awk '/ opt .* rank .*parameter/ {
      for (i = 1; i <= NF; i++) col[$i] = i
      getline
      print $col["#"], $col["opt"], $col["ms"], $col["rank"], $col["parameter"]; exit }'
}

follow_walk() { # follow_walk COLS ROWS
  COLS=$1 ROWS=$2
  local src="$ROOT/testdata/demo/npu/monitor_output" run="$WORK/run-$COLS" d s
  for d in "$src"/*/; do # the steps before the fault
    mkdir -p "$run/$(basename "$d")"
    for ((s = 0; s < OPT; s++)); do cp "$d"/*_"$s-$s".csv "$run/$(basename "$d")/"; done
  done
  S="spikescope-e2e-follow-$$-$COLS"
  tmux new-session -d -s "$S" -x "$COLS" -y "$ROWS" \
    "cd '$WORK' && TERM=xterm-256color '$BIN' '$run' --follow --interval 300ms; echo EXIT=\$?; sleep 30"
  wait_for "following · last data"
  wait_for "No anomaly found"
  for d in "$src"/*/; do cp "$d"/*_"$OPT-$OPT".csv "$run/$(basename "$d")/"; done # the fault step lands
  wait_for "step $OPT"
  wait_for "candidate 1 of"
  read -r idx opt ms rank param <<<"$(first_row)"
  [ "$idx" = +1 ] && [ "$opt" = "$OPT" ] && [ "$ms" = "$MS" ] && [ "$rank" = "$RANK" ] ||
    fail "first candidate after the step landed is '$idx $opt $ms $rank $param', want +1 (new) opt $OPT ms $MS rank $RANK"
  case "$param" in *"$TAIL") ;; *) fail "new candidate's parameter is '$param', want …$TAIL";; esac
  tmux send-keys -t "$S" q
  wait_for "EXIT="
  screen | grep -qx "EXIT=0" || fail "exit status: $(screen | grep EXIT=)"
  tmux kill-session -t "$S"; S=""
  echo "e2e follow ok at ${COLS}×${ROWS}"
}

walk 80 24
walk 160 48
follow_walk 80 24
follow_walk 160 48
echo "e2e ok"
