#!/usr/bin/env bash
# End-to-end walk of the TUI on the embedded demo run, in a detached tmux
# pane of fixed size (tui-stack.md §2.4): the planted spike
# (testdata/demo/TRUTH.json) is the first candidate → `p` pins it (the
# header shows the pin) → `3` shows F! at the planted layer → `enter`
# names the planted operator → `q` exits 0 and leaves the alternate screen.
# Along the way: `y` copies the candidate's coordinate into tmux's buffer
# (OSC 52, set-clipboard on), and after `q` a restart on the same state
# folder (a temporary XDG_STATE_HOME) shows the pin and its note (`a`) again.
# At 80×24 it also checks that the parameter names keep their layer and
# leaf, that `?` shows the legend of the screen's marks, and that → scrolls
# the layer table to the C/D columns.
# Asserts on capture-pane text; each wait times out after 20 s. The tmux
# server is the script's own (socket E2E_TMUX_SOCKET, default per process):
# other sessions on the machine are never touched.
# Then the follow walk: the TUI follows a temp copy of the demo's monitor
# CSV tree holding the steps before the fault; the fault step's files land
# while it is open → the planted spike appears as a new (+) candidate.
# usage: .ci/e2e-tmux.sh /path/to/spikescope
set -euo pipefail
BIN=$(realpath "${1:?usage: $0 /path/to/spikescope}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRUTH="$ROOT/testdata/demo/TRUTH.json"
WAIT_S=${E2E_WAIT_S:-20}
SOCK=${E2E_TMUX_SOCKET:-spikescope-e2e-$$}
tm() { tmux -L "$SOCK" "$@"; }
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

S=""
WORK=$(mktemp -d)   # the UI's working directory (where `r` would write)
fail() {
  echo "e2e FAIL ($COLS×$ROWS): $*"
  if [ -n "$S" ]; then echo "---- screen ----"; tm capture-pane -p -t "$S" 2>/dev/null || true; echo "----"; fi
  exit 1
}
# only this script's server: its own socket
cleanup() { tm kill-server 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

screen() { tm capture-pane -p -t "$S"; }
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

# the server lives for the whole script (a session that waits), so killing
# a walk's session never ends it; OSC 52 from the UI fills its buffer
tm new-session -d -s keeper "sleep 3600"
tm set -s set-clipboard on

start() { # start: the UI in a new session of the script's server, state in $STATE
  S="spikescope-e2e-$$-$COLS-$1"
  tm new-session -d -s "$S" -x "$COLS" -y "$ROWS" \
    "cd '$WORK' && XDG_STATE_HOME='$STATE' TERM=xterm-256color '$BIN'; echo EXIT=\$?; sleep 30"
}

walk() { # walk COLS ROWS
  COLS=$1 ROWS=$2
  STATE="$WORK/state-$COLS"
  start 1
  wait_for "candidate 1 of"

  # 1. the planted spike is the first candidate: the row under the header
  # (columns by header name: the step column only shows on wide screens);
  # the name is shortened from the middle, "L<layer> <leaf>", so it is the
  # rest of the row up to the next column
  first=$(first_row)
  [ -n "$first" ] || fail "no candidate table on the Phase 1 screen"
  read -r idx opt ms rank layer param <<<"$first"
  [ "$idx" = 1 ] && [ "$opt" = "$OPT" ] && [ "$ms" = "$MS" ] && [ "$rank" = "$RANK" ] ||
    fail "first candidate is '$first', want opt $OPT ms $MS rank $RANK"
  # the layer and the leaf stay at every width (80 columns included)
  [ "$layer" = "L$LAYER" ] || fail "first candidate's name does not start with its layer: '$layer $param', want L$LAYER"
  case "$param" in *"$TAIL") ;; *) fail "first candidate's parameter is '$param', want …$TAIL";; esac
  screen | grep -qF "▸ $PARAM" || fail "the selected row's full name $PARAM is not on screen"

  # 2. y copies its coordinate in --pin form into tmux's buffer
  tm send-keys -t "$S" y
  wait_for "copied the coordinate"
  buf=$(tm show-buffer 2>/dev/null) || fail "y left tmux's buffer empty"
  case "$buf" in "opt=$OPT,ms=$MS,rank=$RANK,param="*"$TAIL") ;; *) fail "tmux's buffer holds '$buf'";; esac

  # 3. p pins it; the header shows the pin
  tm send-keys -t "$S" p
  wait_for "PIN opt=$OPT,ms=$MS,rank=$RANK"
  screen | head -1 | grep -qF "PIN opt=$OPT,ms=$MS,rank=$RANK" || fail "the pin is not in the header line"
  # a writes a one-line note on the pin, shown with it
  tm send-keys -t "$S" a
  wait_for "note on the pin"
  tm send-keys -t "$S" -l "e2e note"
  tm send-keys -t "$S" Enter
  wait_for "note kept with the pin"
  # (in the header when it fits beside the pin, else in the footer)
  tm send-keys -t "$S" j k
  wait_for "e2e note"

  # 4. Phase 3: F! at the planted layer (the start marker ▶ may precede it)
  tm send-keys -t "$S" 3
  wait_for "F-anomaly"
  wait_re "^ *[▶◀]*$LAYER .*F!" "F! on layer $LAYER"
  screen | head -1 | grep -qF "PIN opt=$OPT" || fail "the pin left the header on Phase 3"

  # 4a. the line under the table says what decided the selected layer's
  # flag: its degree against the band
  wait_re "^L$LAYER .*· fwd [0-9.]+ (above|below) the band [0-9.]+–[0-9.]+: F!" "the flag line of layer $LAYER"

  # 4b. `?` shows the legend of this screen's marks; ? closes it
  tm send-keys -t "$S" '?'
  wait_for "marks on this screen"
  wait_for "(A/B)/(C/D)"
  tm send-keys -t "$S" '?'
  wait_re "^ +L +F[-_]" "the layer table after ? closed the legend"   # the legend names F-anomaly too

  # 4c. where the columns do not all fit, → scrolls to the control
  # group's raw values (F_C, F_D), and ← comes back
  if ! screen | grep -qE " F_D( |$)"; then
    screen | grep -qF "cols 1–" || fail "columns hidden without an indicator"
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12; do tm send-keys -t "$S" Right; done
    wait_re " F_C .* F_D( |$)" "the F_C and F_D columns after →"
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12; do tm send-keys -t "$S" Left; done
    wait_re "^ *L F-anomaly" "the first columns after ←"
  fi

  # 4d. t: where the global grad norm came from — the root step's row, the
  # peak step (the log's spike) selected with what moved; esc comes back
  tm send-keys -t "$S" t
  wait_for "global grad norm per rank"
  wait_re "^(  |▸ )$OPT root" "the root step's row on the grad-norm screen"
  wait_re "^▸ [0-9]+ (root·)?peak" "the peak step selected"
  wait_re "^(one parameter|one layer|one rank|everything) moved" "what moved the norm"
  tm send-keys -t "$S" Escape
  wait_for "F-anomaly"

  # 5. enter on the (preselected) earliest divergent layer names the operator
  tm send-keys -t "$S" Enter
  wait_for "ops ("
  wait_for "$OPER"

  # 5b. r m writes the report and shows its whole path (wrapped, never
  # cut); y copies it
  tm send-keys -t "$S" r
  wait_for "h HTML"
  tm send-keys -t "$S" m
  wait_for "report written to"
  screen | tr -d '\n' | grep -qF "$STATE/spikescope/reports/" || fail "the report's path is not shown whole"
  screen | tr -d '\n' | grep -qE "reports/[^ ]+\.md · y copies the path" || fail "the report's file name is cut"
  tm send-keys -t "$S" y
  wait_for "copied the path"

  # 6. q quits with status 0, the alternate screen is gone, and the
  # command line that reopens the pin is printed
  tm send-keys -t "$S" q
  wait_for "EXIT="
  screen | grep -qx "EXIT=0" || fail "exit status: $(screen | grep EXIT=)"
  if screen | grep -qF "F-anomaly"; then fail "the UI is still on screen after exit (alternate screen not left)"; fi
  screen | grep -qE -- "--pin '?opt=$OPT,ms=$MS,rank=$RANK,param=" || fail "no --pin line printed on exit"
  tm kill-session -t "$S"

  # 7. a restart on the same input and state folder shows the pin again
  start 2
  wait_for "candidate 1 of"
  wait_for "PIN opt=$OPT,ms=$MS,rank=$RANK"
  wait_for "e2e note" # the note came back with the pin
  tm send-keys -t "$S" q
  wait_for "EXIT="
  tm kill-session -t "$S"; S=""
  echo "e2e ok at ${COLS}×${ROWS}"
}

