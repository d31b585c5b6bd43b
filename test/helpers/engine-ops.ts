// The engine side of the test images (test/helpers/images.ts builds and pushes them): pulling through the
// engine, running a test container, and removing what a test's prefix names.
import type Docker from 'dockerode'
import { mapBounded } from '../../core/index.js'
import type { Healthcheck, RegistryAuth } from './images.js'

interface ProgressEvent {
  status?: string
  error?: string
  errorDetail?: { message?: string }
}

/** Pull through the engine and follow the progress stream to its end; rejects on an error event. */
export async function pullImage(docker: Docker, ref: string, auth?: RegistryAuth): Promise<void> {
  const opts = auth ? { authconfig: { username: auth.username, password: auth.password, serveraddress: ref.split('/')[0] } } : {}
  const stream = await docker.pull(ref, opts)
  const events = await new Promise<ProgressEvent[]>((resolve, reject) => {
    docker.modem.followProgress(stream, (err: Error | null, out: ProgressEvent[]) => (err ? reject(err) : resolve(out)))
  })
  const bad = events.find(e => e.error || e.errorDetail)
  if (bad) throw new Error(`pull ${ref}: ${bad.errorDetail?.message ?? bad.error}`)
}

export interface RunOptions {
  name: string
  image: string
  labels?: Record<string, string>
  env?: string[]
  cmd?: string[]
  entrypoint?: string[]
  healthcheck?: Healthcheck
  /** e.g. 'always', or { Name: 'on-failure', MaximumRetryCount: 3 } */
  restartPolicy?: string | { Name: string; MaximumRetryCount?: number }
  stopSignal?: string
  /** seconds */
  stopTimeout?: number
  user?: string
  workingDir?: string
  /** default true */
  start?: boolean
  /** merged into HostConfig; NetworkMode may only be 'none' or 'container:<name>' */
  hostConfig?: Docker.HostConfig
  /** merged into the create options, last */
  extra?: Partial<Docker.ContainerCreateOptions>
}

/** Create (and start) a container with no network. Returns the dockerode Container. */
export async function runContainer(docker: Docker, o: RunOptions): Promise<Docker.Container> {
  const hostConfig: Docker.HostConfig = { ...(o.hostConfig ?? {}) }
  hostConfig.NetworkMode ??= 'none'
  if (hostConfig.NetworkMode !== 'none' && !hostConfig.NetworkMode.startsWith('container:')) {
    throw new Error(`test containers run with --network none (got ${hostConfig.NetworkMode})`)
  }
  if (o.restartPolicy) {
    hostConfig.RestartPolicy = typeof o.restartPolicy === 'string' ? { Name: o.restartPolicy } : o.restartPolicy
  }
  const create: Docker.ContainerCreateOptions = {
    name: o.name,
    Image: o.image,
    ...(o.labels ? { Labels: o.labels } : {}),
    ...(o.env ? { Env: o.env } : {}),
    ...(o.cmd ? { Cmd: o.cmd } : {}),
    ...(o.entrypoint ? { Entrypoint: o.entrypoint } : {}),
    ...(o.healthcheck ? { Healthcheck: o.healthcheck } : {}),
    ...(o.stopSignal ? { StopSignal: o.stopSignal } : {}),
    ...(o.stopTimeout !== undefined ? { StopTimeout: o.stopTimeout } : {}),
    ...(o.user ? { User: o.user } : {}),
    ...(o.workingDir ? { WorkingDir: o.workingDir } : {}),
    HostConfig: hostConfig,
    ...(o.extra ?? {}),
  }
  const container = await docker.createContainer(create)
  if (o.start ?? true) await container.start()
  return container
}

/**
 * A list the engine answers with 500 is asked again: Podman fails a whole image list when another test
 * removes an image while it reads the labels ("retrieving label for image …: image not known"), which
 * happened in a CI run here with podman.test.ts and podman-compat.test.ts on the same Podman.
 */
async function listRetrying<T>(list: () => Promise<T>, attempt = 1): Promise<T> {
  try {
    return await list()
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 500 || attempt >= 5) throw err
    await new Promise(r => setTimeout(r, 300 * attempt))
    return listRetrying(list, attempt + 1)
  }
}

/** Force-remove (with anonymous volumes) every container whose name starts with prefix. */
export async function removeContainers(docker: Docker, prefix: string): Promise<number> {
  if (!prefix) throw new Error('removeContainers: empty prefix')
  const all = await listRetrying(() => docker.listContainers({ all: true }))
  const mine = all.filter(c => c.Names.some(n => n.replace(/^\//, '').startsWith(prefix)))
  // A few at a time, and a removal the engine fails under load (500: the kill's exit event did not
  // arrive) is tried again: a thousand forced removals at once overwhelm it.
  const remove = async (id: string, attempt = 1): Promise<void> => {
    try {
      await docker.getContainer(id).remove({ force: true, v: true })
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode
      if (status === 404 || status === 409) return
      if (status === 500 && attempt < 4) {
        await new Promise(r => setTimeout(r, 1000 * attempt))
        return remove(id, attempt + 1)
      }
      throw err
    }
  }
  await mapBounded(mine, 16, c => remove(c.Id))
  return mine.length
}

/**
 * Remove the tags and digests that contain `match` (e.g. a test prefix). By reference, never by image id:
 * identical specs give identical ids, and removing an id would untag another test's image on the shared
 * engine. The image itself goes when its last reference does.
 */
export async function removeImages(docker: Docker, match: string): Promise<number> {
  if (!match) throw new Error('removeImages: empty match')
  const images = await listRetrying(() => docker.listImages({ all: true }))
  const mine = images.filter(i => [...(i.RepoTags ?? []), ...(i.RepoDigests ?? [])].some(r => r.includes(match)))
  for (const i of mine) {
    for (const ref of [...(i.RepoTags ?? []), ...(i.RepoDigests ?? [])].filter(r => r.includes(match))) {
      await docker
        .getImage(ref)
        .remove({ force: true })
        .catch((err: { statusCode?: number }) => {
          if (err.statusCode !== 404 && err.statusCode !== 409) throw err
        })
    }
  }
  return mine.length
}
