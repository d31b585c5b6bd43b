// Pulling through the Engine with the registry's credentials. The Engine reports a failed pull inside
// the progress stream, not as an HTTP status, so the whole stream is read. Credentials the registry
// refuses are retried anonymously once (a public image behind a stale password), as Watchtower does.
import Docker from 'dockerode';
import type { AuthFor, RegistryAuth } from './options.js';

interface ProgressEvent {
  readonly status?: string;
  readonly error?: string;
  readonly errorDetail?: { readonly message?: string };
}

async function pullOnce(docker: Docker, image: string, auth: RegistryAuth | undefined): Promise<void> {
  const stream = (await docker.pull(image, auth ? { authconfig: auth } : {})) as NodeJS.ReadableStream;
  const events = await new Promise<ProgressEvent[]>((resolve, reject) => {
    docker.modem.followProgress(stream, (err: Error | null, output: ProgressEvent[]) =>
      err ? reject(err) : resolve(output ?? []),
    );
  });
  const failed = events.find((event) => event.error || event.errorDetail?.message);
  if (failed) throw new Error(`pull ${image}: ${failed.errorDetail?.message ?? failed.error}`);
}

function isUnauthorized(err: unknown): boolean {
  return /unauthori[sz]ed|authentication required|denied/i.test(String(err instanceof Error ? err.message : err));
}

export async function pullImage(docker: Docker, image: string, authFor: AuthFor | undefined): Promise<void> {
  const auth = authFor ? await authFor(image) : undefined;
  try {
    await pullOnce(docker, image, auth);
  } catch (err) {
    if (!auth || !isUnauthorized(err)) throw err;
    await pullOnce(docker, image, undefined);
  }
}
