// The Engine calls the docker runtime makes, as methods named after the Engine API's own operations
// (and dockerode's, whose types describe the answers). Every call is one request on the engine's
// keep-alive transport; nothing is loaded beyond Node's http (docs/performance.md#memory).
import type http from 'node:http';
import type Docker from 'dockerode';
import { parseImageReference } from '../../../core/index.js';
import { registryAuthHeader, type RegistryAuth } from '../../../contracts/index.js';
import type { EngineApi, EngineRequestOptions } from '../contracts.js';
import { EngineTransport, type EngineCallOptions, type EngineTransportOptions } from './transport.js';
import type { EngineInfo } from '../image/store.js';
import type { MirrorsInfo } from './registry-mirrors.js';

/** Pull progress lines; a failed pull is reported in the stream, not by the status. */
interface ProgressEvent {
  readonly error?: string;
  readonly errorDetail?: { readonly message?: string };
}

/** An image reference as the path segment the Engine routes (`{name:.*}`): slashes and colons stay. */
function imagePath(name: string): string {
  return encodeURI(name);
}

export interface ExecHandle {
  /** Runs the command attached (Tty): the stream of its output, ending when the command does. */
  start(options: { Detach: false; Tty: boolean }): Promise<NodeJS.ReadableStream>;
  inspect(): Promise<{ ExitCode: number | null; Running: boolean }>;
}

/** The Engine's `X-Docker-Container-Path-Stat` (Go's os.FileMode bits in `mode`). */
export interface ContainerPathStat {
  readonly name: string;
  readonly size: number;
  readonly mode: number;
  readonly mtime: string;
  readonly linkTarget: string;
}

export interface ContainerHandle {
  readonly id: string;
  inspect(options?: { signal?: AbortSignal }): Promise<Docker.ContainerInspectInfo>;
  start(): Promise<void>;
  stop(options: { t: number }): Promise<void>;
  kill(options: { signal: string }): Promise<void>;
  rename(options: { name: string }): Promise<void>;
  remove(options: { force?: boolean; v?: boolean }): Promise<void>;
  wait(options: { condition: 'not-running' | 'next-exit' | 'removed'; abortSignal?: AbortSignal }): Promise<{ StatusCode: number }>;
  exec(options: Docker.ExecCreateOptions): Promise<ExecHandle>;
}

export interface ImageHandle {
  inspect(options?: { signal?: AbortSignal }): Promise<Docker.ImageInspectInfo>;
  remove(options: { force?: boolean; noprune?: boolean }): Promise<void>;
  /** Gives the image the name `repo:tag` (moved from any image that had it). */
  tag(options: { repo: string; tag: string }): Promise<void>;
}

export class EngineClient implements EngineApi {
  readonly #transport: EngineTransport;

  constructor(
    readonly host: string,
    options: EngineTransportOptions,
  ) {
    this.#transport = new EngineTransport(options);
  }

  request<T>(method: string, path: string, options?: EngineCallOptions): Promise<T> {
    return this.#transport.request<T>(method, path, options);
  }

  /** The engine answered a call with success within the last `ms`, and none failed to reach it since (transport.ts). */
  answeredWithin(ms: number): boolean {
    return this.#transport.answeredWithin(ms);
  }

  async ping(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.request('GET', '/_ping', options);
  }

  version(): Promise<{ ApiVersion: string; Version: string; Components?: { Name: string }[] }> {
    return this.request('GET', '/version');
  }

  /** `GET /info`: the engine's settings, read once per engine for its image store (image/store.ts) and mirrors. */
  info(): Promise<EngineInfo & MirrorsInfo> {
    return this.request('GET', '/info');
  }

  listContainers(options: { all?: boolean; filters?: Record<string, string[]>; signal?: AbortSignal } = {}): Promise<Docker.ContainerInfo[]> {
    const query = { all: options.all, filters: options.filters ? JSON.stringify(options.filters) : undefined };
    return this.request('GET', '/containers/json', { query, signal: options.signal });
  }

  /** The top-level images (`GET /images/json`): ids, repo digests and labels of every image in one answer. */
  listImages(options: { signal?: AbortSignal } = {}): Promise<Docker.ImageInfo[]> {
    return this.request('GET', '/images/json', { signal: options.signal });
  }

  /**
   * The Engine's image events from `sinceSeconds` (Unix time) on, as a stream that stays open
   * (`GET /events`), on a connection of its own so that it never holds one of the pool's.
   */
  imageEvents(sinceSeconds: number, signal?: AbortSignal): Promise<http.IncomingMessage> {
    const query = { since: sinceSeconds, filters: JSON.stringify({ type: ['image'] }) };
    return this.#transport.open('GET', '/events', { query, agent: false, signal });
  }

  async createContainer(options: Docker.ContainerCreateOptions): Promise<ContainerHandle> {
    const { name, ...body } = options;
    const created = await this.request<{ Id: string }>('POST', '/containers/create', { query: { name }, body });
    return this.getContainer(created.Id);
  }

  getContainer(id: string): ContainerHandle {
    const base = `/containers/${encodeURIComponent(id)}`;
    const call = async (method: string, path: string, options?: EngineRequestOptions) => {
      await this.request(method, `${base}${path}`, options);
    };
    return {
      id,
      inspect: (options = {}) => this.request('GET', `${base}/json`, options),
      start: () => call('POST', '/start'),
      stop: ({ t }) => call('POST', '/stop', { query: { t } }),
      kill: ({ signal }) => call('POST', '/kill', { query: { signal } }),
      rename: ({ name }) => call('POST', '/rename', { query: { name } }),
      remove: ({ force, v }) => call('DELETE', '', { query: { force, v } }),
      wait: ({ condition, abortSignal }) => this.request('POST', `${base}/wait`, { query: { condition }, signal: abortSignal }),
      exec: async (options) => {
        const { Id } = await this.request<{ Id: string }>('POST', `${base}/exec`, { body: options });
        return this.#exec(Id);
      },
    };
  }