# first_row: "# opt ms rank L<layer> <leaf>" of the first candidate row
# (columns by header name; the name is shortened from the middle)
first_row() {
  screen | awk '/ opt .* rank .*parameter/ {
      for (i = 1; i <= NF; i++) col[$i] = i
      getline
      print $col["#"], $col["opt"], $col["ms"], $col["rank"], $(col["parameter"]), $(col["parameter"] + 1); exit }'
}

# nodump_walk: a run without dumps: Phase 3 names `w`, which opens the plan
nodump_walk() { # nodump_walk COLS ROWS
  COLS=$1 ROWS=$2
  S="spikescope-e2e-nodump-$$-$COLS"
  tm new-session -d -s "$S" -x "$COLS" -y "$ROWS" \
    "cd '$WORK' && XDG_STATE_HOME='$WORK/state-nodump-$COLS' TERM=xterm-256color '$BIN' '$ROOT/testdata/demo/npu/monitor_output'; echo EXIT=\$?; sleep 30"
  wait_for "candidate 1 of"
  tm send-keys -t "$S" 3
  wait_for "w shows the msprobe configs"
  tm send-keys -t "$S" w
  wait_for "Next-collection plan"
  wait_for "plan written to"
  tm send-keys -t "$S" q
  wait_for "EXIT="
  screen | grep -qx "EXIT=0" || fail "exit status: $(screen | grep EXIT=)"
  tm kill-session -t "$S"; S=""
  echo "e2e no-dump plan ok at ${COLS}×${ROWS}"
}

