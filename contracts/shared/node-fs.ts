// Node's file calls for the modules a service loads when it starts (docs/performance.md#memory), taken with
// `process.getBuiltinModule`, never with an ES import of node:fs or node:fs/promises. An ES import builds the
// module's namespace from every export: node:fs's `promises` getter then loads node:fs/promises, whose FileHandle
// reads lines through readline (its interface, the REPL's history) beside the fs watchers and streams; and
// node:fs/promises itself loads the same. About 0.8 MB of an idle service for calls it makes a few times at
// start. The promise forms below are the callback calls promisified: they answer and fail as node:fs/promises'
// do (the same errors, codes and paths). `openHandle` is node:fs/promises' own `open` (a FileHandle): it loads
// node:fs/promises with its first call, so it is for what runs after start-up (a migration with a file to
// read, a snapshot, an SSH key). test/server/lazy-load.test.ts fails when an idle service loads node:fs/promises.
import type * as FsPromises from 'node:fs/promises';

export const nodeFs = process.getBuiltinModule('node:fs');
const { promisify } = process.getBuiltinModule('node:util');

export const mkdir = promisify(nodeFs.mkdir) as typeof FsPromises.mkdir;
export const readFile = promisify(nodeFs.readFile) as typeof FsPromises.readFile;
export const writeFile = promisify(nodeFs.writeFile) as typeof FsPromises.writeFile;
export const readdir = promisify(nodeFs.readdir) as typeof FsPromises.readdir;
export const rename = promisify(nodeFs.rename) as typeof FsPromises.rename;
export const rm = promisify(nodeFs.rm) as typeof FsPromises.rm;
export const link = promisify(nodeFs.link) as typeof FsPromises.link;
export const unlink = promisify(nodeFs.unlink) as typeof FsPromises.unlink;
export const stat = promisify(nodeFs.stat) as typeof FsPromises.stat;
export const statfs = promisify(nodeFs.statfs) as typeof FsPromises.statfs;
export const utimes = promisify(nodeFs.utimes) as typeof FsPromises.utimes;
export const realpath = promisify(nodeFs.realpath) as typeof FsPromises.realpath;
export const chown = promisify(nodeFs.chown) as typeof FsPromises.chown;

/** node:fs/promises' `open`, loaded at its first call (see above). */
export const openHandle: typeof FsPromises.open = (...args) => nodeFs.promises.open(...args);
