// `tidewatch notify-upgrade`, the Watchtower fork's subcommand (docs/watchtower-fork.md#notify-upgrade): the
// notification settings (URLs and the deprecated --notifications kinds) written as one
// `WATCHTOWER_NOTIFICATION_URL=` line to a file in the working directory, kept until SIGTERM/SIGINT or five
// minutes, so a user can `docker cp` it out of the container. The file holds secrets: mode 0600, and only its
// name is logged.
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { legacyNotificationUrls, type LegacyNotificationOptions } from '../plugins/notify/legacy.js';

export const KEEP_MS = 5 * 60_000;

export interface NotifyUpgradeIo {
  readonly cwd: string;
  readonly stderr: NodeJS.WritableStream;
}

export async function notifyUpgrade(config: Readonly<Record<string, unknown>>, io: NotifyUpgradeIo, keepMs = KEEP_MS): Promise<number> {
  const urls = [...((config['notificationUrl'] as string[] | undefined) ?? []), ...legacyNotificationUrls(config as unknown as LegacyNotificationOptions)];
  const file = join(io.cwd, `watchtower-notif-urls-${randomBytes(6).toString('hex')}`);
  await writeFile(file, `WATCHTOWER_NOTIFICATION_URL=${urls.join(' ')}\n`, { mode: 0o600, flag: 'wx' });
  const say = (line: string) => io.stderr.write(`tidewatch: ${line}\n`);
  say(`found ${urls.length} notification URL(s); written to ${file}`);
  say(`to get the environment file: docker cp <container>:${file} ./watchtower-notifications.env`);
  say('the file is removed in 5 minutes or when this process is stopped');
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      process.off('SIGTERM', done);
      process.off('SIGINT', done);
      resolve();
    };
    const timer = setTimeout(done, keepMs);
    process.on('SIGTERM', done);
    process.on('SIGINT', done);
  });
  await rm(file, { force: true });
  say(`removed ${file}`);
  return 0;
}
