// The public surface (core/index.ts) must match docs/api/core.api.md: an export added or removed without
// updating the report (`node scripts/api-report.mjs --write`) fails here, so the surface grows on purpose.
// And it stays small: at most 90 names (docs/plugins.md#contracts says where a plugin's contract goes instead).
import t from 'tap';
// @ts-expect-error: a plain ES module script without type declarations
import { committed, render, surface } from '../../scripts/api-report.mjs';

t.test('core/index.ts exports exactly what docs/api/core.api.md lists', async (t) => {
  const lines = (surface as () => string[])();
  t.ok(lines.length > 20, 'the surface was read');
  t.equal((render as (l: string[]) => string)(lines), (committed as () => string)(), 'run node scripts/api-report.mjs --write after a deliberate change');
});

t.test('the surface holds at most 90 names', async (t) => {
  const lines = (surface as () => string[])();
  t.ok(lines.length <= 90, `${lines.length} names: a single plugin's contract or helper belongs to that plugin (docs/plugins.md#contracts)`);
});
