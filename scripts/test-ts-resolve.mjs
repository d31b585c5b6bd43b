// Test processes run the TypeScript sources with Node's own type transform (package.json "tap":
// type-strip-only, --experimental-transform-types; CONTRIBUTING.md#test-lanes). The sources import each
// other as `./name.js`, TypeScript's NodeNext convention, and no `.js` exists beside them: this in-thread
// resolve hook (module.registerHooks, no loader thread) turns a relative `.js` that is not on disk into the
// `.ts` that is.
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

registerHooks({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL;
    if (specifier.endsWith('.js') && specifier.startsWith('.') && parent?.startsWith('file:') && !parent.includes('/node_modules/')) {
      const url = new URL(specifier, parent);
      if (!existsSync(fileURLToPath(url))) {
        const ts = new URL(`${url.pathname.slice(0, -3)}.ts${url.search}`, url);
        if (existsSync(fileURLToPath(ts))) return nextResolve(ts.href, context);
      }
    }
    return nextResolve(specifier, context);
  },
});
