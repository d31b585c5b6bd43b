// The state plugin's snapshot contract (docs/plugins.md#contracts): volume snapshots taken with an update and
// restored with its rollback (docs/snapshots.md), re-exported by the contracts entry for the runtime. The state plugin
// keeps the files and their index under <data-dir>/snapshots/ and provides them as SNAPSHOTS; a runtime takes
// the bytes out of its engine and puts them back. The runtime never sees a path: it writes and reads streams.
import type { Readable } from 'node:stream';
import { defineService, type ServiceKey } from '../../core/index.js';
import type { Page, PageQuery } from './contracts.js';

/** One volume of a snapshot: `bytes` is the sum of its regular files' sizes, `sha256` the tar file's. */
export interface SnapshotVolume {
  readonly name: string;
  /** Where the container mounts it (the tar's root is that directory's base name). */
  readonly destination: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** A snapshot as GET /v1/snapshots shows it (docs/http-api.md#get-v1snapshots). */
export interface SnapshotRecord {
  readonly id: string;
  readonly container: string;
  readonly host?: string;
  /** RFC 3339. */
  readonly created_at: string;
  readonly volumes: readonly SnapshotVolume[];
  readonly run_id: string;
  /** The image the container ran when the snapshot was taken: the one a rollback puts back. */
  readonly image_id: string;
}

/** What GET /v1/snapshots filters on. */
export interface SnapshotQuery {
  readonly container?: string;
  readonly host?: string;
}

/** The snapshot options (docs/snapshots.md#options). */
export interface SnapshotSettings {
  /** `--snapshot-volumes`: every container, not only those labelled `tidewatch.snapshot=volumes`. */
  readonly all: boolean;
  readonly retention: number;
  readonly maxBytes: number;
  /** False without --data-dir: a labelled container is skipped (`snapshot needs --data-dir`). */
  readonly available: boolean;
}

/** A snapshot being written: one tar a volume, then commit (flushed, indexed) or abort (nothing left). */
export interface SnapshotWriter {
  readonly id: string;
  /** Writes one volume's tar; `bytes` counts its regular files. Rejects past the size bound (`tooLarge`). */
  addVolume(name: string, destination: string, tar: Readable, bytes: () => number): Promise<SnapshotVolume>;
  commit(): Promise<SnapshotRecord>;
  abort(): Promise<void>;
}

/**
 * A restore that may be under way: written before a volume is touched, removed once every volume holds the
 * snapshot again. Start-up repair finishes one a killed process left (docs/snapshots.md#crash-safety).
 */
export interface SnapshotJournal {
  /** The container the volumes are restored through (stopped while the journal entry lasts). */
  readonly containerId: string;
  readonly snapshotId: string;
  /** `update`: the new container may have changed the volumes; `restore`: a restore began. */
  readonly phase: 'update' | 'restore';
}

export interface Snapshots {
  readonly settings: SnapshotSettings;
  /** Free bytes where snapshots are written. */
  freeBytes(): Promise<number>;
  begin(meta: { container: string; host?: string; runId: string; imageId: string }): Promise<SnapshotWriter>;
  get(id: string): SnapshotRecord | undefined;
  /** The newest snapshot of a container (by name and engine) taken while it ran `imageId`, if any. */
  latestFor(container: string, host: string | undefined, imageId?: string): SnapshotRecord | undefined;
  /** One volume's tar, checked against its sha256 as it is read (the stream fails on a mismatch). */
  read(id: string, volume: string): Readable;
  page(query: SnapshotQuery & PageQuery): Page<SnapshotRecord>;
  /** Journal entries by container id (docs/snapshots.md#crash-safety); written to disk before they return. */
  journal(containerId: string): SnapshotJournal | undefined;
  setJournal(containerId: string, entry: SnapshotJournal | undefined): Promise<void>;
  journals(): readonly SnapshotJournal[];
  /** A rollback on demand asked for its snapshot back (`restore=volumes`): the snapshot, by run and container id. */
  restoreRequested(runId: string, containerId: string): SnapshotRecord | undefined;
}

export const SNAPSHOTS: ServiceKey<Snapshots> = defineService<Snapshots>('snapshots');

/** The label value that asks for snapshots (`tidewatch.snapshot=volumes`). */
export const SNAPSHOT_VOLUMES = 'volumes';
