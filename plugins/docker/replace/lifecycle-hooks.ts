// Lifecycle hooks (`--enable-lifecycle-hooks`): commands from the container's labels run inside it with
// docker exec as `sh -c`, with WT_CONTAINER describing the container (Watchtower's contract, so hook
// scripts written for Watchtower keep working). pre-update, post-update, pre-rollback and post-rollback take
// their timeout in minutes from a label (default 1, 0 = none); the check hooks have Watchtower's fixed minute.
import type Docker from 'dockerode';
import type { EngineClient } from '../engine/client.js';
import { LABEL_PREFIX, WATCHTOWER_LABEL_PREFIX, readLabel } from '../../../core/index.js';
import { containerName, imageNameOf } from '../target.js';
import type { InspectedConfig } from './recreate-config.js';

export type HookPhase = 'pre-check' | 'pre-update' | 'post-update' | 'post-check' | 'pre-rollback' | 'post-rollback';

/** pre-update's exit code that defers the update (EX_TEMPFAIL). */
export const EX_TEMPFAIL = 75;
const MINUTE = 60_000;
const MAX_OUTPUT = 16 * 1024;

export interface HookDefaults {
  readonly uid: number;
  readonly gid: number;
}

export interface HookResult {
  readonly command: string;
  /** Undefined when the command did not finish in time. */
  readonly exitCode: number | undefined;
  readonly timedOut: boolean;
  readonly output: string;
}

export function hookCommand(labels: Readonly<Record<string, string>>, phase: HookPhase): string | undefined {
  const command = readLabel(labels, `lifecycle.${phase}`)?.trim();
  return command ? command : undefined;
}

/** Milliseconds, or undefined for no timeout. */
export function hookTimeoutMs(labels: Readonly<Record<string, string>>, phase: HookPhase): number | undefined {
  if (phase === 'pre-check' || phase === 'post-check') return MINUTE;
  const raw = readLabel(labels, `lifecycle.${phase}-timeout`);
  const minutes = raw !== undefined && /^\s*\d+\s*$/.test(raw) ? Number(raw) : 1;
  return minutes === 0 ? undefined : minutes * MINUTE;
}

function idLabel(labels: Readonly<Record<string, string>>, key: string, fallback: number): number {
  const raw = readLabel(labels, `lifecycle.${key}`);
  const value = raw !== undefined && /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  return Number.isInteger(value) && value <= 2 ** 31 - 1 ? value : fallback;
}

/** `uid[:gid]` for exec, '' for the container's default user (uid 0 means "default", as in Watchtower). */
export function hookUser(labels: Readonly<Record<string, string>>, defaults: HookDefaults): string {
  const uid = idLabel(labels, 'uid', defaults.uid);
  const gid = idLabel(labels, 'gid', defaults.gid);
  if (uid === 0 && gid === 0) return '';
  return gid === 0 ? String(uid) : `${uid}:${gid}`;
}

/** WT_CONTAINER: name, id, image, stop signal and the container's Watchtower/Tidewatch labels. */
export function hookEnvironment(container: Docker.ContainerInspectInfo): string {
  const config = container.Config as InspectedConfig;
  const labels = Object.fromEntries(
    Object.entries(config.Labels ?? {}).filter(([key]) => key.startsWith(WATCHTOWER_LABEL_PREFIX) || key.startsWith(LABEL_PREFIX)),
  );
  return JSON.stringify({
    name: containerName(container.Name),
    id: container.Id,
    image_name: imageNameOf(config.Image, config.Labels ?? {}),
    stop_signal: readLabel(config.Labels ?? {}, 'stop-signal') || config.StopSignal || 'SIGTERM',
    labels,
  });
}

async function collect(stream: NodeJS.ReadableStream, timeoutMs: number | undefined): Promise<{ output: string; timedOut: boolean }> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
            resolve({ output, timedOut: true });
          }, timeoutMs);
    stream.on('data', (chunk: Buffer) => {
      if (output.length < MAX_OUTPUT) output += chunk.toString('utf8');
    });
    stream.on('end', () => {
      clearTimeout(timer);
      resolve({ output, timedOut: false });
    });
    stream.on('error', (err: Error) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Runs the phase's command in the container; undefined when the container has none. */
export async function runHook(
  docker: EngineClient,
  container: Docker.ContainerInspectInfo,
  phase: HookPhase,
  defaults: HookDefaults,
): Promise<HookResult | undefined> {
  const labels = container.Config.Labels ?? {};
  const command = hookCommand(labels, phase);
  if (!command) return undefined;
  const env = hookEnvironment(container);
  const exec = await docker.getContainer(container.Id).exec({
    Cmd: ['sh', '-c', command],
    AttachStdout: true,
    AttachStderr: true,
    Tty: true,
    User: hookUser(labels, defaults),
    Env: [`WT_CONTAINER=${env}`, `TIDEWATCH_CONTAINER=${env}`],
  });
  const stream = await exec.start({ Detach: false, Tty: true });
  const { output, timedOut } = await collect(stream, hookTimeoutMs(labels, phase));
  if (timedOut) return { command, exitCode: undefined, timedOut, output };
  const info = await exec.inspect();
  return { command, exitCode: info.ExitCode ?? undefined, timedOut, output };
}
