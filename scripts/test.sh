#!/usr/bin/env bash
# The project's test command (`npm test`): build, typecheck, start the real test environment, run every
# test file with tap, check coverage, and close on one line: `N passed, N failed`.
#
# Tap's settings live in package.json "tap" (no tap typecheck: tsc runs here; 600 s per file; 2 jobs).
# Environment: TIDEWATCH_ENV_DIR (see scripts/test-env.sh); CI=true makes a missing environment fatal.
# Extra arguments are passed to tap, e.g. `npm test -- --grep=lock`.
set -euo pipefail
cd "$(dirname "$0")/.."

# Line coverage the unit tests must reach, over the project code they load (tap counts only files
# that some test imports; test/ itself is excluded). 70 is deliberate: unit tests cover core/,
# server/ and plugin logic; what only a real engine or registry exercises is proven by test/e2e/,
# which mostly drives the built binary in another process and so adds little to this number.
COVERAGE_LINES_MIN=70

REPORT_DIR=.tap/report
TAP_OUT=.tap/results.tap

# The suite runs on the Node versions package.json's "engines" names (docs/node.md). A machine whose
# own node is outside them (Debian's or an older runner's Node 20) gets the pinned Node 24 from the npm
# registry (scripts/pinned-node.sh) first on PATH, so `npm test` means the same on every machine.
if ! node scripts/engines-check.mjs; then
  PATH="$(bash scripts/pinned-node.sh 24 </dev/null):$PATH"
  export PATH
  node scripts/engines-check.mjs
fi
echo "test.sh: node $(node --version) ($(command -v node))"

npm run build
npm run typecheck

if [ "$(id -u)" -eq 0 ]; then
  bash scripts/test-env.sh up
elif [ "${CI:-}" = "true" ]; then
  echo "test.sh: CI=true but not root: cannot start the test environment (private dockerd, registries)" >&2
  exit 1
else
  echo "test.sh: warning: not root, not starting the test environment; tests that need it will skip" >&2
fi

mapfile -t files < <(find test -name '*.test.ts' | sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "test.sh: no test files under test/" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

mkdir -p .tap
rm -rf "$REPORT_DIR"
tap_rc=0
# The raw TAP goes to the console and to $TAP_OUT, which is what gets counted below.
npx tap --reporter=tap --jobs=2 "$@" "${files[@]}" | tee "$TAP_OUT" || tap_rc=$?

# Coverage: json-summary of the run above, into .tap/report/coverage-summary.json.
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
node --input-type=module - "$TAP_OUT" "$tap_rc" "${files[@]}" <<'EOF' && count_rc=0 || count_rc=$?
import { readFileSync } from 'node:fs'
import { Parser } from 'tap-parser'
const [out, tapRc, ...files] = process.argv.slice(2)
const events = Parser.parse(readFileSync(out, 'utf8'))
const hasSubtests = evs => evs.some(e => e[0] === 'child')
const add = (a, b) => { for (const k of Object.keys(a)) a[k] += b[k] }
function count(evs) {
  const c = { pass: 0, fail: 0, skip: 0, bailout: 0 }
  let child
  for (const [type, data] of evs) {
    if (type === 'bailout') c.bailout++
    if (type === 'child') { child = data; continue }
    if (type !== 'assert') continue
    const r = data
    const sub = child
    child = undefined
    if (r.skip || r.todo) c.skip++
    else if (sub && hasSubtests(sub)) {
      const inner = count(sub)
      add(c, inner)
      if (!r.ok && inner.fail === 0) c.fail++
    } else if (r.ok) c.pass++
    else c.fail++
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
console.log(`${total.pass} passed, ${total.fail} failed`)
process.exit(total.fail ? 1 : 0)
EOF

[ "$count_rc" -eq 0 ] && [ "$coverage_rc" -eq 0 ] && [ "$tap_rc" -eq 0 ]
