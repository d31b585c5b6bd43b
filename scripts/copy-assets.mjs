// Part of `npm run build`: tsc compiles TypeScript only, so the dashboard's static files are copied next
// to the compiled module that serves them (dist/plugins/http-api/dashboard/assets).
import { cpSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
cpSync(`${root}plugins/http-api/dashboard/assets`, `${root}dist/plugins/http-api/dashboard/assets`, { recursive: true });
