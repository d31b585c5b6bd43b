// The agent's connection to its controller (docs/fleet.md#agent-mode): it dials out (it listens on nothing),
// answers the controller's challenge by signing it with its key (and, until it is enrolled, presents its
// enrol token), then serves the streams the controller opens (forward.ts). A lost connection is dialled again
// after 1 s, doubling up to 60 s, each wait jittered (a restarted controller is not hit by every agent at once);
// a connection the controller welcomed starts the waits at 1 s again (a refused one never does). A controller that goes silent (no
// ping for SILENT_MS) is dropped and dialled again, so a dead VPN is noticed without TCP's help. ws speaks the
// protocol; node:tls and node:https load only for a wss:// controller (ws-client.ts, docs/fleet.md#footprint).
import type WebSocket from 'ws';
import type { Logger } from '../../core/index.js';
import { Mux } from '../../plugins/agents/mux.js';
import { CLOSE, MAX_MESSAGE, parseChallenge, parseControl, signedText } from '../../plugins/agents/protocol.js';
import type { Forwarder } from './forward.js';
import { isEnrolled, markEnrolled, type AgentKey } from './key.js';
import { webSocketClass } from './ws-client.js';

const FIRST_WAIT_MS = 1_000;
const MAX_WAIT_MS = 60_000;
const SILENT_MS = 45_000;

export interface LinkOptions {
  readonly controller: string;
  readonly name: string;
  readonly stage: number;
  readonly version: string;
  readonly enrolToken: string;
  readonly dataDir: string;
  readonly key: AgentKey;
  readonly logger: Logger;
  readonly forwarder: Forwarder;
}

/** The URL of the tunnel: the controller's base URL and `/v1/agents/connect`. */
export function connectUrl(controller: string): string {
  const url = new URL(controller);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/agents/connect`;
  return url.toString();
}

/** The wait before attempt `n` (0 first): 1 s doubling to 60 s, each between half and all of it. */
export function backoff(attempt: number, random = Math.random): number {
  const full = Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(attempt, 16));
  return Math.round(full / 2 + (random() * full) / 2);
}

export class Link {
  #stopped = false;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  #ws: WebSocket | undefined;

  constructor(readonly options: LinkOptions) {}

  start(): void {
    this.#dial();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#ws?.close(1001, 'agent stopping');
    this.#ws?.terminate();
  }

  /** Tells the controller of a call refused by the allowlist (it logs it too). */
  refused(method: string, path: string): void {
    const ws = this.#ws;
    if (ws !== undefined && ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'refused-call', method, path }));
  }

  #again(): void {
    if (this.#stopped) return;
    const wait = backoff(this.#attempt++);
    this.options.logger.info({ wait_ms: wait }, 'dialling the controller again');
    this.#timer = setTimeout(() => this.#dial(), wait);
  }

  #dial(): void {
    const { options } = this;
    const { logger } = options;
    const WebSocketClient = webSocketClass();
    const ws = new WebSocketClient(connectUrl(options.controller), { maxPayload: MAX_MESSAGE, perMessageDeflate: false, handshakeTimeout: 15_000 });
    this.#ws = ws;
    let welcomed = 0;
    let silence: NodeJS.Timeout | undefined;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(() => {
        logger.warn({ silent_ms: SILENT_MS }, 'the controller went silent: dialling again');
        ws.terminate();
      }, SILENT_MS);
    };
    const mux = new Mux(
      (frame, done) => (ws.readyState === ws.OPEN ? ws.send(frame, { binary: true }, (err) => done(err ?? undefined)) : done(new Error('the tunnel is closed'))),
      (stream) => options.forwarder.serve(stream),
    );
    ws.on('open', heard);
    ws.on('ping', heard);
    ws.on('error', (err) => logger.warn({ err: err.message }, 'controller connection failed'));
    ws.on('unexpected-response', (_request, response) => {
      logger.warn({ status: response.statusCode }, 'the controller refused the connection');
      ws.terminate();
    });
    ws.on('message', (data, binary) => {
      heard();
      // A Buffer of its own (ws's binaryType nodebuffer): handed to the streams without a copy.
      const buffer = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      if (binary) {
        if (welcomed === 0 || !mux.receive(buffer)) ws.close(CLOSE.PROTOCOL, 'protocol error');
        return;
      }
      const text = buffer.toString('utf8');
      if (welcomed === 0) {
        const challenge = parseChallenge(text);
        if (challenge) return this.#hello(ws, challenge.nonce);
      }
      const control = parseControl(text);
      if (!control) return;
      if (control.type === 'refused') {
        logger.error({ reason: control.reason, agent: options.name }, 'the controller refused this agent');
        return;
      }
      options.forwarder.setCalls(control.calls);
      if (control.type === 'welcome') {
        welcomed = Date.now();
        this.#attempt = 0;
        if (!isEnrolled(options.dataDir)) markEnrolled(options.dataDir, options.controller, options.name);
        logger.info({ controller: new URL(options.controller).host, agent: options.name, calls: control.calls }, 'connected to the controller');
      }
    });
    ws.on('close', (code, reason) => {
      clearTimeout(silence);
      mux.close('the tunnel closed');
      if (code === CLOSE.REVOKED) logger.error({ agent: options.name }, 'this agent was revoked by the controller');
      else if (!this.#stopped) logger.warn({ code, reason: reason.toString('utf8').slice(0, 100) }, 'disconnected from the controller');
      this.#again();
    });
  }

  #hello(ws: WebSocket, nonce: string): void {
    const { name, key, stage, version, enrolToken, dataDir } = this.options;
    // An enrolled key proves itself; the token is for the first connection only (docs/fleet.md#enrolment).
    const token = !isEnrolled(dataDir) && enrolToken !== '' ? { enrol_token: enrolToken } : {};
    const signature = key.sign(signedText(nonce, name, key.publicKey));
    ws.send(JSON.stringify({ type: 'hello', name, public_key: key.publicKey, signature, stage, version, ...token }));
  }
}
