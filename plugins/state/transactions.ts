// Writes are incremental and grouped (docs/state.md#the-database): the first write of a tick opens a
// transaction, later writes of the same tick join it, and it commits on the next turn of the event loop — a
// check of 5,000 containers is one commit, not 5,000 fsyncs. Reads on the same connection see the open
// transaction. `commitNow` ends it at once, for writes whose caller waits on durability (the audit trail).
import type { DatabaseSync } from 'node:sqlite';
import { errorMessage, type Logger } from '../../core/index.js';

export class Transactions {
  #open = false;
  #scheduled = false;

  constructor(
    readonly db: DatabaseSync,
    readonly logger: Logger,
  ) {}

  /** Runs `write` inside the tick's transaction. */
  write<T>(write: () => T): T {
    if (!this.#open) {
      this.db.exec('BEGIN IMMEDIATE');
      this.#open = true;
      this.#schedule();
    }
    return write();
  }

  /** Commits what is pending now; true when it is on disk (or there was nothing). */
  commitNow(): boolean {
    if (!this.#open) return true;
    this.#open = false;
    try {
      this.db.exec('COMMIT');
      return true;
    } catch (err) {
      // A full disk or an I/O error: what this transaction held is lost, the store goes on from its last commit.
      this.logger.error({ err: errorMessage(err) }, 'could not save the state');
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // Already rolled back by SQLite.
      }
      return false;
    }
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.commitNow();
    });
  }
}
