// The registry plugin's options and their JSON schema (validated with ajv by the core before apply).
import type { JsonSchema } from '../../core/index.js';

export interface RegistryPluginOptions {
  /** Plain http and no certificate checks (`--registry-tls-skip`). Default false. */
  tlsSkip?: boolean;
  /** Registry requests in flight at once, all registries together (`--registry-concurrency`). Default 20. */
  concurrency?: number;
  /** Directory of config.json. Default `DOCKER_CONFIG`, else `~/.docker`. */
  dockerConfigDir?: string;
  /** Fallback credentials for every registry (REPO_USER / REPO_PASS). */
  repoUser?: string;
  repoPass?: string;
  /** Timeout of one HTTP request, ms. Default 30000. */
  requestTimeoutMs?: number;
  /** Longest a request waits for a rate-limiting registry before its containers get an error, ms. Default 30000. */
  rateLimitMaxWaitMs?: number;
  /** Retries of one request after a rate limit. Default 4. */
  rateLimitRetries?: number;
}

export const registryOptionsSchema: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    tlsSkip: { type: 'boolean', default: false },
    concurrency: { type: 'integer', minimum: 1, default: 20 },
    dockerConfigDir: { type: 'string', minLength: 1 },
    repoUser: { type: 'string' },
    repoPass: { type: 'string' },
    requestTimeoutMs: { type: 'integer', minimum: 1, default: 30_000 },
    rateLimitMaxWaitMs: { type: 'integer', minimum: 0, default: 30_000 },
    rateLimitRetries: { type: 'integer', minimum: 0, default: 4 },
  },
  additionalProperties: false,
});
