#!/usr/bin/env bash
# The project's test command (`npm test`): build, typecheck, run the unit lane on every core while the real
# test environment starts, then the environment lane, check coverage over both, print the 20 slowest test
# files, and close on one line: `N passed, N failed` (CONTRIBUTING.md#test-lanes).
#
# Tap's settings live in package.json "tap" (no tap typecheck: tsc runs here; 600 s per file); the jobs are
# set here per lane.
# Environment: TIDEWATCH_ENV_DIR (see scripts/test-env.sh); CI=true makes a missing environment fatal.
# Extra arguments are passed to tap, e.g. `npm test -- --grep=lock`.
set -euo pipefail
cd "$(dirname "$0")/.."

# Line coverage the unit tests must reach, over the project code they load (tap counts only files
# that some test imports; test/ itself is excluded). 70 is deliberate: unit tests cover core/,
# server/ and plugin logic; what only a real engine or registry exercises is proven by the
# environment lane, which mostly drives the built binary in another process: it runs without
# coverage, whose instrumentation of every process it starts cost time and added little here.
COVERAGE_LINES_MIN=70

REPORT_DIR=.tap/report
TAP_OUT=.tap/results.tap
UNIT_OUT=.tap/results-unit.tap

# The suite runs on the Node versions package.json's "engines" names (docs/node.md). A machine whose
# own node is outside them (Debian's or an older runner's Node 20) gets the pinned Node 24 from the npm
# registry (scripts/pinned-node.sh) first on PATH, so `npm test` means the same on every machine.
if ! node scripts/engines-check.mjs; then
  PATH="$(bash scripts/pinned-node.sh 24 </dev/null):$PATH"
  export PATH
  node scripts/engines-check.mjs
fi
echo "test.sh: node $(node --version) ($(command -v node))"

# Seconds since the start on each step's line, so a CI log says where its time went.
started_at=$(date +%s)
step() { echo "test.sh: +$(( $(date +%s) - started_at ))s $*"; }

mkdir -p .tap
rm -rf "$REPORT_DIR" .tap/coverage-unit .tap/processinfo-unit
# The environment (private engines, registries: scripts/test-env.sh) needs no build: it starts first and
# comes up beside the build, the typecheck and the unit lane.
env_pid=
if [ "$(id -u)" -eq 0 ]; then
  bash scripts/test-env.sh up >.tap/test-env.log 2>&1 &
  env_pid=$!
elif [ "${CI:-}" = "true" ]; then
  echo "test.sh: CI=true but not root: cannot start the test environment (private dockerd, registries)" >&2
  exit 1
else
  echo "test.sh: warning: not root, not starting the test environment; tests that need it will skip" >&2
fi

# The build and the typecheck are two single-threaded tsc runs: side by side on two cores.
step "build and typecheck"
npm run build >.tap/build.log 2>&1 &
build_pid=$!
npm run typecheck >.tap/typecheck.log 2>&1 &
typecheck_pid=$!
build_rc=0; typecheck_rc=0
wait "$build_pid" || build_rc=$?
wait "$typecheck_pid" || typecheck_rc=$?
cat .tap/build.log .tap/typecheck.log
if [ "$build_rc" -ne 0 ] || [ "$typecheck_rc" -ne 0 ]; then
  echo "test.sh: build exited $build_rc, typecheck exited $typecheck_rc" >&2
  # Let the environment finish starting, so whoever stops it next does not race its start.
  [ -n "$env_pid" ] && wait "$env_pid" || true
  echo "0 passed, 1 failed"
  exit 1
fi

