// Building the Engine client from DOCKER_HOST-style options. The server has already resolved the
// variables (DOCKER_HOST, DOCKER_CERT_PATH, DOCKER_TLS_VERIFY) into the options; nothing here reads them.
// The parsing lives in ./endpoint.ts, which the agent mode imports without the client.
import { EngineClient } from './client.js';
import { DEFAULT_HOST, transportOptions, type DockerConnectionOptions } from './endpoint.js';

export {
  normaliseApiVersion,
  parseDockerHost,
  transportOptions,
  type DockerConnectionOptions,
  type DockerEndpoint,
  type TunnelEndpoint,
} from './endpoint.js';

/** An Engine client for the given connection, named by its configured host; the server reuses it for its own Engine calls. */
export function createDockerClient(options: DockerConnectionOptions = {}): EngineClient {
  return new EngineClient(options.host?.trim() || DEFAULT_HOST, transportOptions(options));
}

/** `GET /_ping`, abortable. */
export async function pingEngine(docker: EngineClient, signal?: AbortSignal): Promise<void> {
  await docker.ping({ signal });
}

/**
 * How recent an engine's last successful answer must be for readiness to take it instead of a ping of its own
 * (docs/hosts.md#when-an-engine-is-down): a probe during start-up or a run, while the engines are busiest, adds
 * no request behind theirs.
 */
export const ANSWERED_RECENTLY_MS = 2000;

/** Readiness of one engine: it answered a call within ANSWERED_RECENTLY_MS and none failed to reach it since, else a ping. */
export async function engineAnswers(docker: EngineClient, signal?: AbortSignal): Promise<void> {
  if (docker.answeredWithin(ANSWERED_RECENTLY_MS)) return;
  await pingEngine(docker, signal);
}
