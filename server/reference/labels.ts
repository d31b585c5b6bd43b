// The container labels Tidewatch reads, in one table: what docs/labels.md is generated from (npm run
// docs:reference) and what test/docs/reference.test.ts holds the code to: every key a plugin reads with
// readLabel/targetLabel/labelOrGlobal (or a tag.* key) is a row here, and every row is read somewhere.
// Keys are read as `tidewatch.<key>` and as Watchtower's `com.centurylinklabs.watchtower.<key>` (the
// Tidewatch label wins when both are set: docs/interface.md#8-container-labels-tidewatch--key-watchtowers-prefix-is-an-alias).

export interface LabelSpec {
  /** The key after the prefix: `enable`, `lifecycle.pre-update`, `tag.policy`. */
  readonly key: string;
  /** The plugin that reads it. */
  readonly plugin: string;
  /** What the value may be. */
  readonly values: string;
  /** What an unset label means. */
  readonly default: string;
  /** Whether Watchtower (or its fork) reads the same key: a Watchtower file keeps working. */
  readonly watchtower: boolean;
  /** What it does, one sentence. */
  readonly help: string;
  /** The page that tells more. */
  readonly doc: string;
}

export const LABELS: readonly LabelSpec[] = Object.freeze([
  { key: 'enable', plugin: 'docker', values: 'boolean', default: 'watched (with --label-enable: not watched)', watchtower: true, help: '`false` leaves the container out; with `--label-enable` only containers with `true` are watched.', doc: 'docs/interface.md' },
  { key: 'scope', plugin: 'docker', values: 'a name, or `none`', default: 'no scope', watchtower: true, help: 'Which Tidewatch instance watches the container: the one whose `--scope` is the same.', doc: 'docs/watchtower-fork.md' },
  { key: 'monitor-only', plugin: 'docker', values: 'boolean', default: '`--monitor-only`', watchtower: true, help: 'Report an update, never apply it (label OR flag; `--label-take-precedence` lets the label decide).', doc: 'docs/interface.md' },
  { key: 'no-pull', plugin: 'no-pull', values: 'boolean', default: '`--no-pull`', watchtower: true, help: 'Never ask a registry: compare with the local image only.', doc: 'docs/interface.md' },
  { key: 'depends-on', plugin: 'docker', values: 'container names, comma separated', default: 'none', watchtower: true, help: 'Containers this one needs: they are updated first and this one restarts after them.', doc: 'docs/replacement.md' },
  { key: 'stop-signal', plugin: 'docker', values: 'a signal name (`SIGINT`)', default: "the container's own, else `SIGTERM`", watchtower: true, help: 'The signal a replacement stops the container with.', doc: 'docs/stopping.md' },
  { key: 'cooldown-delay', plugin: 'cooldown', values: 'a duration (`3d12h`), `0` turns it off', default: '`--cooldown-delay`', watchtower: true, help: 'Minimum age of a new image before it is applied to this container.', doc: 'docs/watchtower-fork.md' },
  { key: 'copy-file', plugin: 'docker', values: 'paths, comma separated', default: 'none', watchtower: true, help: 'Files carried from the old container into its replacement (also as an image `LABEL`).', doc: 'docs/watchtower-fork.md#the-copy-file-label' },
  { key: 'lifecycle.pre-check', plugin: 'docker', values: 'a shell command', default: 'none', watchtower: true, help: 'Run in the container before a check, with `--enable-lifecycle-hooks` (time limit: one minute, as in Watchtower\'s code).', doc: 'docs/interface.md' },
  { key: 'lifecycle.post-check', plugin: 'docker', values: 'a shell command', default: 'none', watchtower: true, help: 'Run in the container after a check, with `--enable-lifecycle-hooks` (time limit: one minute).', doc: 'docs/interface.md' },
  { key: 'lifecycle.pre-update', plugin: 'docker', values: 'a shell command', default: 'none', watchtower: true, help: 'Run in the old container before it is stopped for an update; exit 75 skips the update.', doc: 'docs/interface.md' },
  { key: 'lifecycle.post-update', plugin: 'docker', values: 'a shell command', default: 'none', watchtower: true, help: 'Run in the new container once it runs.', doc: 'docs/interface.md' },
  { key: 'lifecycle.pre-update-timeout', plugin: 'docker', values: 'minutes, `0` for none', default: '1', watchtower: true, help: 'Time limit of the pre-update hook.', doc: 'docs/interface.md' },
  { key: 'lifecycle.post-update-timeout', plugin: 'docker', values: 'minutes, `0` for none', default: '1', watchtower: true, help: 'Time limit of the post-update hook.', doc: 'docs/interface.md' },
  { key: 'lifecycle.pre-rollback', plugin: 'docker', values: 'a shell command', default: 'none', watchtower: false, help: 'Run in the container being rolled back from, when it runs, before any rollback (automatic or on demand), with `--enable-lifecycle-hooks`.', doc: 'docs/snapshots.md' },
  { key: 'lifecycle.post-rollback', plugin: 'docker', values: 'a shell command', default: 'none', watchtower: false, help: 'Run in the restored container once it runs again after a rollback, with `--enable-lifecycle-hooks`.', doc: 'docs/snapshots.md' },
  { key: 'lifecycle.pre-rollback-timeout', plugin: 'docker', values: 'minutes, `0` for none', default: '1', watchtower: false, help: 'Time limit of the pre-rollback hook.', doc: 'docs/snapshots.md' },
  { key: 'lifecycle.post-rollback-timeout', plugin: 'docker', values: 'minutes, `0` for none', default: '1', watchtower: false, help: 'Time limit of the post-rollback hook.', doc: 'docs/snapshots.md' },
  { key: 'snapshot', plugin: 'docker', values: '`volumes`', default: 'none (`volumes` with `--snapshot-volumes`)', watchtower: false, help: 'Snapshot the read-write named volumes before each update, restored with its rollback (needs `--data-dir`).', doc: 'docs/snapshots.md' },
  { key: 'lifecycle.uid', plugin: 'docker', values: 'a user id', default: '`--lifecycle-uid`', watchtower: true, help: 'The user hooks run as.', doc: 'docs/interface.md' },
  { key: 'lifecycle.gid', plugin: 'docker', values: 'a group id', default: '`--lifecycle-gid`', watchtower: true, help: 'The group hooks run as.', doc: 'docs/interface.md' },
  { key: 'git.repo', plugin: 'git', values: 'a repository URL', default: 'not Git-watched', watchtower: false, help: 'Makes the container Git-watched: stale when the ref\'s head commit differs from its commit.', doc: 'docs/interface.md#9-git-watched-containers' },
  { key: 'git.ref', plugin: 'git', values: 'a branch or tag', default: "the remote's default branch", watchtower: false, help: 'The ref a Git-watched container follows.', doc: 'docs/interface.md#9-git-watched-containers' },
  { key: 'git.commit', plugin: 'git', values: 'a commit id', default: "the image's `org.opencontainers.image.revision`", watchtower: false, help: 'The commit the running image was built from.', doc: 'docs/interface.md#9-git-watched-containers' },
  { key: 'tag.policy', plugin: 'registry', values: '`digest`, `patch`, `minor`, `major`, `pin`', default: '`--tag-policy` (`digest`)', watchtower: false, help: 'Follow newer versions, not only newer digests of the same tag.', doc: 'docs/tags.md' },
  { key: 'tag.include', plugin: 'registry', values: 'an RE2 pattern', default: 'every tag', watchtower: false, help: 'Candidate tags must match it (What\'s Up Docker\'s `wud.tag.include` is an alias).', doc: 'docs/tags.md' },
  { key: 'tag.exclude', plugin: 'registry', values: 'an RE2 pattern', default: 'none', watchtower: false, help: 'Candidate tags must not match it (alias `wud.tag.exclude`).', doc: 'docs/tags.md' },
  { key: 'tag.transform', plugin: 'registry', values: '`REGEX => $1…`', default: 'the tag as it is', watchtower: false, help: 'The version is read from the transformed tag (alias `wud.tag.transform`).', doc: 'docs/tags.md' },
  { key: 'tag.prerelease', plugin: 'registry', values: 'boolean', default: '`false`', watchtower: false, help: 'Allow pre-release candidates.', doc: 'docs/tags.md' },
  { key: 'verify', plugin: 'signatures', values: '`off`, `warn`, `enforce`', default: '`--verify-signatures`', watchtower: false, help: 'Signature policy of this container.', doc: 'docs/signatures.md' },
  { key: 'update-window', plugin: 'policies', values: '`CRON;DURATION[;ZONE]`, or `always`', default: '`--update-window`', watchtower: false, help: 'When updates of this container may apply.', doc: 'docs/policies.md' },
  { key: 'approval', plugin: 'policies', values: '`none`, `major`, `minor`, `all`', default: '`--approval`', watchtower: false, help: 'Which updates of this container wait for a person.', doc: 'docs/policies.md' },
  { key: 'notify', plugin: 'notify', values: 'boolean', default: '`true`', watchtower: false, help: '`false` leaves the container out of every notification (its updates still happen).', doc: 'docs/notifications.md' },
  { key: 'release-notes', plugin: 'release-notes', values: 'a URL template (`{version}`, `{tag}`)', default: "from the image's source repository", watchtower: false, help: 'Where the release notes of a new version are.', doc: 'docs/versions.md' },
]);