# Two lanes (CONTRIBUTING.md#test-lanes, scripts/test-lanes.mjs): the unit lane (no environment) runs first
# on every core while the environment starts beside it; then the environment lane, three files at a time.
mapfile -t unit_files < <(node scripts/test-lanes.mjs | awk '$1 == "unit" { print $2 }')
mapfile -t env_files < <(node scripts/test-lanes.mjs | awk '$1 == "environment" { print $2 }')
files=("${unit_files[@]}" "${env_files[@]}")
if [ ${#files[@]} -eq 0 ]; then
  echo "test.sh: no test files under test/" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

tap_rc=0
# The raw TAP goes to the console and to $UNIT_OUT / $TAP_OUT, which is what gets counted below.
step "unit lane: ${#unit_files[@]} files, $(nproc) jobs"
if [ ${#unit_files[@]} -gt 0 ]; then
  # A unit file that needed the environment after all fails here (under CI=true) instead of racing its start.
  TIDEWATCH_ENV_DIR=/nonexistent/tidewatch-unit-lane npx tap --reporter=tap --jobs="$(nproc)" "$@" "${unit_files[@]}" | tee "$UNIT_OUT" || tap_rc=$?
else
  : >"$UNIT_OUT"
fi
# Each tap run starts by deleting the coverage of the last one: the unit lane's is kept aside and put back.
[ -d .tap/coverage ] && mv .tap/coverage .tap/coverage-unit
[ -d .tap/processinfo ] && mv .tap/processinfo .tap/processinfo-unit

if [ -n "$env_pid" ]; then
  step "unit lane done; waiting for the environment"
  env_rc=0
  wait "$env_pid" || env_rc=$?
  cat .tap/test-env.log >&2
  if [ "$env_rc" -ne 0 ]; then
    echo "test.sh: scripts/test-env.sh up failed ($env_rc)" >&2
    echo "0 passed, 1 failed"
    exit 1
  fi
fi

# TIDEWATCH_ENV_JOBS: how many environment files at once (default 3; they share the engines and the cores).
# A third job fills the time the other two spend waiting on engines, grace periods and windows (CONTRIBUTING.md#test-lanes).
env_jobs="${TIDEWATCH_ENV_JOBS:-3}"
step "environment lane: ${#env_files[@]} files, $env_jobs jobs"
if [ ${#env_files[@]} -gt 0 ]; then
  npx tap --reporter=tap --jobs="$env_jobs" --disable-coverage "$@" "${env_files[@]}" | tee "$TAP_OUT" || tap_rc=$?
else
  : >"$TAP_OUT"
fi
mkdir -p .tap/coverage .tap/processinfo
if [ -d .tap/coverage-unit ]; then cp -a .tap/coverage-unit/. .tap/coverage/ && rm -rf .tap/coverage-unit; fi
if [ -d .tap/processinfo-unit ]; then cp -a .tap/processinfo-unit/. .tap/processinfo/ && rm -rf .tap/processinfo-unit; fi

step "environment lane done"
# Coverage: json-summary of the unit lane's run, into .tap/report/coverage-summary.json.
coverage_rc=0
npx tap report json-summary >/dev/null 2>&1 || true
node --input-type=module - "$REPORT_DIR/coverage-summary.json" "$COVERAGE_LINES_MIN" <<'EOF' || coverage_rc=$?
import { existsSync, readFileSync } from 'node:fs'
const [file, min] = process.argv.slice(2)
if (!existsSync(file)) {
  console.log('coverage: no coverage generated (no project code loaded by the tests): threshold not applied')
  process.exit(0)
}
const { lines } = JSON.parse(readFileSync(file, 'utf8')).total
if (!lines.total) {
  console.log('coverage: no project lines loaded by the tests: threshold not applied')
  process.exit(0)
}
const ok = lines.pct >= Number(min)
console.log(`coverage: lines ${lines.pct}% (${lines.covered}/${lines.total}), threshold ${min}%${ok ? '' : ': TOO LOW'}`)
process.exit(ok ? 0 : 1)
EOF

# Count tests from the raw TAP. A test is a leaf: a subtest without subtests of its own, or an
# assertion made directly in a file or in a subtest that also has subtests. A file or subtest that
# failed without any failed test inside (a crash, a timeout, a wrong plan) counts as one failure, and
# so does every test file that never reported (tap itself died).
node --input-type=module - "$UNIT_OUT" "$TAP_OUT" "$tap_rc" "${files[@]}" <<'EOF' && count_rc=0 || count_rc=$?
import { readFileSync } from 'node:fs'
import { Parser } from 'tap-parser'
const [unitOut, out, tapRc, ...files] = process.argv.slice(2)
const events = [...Parser.parse(readFileSync(unitOut, 'utf8')), ...Parser.parse(readFileSync(out, 'utf8'))]
const hasSubtests = evs => evs.some(e => e[0] === 'child')
const add = (a, b) => { for (const k of Object.keys(a)) a[k] += b[k] }
// Each failed test, with the path of subtests to it and the start of its diagnostic: printed again at the
// end, so the last lines of a log (all a CI page may show) say which test failed and why.
const failures = []
// A leaf subtest's own failed assertions say more than its name: they are listed under it.
function failed(path, r, sub) {
  const asserts = (sub ?? []).filter(([type, a]) => type === 'assert' && !a.ok && !a.skip && !a.todo).map(([, a]) => a)
  if (asserts.length === 0) failures.push({ path: [...path, r.name].join(' > '), diag: r.diag })
  for (const a of asserts) failures.push({ path: [...path, r.name, a.name].join(' > '), diag: a.diag })
}
function count(evs, path = []) {
  const c = { pass: 0, fail: 0, skip: 0, bailout: 0 }
  let child
  for (const [type, data] of evs) {
    if (type === 'bailout') { c.bailout++; failures.push({ path: [...path, `Bail out! ${data}`].join(' > ') }) }
    if (type === 'child') { child = data; continue }
    if (type !== 'assert') continue
    const r = data
    const sub = child
    child = undefined
    if (r.skip || r.todo) c.skip++
    else if (sub && hasSubtests(sub)) {
      const inner = count(sub, [...path, r.name])
      add(c, inner)
      if (!r.ok && inner.fail === 0) { c.fail++; failed(path, r) }
    } else if (r.ok) c.pass++
    else { c.fail++; failed(path, r, sub) }
  }
  return c
}
const total = count(events)
const reported = new Set(events.filter(e => e[0] === 'assert').map(e => e[1].name))
const missing = files.filter(f => !reported.has(f))
for (const f of missing) console.log(`test file never reported: ${f}`)
total.fail += missing.length
if (total.bailout && total.fail === 0) total.fail = 1
if (Number(tapRc) !== 0 && total.fail === 0) {
  console.log(`tap exited ${tapRc} with no failed test counted`)
  total.fail = 1
}
if (total.skip) console.log(`${total.skip} skipped`)
// Where the time goes: the 20 slowest test files of both lanes, from tap's own time per file.
const timed = events.filter(e => e[0] === 'assert' && files.includes(e[1].name) && typeof e[1].time === 'number')
  .map(e => [e[1].name, e[1].time]).sort((a, b) => b[1] - a[1]).slice(0, 20)
console.log(`slowest test files (${timed.length} of ${files.length}):`)
for (const [name, ms] of timed) console.log(`${(ms / 1000).toFixed(1).padStart(8)} s  ${name}`)
// The failures last, just above the count: the path and the first lines of each diagnostic.
const FAILURES_SHOWN = 10
const DIAG_LINES = 16
if (failures.length || missing.length) console.log(`failed (${failures.length + missing.length}):`)
for (const f of missing) console.log(`  never reported: ${f}`)
for (const { path, diag } of failures.slice(0, FAILURES_SHOWN)) {
  console.log(`  not ok: ${path}`)
  if (!diag) continue
  // A diff or a source keeps its own lines; other values are one JSON line each.
  const lines = Object.entries(diag).flatMap(([key, value]) =>
    typeof value === 'string' && value.includes('\n')
      ? [`${key}:`, ...value.trimEnd().split('\n').map(line => `  ${line}`)]
      : [`${key}: ${JSON.stringify(value)}`])
  for (const line of lines.slice(0, DIAG_LINES)) console.log(`      ${line.trimEnd().slice(0, 200)}`)
  if (lines.length > DIAG_LINES) console.log(`      … ${lines.length - DIAG_LINES} more lines`)
}
if (failures.length > FAILURES_SHOWN) console.log(`  … and ${failures.length - FAILURES_SHOWN} more failures above`)
console.log(`${total.pass} passed, ${total.fail} failed`)
process.exit(total.fail ? 1 : 0)
EOF

[ "$count_rc" -eq 0 ] && [ "$coverage_rc" -eq 0 ] && [ "$tap_rc" -eq 0 ]
