// Swarm services on the test environment's Swarm engine (scripts/test-env.sh): created from images of the local
// registry with a pinned digest (what `docker service create` writes after resolving the tag), quick to stop and
// quick to update, and removed by prefix afterwards.
import type Docker from 'dockerode'
import type { EngineApi, EngineRequestOptions } from '../../contracts/index.js';
import { waitFor } from './env.js'

const SECOND = 1_000_000_000

export interface ServiceOptions {
  name: string
  /** `repo:tag@sha256:…`, as the Docker CLI pins it */
  image: string
  /** replicated with this many replicas (default 1), or global */
  mode?: { replicas: number } | 'global'
  labels?: Record<string, string>
  /** the service's own update_config failure action (Swarm's default: pause) */
  failureAction?: 'pause' | 'continue' | 'rollback'
}

export interface ServiceState {
  id: string
  version: number
  image: string
  labels: Record<string, string>
  updateState: string | undefined
}

/** Creates the service; its tasks stop within a second and an update is judged within two. */
export async function createService(engine: Docker, o: ServiceOptions): Promise<string> {
  const mode = o.mode === 'global' ? { Global: {} } : { Replicated: { Replicas: o.mode?.replicas ?? 1 } }
  const spec = {
    Name: o.name,
    Labels: o.labels ?? {},
    TaskTemplate: {
      ContainerSpec: { Image: o.image, StopGracePeriod: 1 * SECOND },
      RestartPolicy: { Condition: 'on-failure', Delay: 1 * SECOND },
    },
    Mode: mode,
    UpdateConfig: {
      Parallelism: 1,
      Delay: 0,
      FailureAction: o.failureAction ?? 'pause',
      Monitor: 2 * SECOND,
      MaxFailureRatio: 0,
      Order: 'stop-first',
    },
    RollbackConfig: { Parallelism: 0, Delay: 0, Monitor: 1 * SECOND, FailureAction: 'pause', Order: 'stop-first' },
  }
  const created = (await engine.createService(spec as unknown as Docker.CreateServiceOptions)) as unknown as { id?: string; ID?: string }
  return (created.id ?? created.ID) as string
}

export async function serviceState(engine: Docker, id: string): Promise<ServiceState> {
  const s = (await engine.getService(id).inspect()) as {
    ID: string
    Version: { Index: number }
    Spec: { Labels?: Record<string, string>; TaskTemplate: { ContainerSpec: { Image: string } } }
    UpdateStatus?: { State?: string }
  }
  return {
    id: s.ID,
    version: s.Version.Index,
    image: s.Spec.TaskTemplate.ContainerSpec.Image,
    labels: s.Spec.Labels ?? {},
    updateState: s.UpdateStatus?.State,
  }
}

interface Task {
  ID: string
  DesiredState: string
  Status: { State: string; ContainerStatus?: { ContainerID?: string } }
  Spec: { ContainerSpec: { Image: string } }
}

/** The service's tasks that are running and meant to. */
export async function runningTasks(engine: Docker, id: string): Promise<Task[]> {
  const tasks = (await engine.listTasks({ filters: JSON.stringify({ service: [id] }) })) as Task[]
  return tasks.filter((task) => task.DesiredState === 'running' && task.Status.State === 'running')
}

/** Waits until exactly `count` tasks run `image` and no other task is meant to run. */
export async function waitForTasks(engine: Docker, id: string, image: string, count: number, timeoutMs = 60_000): Promise<Task[]> {
  return waitFor(async () => {
    const tasks = (await engine.listTasks({ filters: JSON.stringify({ service: [id] }) })) as Task[]
    const meant = tasks.filter((task) => task.DesiredState === 'running')
    const running = meant.filter((task) => task.Status.State === 'running' && task.Spec.ContainerSpec.Image === image)
    return meant.length === count && running.length === count ? running : undefined
  }, timeoutMs, 250)
}

/** Removes every service whose name starts with `prefix`, then waits until their task containers are gone. */
export async function removeServices(engine: Docker, prefix: string): Promise<void> {
  const services = (await engine.listServices()) as { ID: string; Spec: { Name: string } }[]
  const mine = services.filter((s) => s.Spec.Name.startsWith(prefix))
  await Promise.all(mine.map((s) => engine.getService(s.ID).remove().catch(() => undefined)))
  await waitFor(async () => {
    const containers = await engine.listContainers({ all: true })
    return containers.every((c) => !mine.some((s) => c.Labels['com.docker.swarm.service.id'] === s.ID))
  }, 30_000, 250)
}

/**
 * An Engine API connection of the tests' own (undici over the unix socket), the shape the docker runtime offers
 * as DOCKER_ENGINES: lets a test hand the swarm runtime's parts several engines, or one engine under two names.
 */
export async function engineApi(socketPath: string, host = `unix://${socketPath}`): Promise<EngineApi & { close(): Promise<void> }> {
  const { Agent, request } = await import('undici')
  const agent = new Agent({ connect: { socketPath } })
  return {
    host,
    async request<T>(method: string, path: string, options: EngineRequestOptions = {}): Promise<T> {
      const query = new URLSearchParams()
      for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) query.set(k, String(v))
      const res = await request(`http://docker${path}${query.size ? `?${query}` : ''}`, {
        method: method as 'GET',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', ...options.headers },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        ...(options.signal ? { signal: options.signal } : {}),
      })
      const text = await res.body.text()
      const json = text ? (JSON.parse(text) as unknown) : undefined
      if (res.statusCode >= 400) {
        throw Object.assign(new Error((json as { message?: string } | undefined)?.message ?? text), { statusCode: res.statusCode })
      }
      return json as T
    },
    close: () => agent.close(),
  }
}
