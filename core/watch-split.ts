// The watch split: every target has exactly one watch path, the `update_source` of its check record, and
// only sources serving that path answer for it (docs/plugins.md#the-watch-split). The path is decided from
// the target before any source is asked, so the split holds whichever sources are loaded: a Git-watched
// container is never registry-checked because the Git plugin happens to be missing or to run late.
//
// What the core knows, and why: one label, `git.repo`. A container with a non-blank `git.repo` label is
// Git-watched (docs/interface.md#9-git-watched-containers); that rule must hold even when no Git plugin is
// loaded, so it cannot live in the Git plugin. Every other path is claimed by the plugin that serves it.
import { readLabel } from './labels.js';
import type { Target } from './types.js';

/** The default path: the image's registry. */
export const REGISTRY_PATH = 'registry';
/** Targets with a `git.repo` label. */
export const GIT_PATH = 'git';

export type WatchClaim = (target: Target) => boolean;

/** A non-blank `git.repo` label; a blank value (an unset compose variable) counts as absent. */
export function isGitWatched(labels: Readonly<Record<string, string>>): boolean {
  return (readLabel(labels, 'git.repo') ?? '').trim() !== '';
}

export class WatchSplit {
  readonly #claims: { path: string; claims: WatchClaim }[] = [{ path: GIT_PATH, claims: (t) => isGitWatched(t.labels) }];

  /** A plugin's own path: targets `claims` accepts are watched by it (claims are asked in the order made). */
  claim(path: string, claims: WatchClaim): void {
    this.#claims.push({ path, claims });
  }

  pathOf(target: Target): string {
    return this.#claims.find((c) => c.claims(target))?.path ?? REGISTRY_PATH;
  }
}

/** Named stages, so plugins order their taps by meaning rather than by numbers (docs/plugins.md#stages). */
export const STAGES = Object.freeze({
  checkStaleness: Object.freeze({
    /** Observers that must run before any source (lifecycle pre-check commands); they return undefined. */
    observe: -100,
    /** Sources answering from local state only (no-pull): before any remote request is made. */
    local: -10,
    /** Sources that ask a remote (registry, Git host): the default stage. */
    remote: 0,
  }),
  review: Object.freeze({
    /**
     * Facts about the candidate itself, from where it comes (the registry's candidate version, the runtime's
     * Compose note): the default stage, first, so the later stages can read what it found.
     */
    describe: 0,
    /** Verifiers of the candidate (signatures, docs/signatures.md): their verdict is a finding the gates read. */
    verify: 10,
    /**
     * What the candidate means to a person, read from what the earlier stages found (release notes read the
     * version `describe` found, docs/versions.md#release-notes): last.
     */
    explain: 20,
  }),
  gate: Object.freeze({
    /** Report-only docs/interface.md (monitor-only): Watchtower applies no other gate to those targets. */
    report: 0,
    /** Gates that defer an update (cooldown). */
    defer: 10,
    /** Gates that verify the image an update would run (signatures, docs/signatures.md): after the deferring ones. */
    verify: 20,
    /**
     * Gates that ask a person (approvals, docs/policies.md#approvals): after every other gate, so a person is
     * asked only about a candidate that may otherwise be applied.
     */
    consent: 50,
    /**
     * Gates that decide when (update windows, docs/policies.md#update-windows): last before commit, so that the
     * others still judge a candidate outside its window (an approval is asked for ahead of the window).
     */
    schedule: 60,
    /** After every gate said yes: the target will be applied (a runtime may start its pull here). */
    commit: 100,
  }),
});
