// TEMPORARY (swarm branch only): the DOCKER_ENGINES service over plain node:http until the lead's lean Engine
// client provides it; drop this file and its line in start.ts when merging that client.
import { request as httpRequest } from 'node:http';
import type { DockerEngines, EngineApi, EngineRequestOptions } from '../../core/index.js';
import { parseDockerHost } from './client.js';

function engineApi(host: string): EngineApi {
  const endpoint = parseDockerHost(host);
  return {
    host,
    request<T>(method: string, path: string, options: EngineRequestOptions = {}): Promise<T> {
      const query = new URLSearchParams();
      for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) query.set(k, String(v));
      const qs = query.toString();
      const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
      return new Promise<T>((resolve, reject) => {
        const req = httpRequest(
          {
            ...(endpoint.kind === 'socket' ? { socketPath: endpoint.socketPath } : { host: endpoint.host, port: endpoint.port }),
            method,
            path: qs ? `${path}?${qs}` : path,
            headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers },
            ...(options.signal ? { signal: options.signal } : {}),
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('error', reject);
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let json: unknown;
              try {
                json = text ? JSON.parse(text) : undefined;
              } catch {
                json = undefined;
              }
              const status = res.statusCode ?? 0;
              if (status >= 400) {
                const message = (json as { message?: string } | undefined)?.message ?? (text || `HTTP ${status}`);
                reject(Object.assign(new Error(message), { statusCode: status }));
              } else resolve(json as T);
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    },
  };
}

export function dockerEngines(host: string): DockerEngines {
  const engines = [engineApi(host)];
  return { list: () => engines };
}