follow_walk() { # follow_walk COLS ROWS
  COLS=$1 ROWS=$2
  local src="$ROOT/testdata/demo/npu/monitor_output" run="$WORK/run-$COLS" d s
  for d in "$src"/*/; do # the steps before the fault
    mkdir -p "$run/$(basename "$d")"
    for ((s = 0; s < OPT; s++)); do cp "$d"/*_"$s-$s".csv "$run/$(basename "$d")/"; done
  done
  S="spikescope-e2e-follow-$$-$COLS"
  tm new-session -d -s "$S" -x "$COLS" -y "$ROWS" \
    "cd '$WORK' && XDG_STATE_HOME='$WORK/state-follow-$COLS' TERM=xterm-256color '$BIN' '$run' --follow --interval 300ms; echo EXIT=\$?; sleep 30"
  wait_for "following · last data"
  wait_for "No anomaly found"
  for d in "$src"/*/; do cp "$d"/*_"$OPT-$OPT".csv "$run/$(basename "$d")/"; done # the fault step lands
  wait_for "step $OPT"
  wait_for "candidate 1 of"
  read -r idx opt ms rank layer param <<<"$(first_row)"
  [ "$idx" = +1 ] && [ "$opt" = "$OPT" ] && [ "$ms" = "$MS" ] && [ "$rank" = "$RANK" ] ||
    fail "first candidate after the step landed is '$idx $opt $ms $rank $layer $param', want +1 (new) opt $OPT ms $MS rank $RANK"
  case "$param" in *"$TAIL") ;; *) fail "new candidate's parameter is '$param', want …$TAIL";; esac
  tm send-keys -t "$S" q
  wait_for "EXIT="
  screen | grep -qx "EXIT=0" || fail "exit status: $(screen | grep EXIT=)"
  tm kill-session -t "$S"; S=""
  echo "e2e follow ok at ${COLS}×${ROWS}"
}

walk 80 24
walk 160 48
nodump_walk 80 24
follow_walk 80 24
follow_walk 160 48
echo "e2e ok"