  #exec(id: string): ExecHandle {
    const base = `/exec/${encodeURIComponent(id)}`;
    return {
      // Without an Upgrade header the Engine answers 200 and streams the raw output until the command
      // ends, then closes the connection: a connection of its own, never the shared keep-alive pool.
      start: (options) => this.#transport.open('POST', `${base}/start`, { body: options, agent: false }),
      inspect: () => this.request('GET', `${base}/json`),
    };
  }

  getImage(name: string): ImageHandle {
    const base = `/images/${imagePath(name)}`;
    return {
      inspect: (options = {}) => this.request('GET', `${base}/json`, options),
      remove: async ({ force, noprune }) => {
        await this.request('DELETE', base, { query: { force, noprune } });
      },
      tag: async ({ repo, tag }) => {
        await this.request('POST', `${base}/tag`, { query: { repo, tag } });
      },
    };
  }

  /**
   * `GET /containers/{id}/archive?path=`: a tar of the file or directory at `path` (its headers keep owner and
   * mode), on a connection of its own so that an answer read only in part never returns to the pool.
   */
  getArchive(id: string, path: string, signal?: AbortSignal): Promise<http.IncomingMessage> {
    return this.#transport.open('GET', `/containers/${encodeURIComponent(id)}/archive`, { query: { path }, agent: false, signal });
  }

  /**
   * `HEAD /containers/{id}/archive?path=`: the engine's stat of `path` inside the container, the last component
   * not followed (a symbolic link is reported as one, with its target); undefined when nothing is there.
   */
  async statPath(id: string, path: string): Promise<ContainerPathStat | undefined> {
    let response: http.IncomingMessage;
    try {
      response = await this.#transport.open('HEAD', `/containers/${encodeURIComponent(id)}/archive`, { query: { path } });
    } catch (err) {
      if ((err as { statusCode?: unknown }).statusCode === 404) return undefined;
      throw err;
    }
    response.resume();
    const header = response.headers['x-docker-container-path-stat'];
    const value = Array.isArray(header) ? header[0] : header;
    if (!value) throw new Error(`the engine sent no stat for ${path}`);
    return JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as ContainerPathStat;
  }

  /**
   * `PUT /containers/{id}/archive?path=`: extracts `tar` at `path` in a container (created or running). Without
   * `copyUIDGID` the engine applies each entry's own uid/gid; with it, it would chown to the container's `User`.
   * `noOverwriteDirNonDir`: a file never replaces a directory (nor the reverse).
   */
  async putArchive(id: string, path: string, tar: Buffer): Promise<void> {
    await this.request('PUT', `/containers/${encodeURIComponent(id)}/archive`, {
      query: { path, noOverwriteDirNonDir: true },
      raw: { body: tar, contentType: 'application/x-tar' },
    });
  }

  /**
   * `PUT /containers/{id}/archive?path=` with a streamed tar, a directory or file replacing what is there
   * whatever its type (`noOverwriteDirNonDir` off): how a volume is emptied and filled again (docs/snapshots.md#how-a-restore-works).
   */
  async putArchiveStream(id: string, path: string, tar: NodeJS.ReadableStream & { destroy(error?: Error): void }): Promise<void> {
    const response = await this.#transport.open('PUT', `/containers/${encodeURIComponent(id)}/archive`, {
      query: { path, noOverwriteDirNonDir: false },
      stream: { body: tar, contentType: 'application/x-tar' },
      agent: false,
    });
    response.resume();
    await new Promise<void>((resolve, reject) => {
      response.once('end', resolve);
      response.once('error', reject);
    });
  }

  async connectNetwork(network: string, body: { Container: string; EndpointConfig?: Docker.EndpointSettings }): Promise<void> {
    await this.request('POST', `/networks/${encodeURIComponent(network)}/connect`, { body });
  }

  /** Pulls `image` (a tag, or the engine's `latest` when none); rejects with the message of a failed pull. */
  async pull(image: string, auth: RegistryAuth | undefined): Promise<void> {
    const headers = auth ? { 'x-registry-auth': registryAuthHeader(auth) } : undefined;
    // Without a tag or digest the Engine would pull every tag of the repository; `docker pull` means latest.
    const tag = namesNoVersion(image) ? 'latest' : undefined;
    const response = await this.#transport.open('POST', '/images/create', { query: { fromImage: image, tag }, headers });
    let pending = '';
    let failure: string | undefined;
    for await (const chunk of response) {
      pending += (chunk as Buffer).toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) failure ??= progressFailure(line);
    }
    failure ??= progressFailure(pending);
    if (failure) throw new Error(failure);
  }

  close(): void {
    this.#transport.close();
  }
}

/** Whether `image` names neither a tag nor a digest; a text that is no reference is the Engine's to refuse. */
function namesNoVersion(image: string): boolean {
  try {
    const ref = parseImageReference(image, { defaultTag: false });
    return ref.tag === undefined && ref.digest === undefined;
  } catch {
    return false;
  }
}

function progressFailure(line: string): string | undefined {
  if (!line.trim()) return undefined;
  try {
    const event = JSON.parse(line) as ProgressEvent;
    return event.errorDetail?.message ?? event.error;
  } catch {
    return undefined;
  }
}
