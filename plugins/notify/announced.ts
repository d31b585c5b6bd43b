// What has been announced, so a pending update is announced once per new image, not on every run
// (docs/notifications.md#no-repeats). Kept in `notify-announced.json` under --data-dir (docs/state.md) so a
// restart does not announce it again, written atomically (contracts/shared/atomic-file.ts: never half-written);
// without a data directory it is kept in memory only. The file of earlier versions,
// `tidewatch-announced.json` in the data directory (or the working directory when none was set), is read
// once when the new one does not exist yet. A file that cannot be read or written costs only the memory
// across restarts: it is logged (an unreadable one moved aside), never fatal.
import { join } from 'node:path';
import { errorMessage, type Logger } from '../../core/index.js';
import { readJsonFile, writeFileAtomic } from '../../contracts/shared/atomic-file.js';

export const ANNOUNCED_FILE = 'notify-announced.json';
/** Where versions before docs/state.md kept it: read once for compatibility. */
export const LEGACY_ANNOUNCED_FILE = 'tidewatch-announced.json';

interface AnnouncedFile {
  readonly version: 1;
  /** Container name → the image (digest or id) last announced for it. */
  readonly announced: Record<string, string>;
}

function isAnnouncedFile(value: unknown): value is AnnouncedFile {
  const v = value as Partial<AnnouncedFile> | null;
  return typeof v === 'object' && v !== null && typeof v.announced === 'object' && v.announced !== null;
}

export class AnnouncedUpdates {
  readonly #file: string | undefined;
  readonly #logger: Logger;
  readonly #announced = new Map<string, string>();
  /** Changed since the last save: a run that changes nothing writes nothing. */
  #dirty = false;
  #writing: Promise<void> = Promise.resolve();

  private constructor(file: string | undefined, logger: Logger) {
    this.#file = file;
    this.#logger = logger;
  }

  static async open(dataDir: string, logger: Logger): Promise<AnnouncedUpdates> {
    const store = new AnnouncedUpdates(dataDir ? join(dataDir, ANNOUNCED_FILE) : undefined, logger);
    const current = store.#file ? await readJsonFile(store.#file, logger, isAnnouncedFile) : undefined;
    const loaded = current ?? (await readJsonFile(join(dataDir || process.cwd(), LEGACY_ANNOUNCED_FILE), logger, isAnnouncedFile));
    for (const [name, latest] of Object.entries(loaded?.announced ?? {})) {
      if (typeof latest === 'string') store.#announced.set(name, latest);
    }
    // Read from the old file: written to the new one at the next save.
    if (!current && loaded) store.#dirty = true;
    return store;
  }

  /** The file under the data directory, undefined when kept in memory only. */
  get file(): string | undefined {
    return this.#file;
  }

  /** True when `latest` is not what was last announced for this container. */
  isNew(container: string, latest: string): boolean {
    return this.#announced.get(container) !== latest;
  }

  remember(container: string, latest: string): void {
    if (this.#announced.get(container) === latest) return;
    this.#announced.set(container, latest);
    this.#dirty = true;
  }

  /** The container runs what was announced (updated) or is fresh again: a later image is news. */
  forget(container: string): void {
    if (this.#announced.delete(container)) this.#dirty = true;
  }

  /** Writes the file; concurrent saves are serialised, the last state wins. */
  save(): Promise<void> {
    const file = this.#file;
    if (!this.#dirty || !file) return this.#writing;
    this.#dirty = false;
    const body: AnnouncedFile = { version: 1, announced: Object.fromEntries(this.#announced) };
    this.#writing = this.#writing.then(async () => {
      try {
        await writeFileAtomic(file, `${JSON.stringify(body, null, 2)}\n`);
      } catch (err) {
        this.#logger.warn({ file, err: errorMessage(err) }, 'could not save what was announced; a restart may repeat it');
      }
    });
    return this.#writing;
  }
}
