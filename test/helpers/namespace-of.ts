// Which kernel namespace a container is in, read inside it (docs/replacement.md#shared-namespaces): two
// containers share one exactly when `ls -l /proc/self/ns/<kind>` shows the same inode in both.
import type Docker from 'dockerode';

/** `net:[4026532…]` (or ipc:, pid:) of the container named or identified by `container`. */
export async function namespaceOf(engine: Docker, container: string, kind: 'net' | 'ipc' | 'pid'): Promise<string> {
  const exec = await engine.getContainer(container).exec({ Cmd: ['ls', '-l', `/proc/self/ns/${kind}`], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (d: Buffer) => chunks.push(d));
    stream.on('end', () => resolve());
    stream.on('error', reject);
  });
  // The multiplexed stream's 8-byte frame headers are not part of `net:[4026532…]`.
  const match = /(net|ipc|pid):\[\d+\]/.exec(Buffer.concat(chunks).toString('latin1'));
  if (!match) throw new Error(`no ${kind} namespace read in ${container}`);
  return match[0];
}
