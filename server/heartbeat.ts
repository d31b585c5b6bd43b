// The heartbeat behind the image's HEALTHCHECK (docs/image.md, "Health"). The running service writes a
// small JSON file every HEARTBEAT_EVERY_MS: when, and whether its readiness checks (the engine answering)
// passed. `tidewatch --health-check`, run by the engine inside the container, reads it: healthy while the
// file is fresh and ready. A wedged event loop stops the writes; an unreachable engine marks it not ready.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { errorMessage, type Tidewatch } from '../core/index.js';

export const HEARTBEAT_EVERY_MS = 10_000;
/** Three missed beats and a margin: older than this, the service is not answering. */
export const HEARTBEAT_MAX_AGE_MS = 35_000;
const READY_TIMEOUT_MS = 5_000;

export interface Heartbeat {
  readonly pid: number;
  readonly at: string;
  readonly ready: boolean;
  readonly error?: string;
}

async function beat(tw: Tidewatch, path: string): Promise<void> {
  let body: Heartbeat;
  try {
    await tw.health.ready(READY_TIMEOUT_MS);
    body = { pid: process.pid, at: new Date().toISOString(), ready: true };
  } catch (err) {
    body = { pid: process.pid, at: new Date().toISOString(), ready: false, error: errorMessage(err) };
  }
  // Written aside and renamed, so a health check never reads half a file.
  await writeFile(`${path}.tmp`, JSON.stringify(body));
  await rename(`${path}.tmp`, path);
}

/** Starts the beats; the returned function stops them and removes the file. */
export function startHeartbeat(tw: Tidewatch, path: string): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const loop = async (): Promise<void> => {
    try {
      await beat(tw, path);
    } catch (err) {
      tw.logger.warn({ err: errorMessage(err), path }, 'cannot write the heartbeat file');
    }
    if (!stopped) timer = setTimeout(() => void loop(), HEARTBEAT_EVERY_MS).unref();
  };
  void loop();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await rm(path, { force: true });
  };
}

/** The health check's verdict: undefined when healthy, otherwise why not (one line). */
export async function heartbeatProblem(path: string, now = Date.now()): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return `no heartbeat at ${path}: the service is not running (yet)`;
  }
  let beat: Partial<Heartbeat>;
  try {
    beat = JSON.parse(text) as Partial<Heartbeat>;
  } catch {
    return `unreadable heartbeat at ${path}`;
  }
  const age = now - Date.parse(String(beat.at));
  if (!(age <= HEARTBEAT_MAX_AGE_MS)) return `last heartbeat ${Math.round(age / 1000)} s ago: the service is not answering`;
  if (beat.ready !== true) return `not ready: ${beat.error ?? 'readiness check failed'}`;
  return undefined;
}
