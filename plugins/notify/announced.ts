// What has been announced, so a pending update is announced once per new image, not on every run
// (docs/notifications.md#no-repeats). Kept in a small JSON file under --data-dir so a restart does not
// announce it again; written atomically (a temporary file renamed over the old one). A file that cannot
// be read or written costs only the memory across restarts: it is logged, never fatal.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errorMessage, type Logger } from '../../core/index.js';

export const ANNOUNCED_FILE = 'tidewatch-announced.json';

interface AnnouncedFile {
  readonly version: 1;
  /** Container name → the image (digest or id) last announced for it. */
  readonly announced: Record<string, string>;
}

export class AnnouncedUpdates {
  readonly #file: string;
  readonly #logger: Logger;
  readonly #announced = new Map<string, string>();
  /** Changed since the last save: a run that changes nothing writes nothing. */
  #dirty = false;
  #writing: Promise<void> = Promise.resolve();

  private constructor(file: string, logger: Logger) {
    this.#file = file;
    this.#logger = logger;
  }

  static async open(dataDir: string, logger: Logger): Promise<AnnouncedUpdates> {
    const store = new AnnouncedUpdates(join(dataDir || process.cwd(), ANNOUNCED_FILE), logger);
    await store.#load();
    return store;
  }

  get file(): string {
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
    if (!this.#dirty) return this.#writing;
    this.#dirty = false;
    const body: AnnouncedFile = { version: 1, announced: Object.fromEntries(this.#announced) };
    this.#writing = this.#writing.then(async () => {
      try {
        await mkdir(dirname(this.#file), { recursive: true });
        const temporary = `${this.#file}.${process.pid}.tmp`;
        try {
          await writeFile(temporary, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
          await rename(temporary, this.#file);
        } catch (err) {
          await rm(temporary, { force: true }).catch(() => undefined);
          throw err;
        }
      } catch (err) {
        this.#logger.warn({ file: this.#file, err: errorMessage(err) }, 'could not save what was announced; a restart may repeat it');
      }
    });
    return this.#writing;
  }

  async #load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.#file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.#logger.warn({ file: this.#file, err: errorMessage(err) }, 'could not read what was announced');
      }
      return;
    }
    try {
      const parsed = JSON.parse(text) as Partial<AnnouncedFile>;
      for (const [name, latest] of Object.entries(parsed.announced ?? {})) {
        if (typeof latest === 'string') this.#announced.set(name, latest);
      }
    } catch (err) {
      this.#logger.warn({ file: this.#file, err: errorMessage(err) }, 'ignoring an unreadable announcements file');
    }
  }
}
