// Git's pkt-line framing and the protocol v0/v1 ref advertisement that `info/refs?service=git-upload-pack`
// answers with (gitprotocol-common(5), gitprotocol-http(5), gitprotocol-pack(5)). Parsed from bytes,
// because the length prefix counts bytes, not characters.
import { TidewatchError } from '../../core/index.js';

/** One pkt-line: data with its payload (trailing LF removed), or one of the special packets. */
export type Packet = { readonly type: 'data'; readonly payload: string } | { readonly type: 'flush' | 'delim' | 'end' };

export class PktLineError extends TidewatchError {
  constructor(message: string) {
    super('TW_ERR_GIT_PROTOCOL', message, 502);
    this.name = 'PktLineError';
  }
}

const HEX4 = /^[0-9a-f]{4}$/i;

/** Splits a buffer into pkt-lines; throws on a truncated or malformed stream. */
export function parsePktLines(data: Uint8Array): Packet[] {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const packets: Packet[] = [];
  let at = 0;
  while (at < buf.length) {
    if (at + 4 > buf.length) throw new PktLineError(`truncated pkt-line length at byte ${at}`);
    const prefix = buf.toString('latin1', at, at + 4);
    if (!HEX4.test(prefix)) throw new PktLineError(`bad pkt-line length ${JSON.stringify(prefix)} at byte ${at}`);
    const length = Number.parseInt(prefix, 16);
    if (length === 0 || length === 1 || length === 2) {
      packets.push({ type: length === 0 ? 'flush' : length === 1 ? 'delim' : 'end' });
      at += 4;
      continue;
    }
    if (length < 4) throw new PktLineError(`invalid pkt-line length ${length} at byte ${at}`);
    if (at + length > buf.length) throw new PktLineError(`truncated pkt-line at byte ${at} (wants ${length} bytes)`);
    let payload = buf.toString('utf8', at + 4, at + length);
    // The LF is optional framing; the NUL before capabilities is meaningful and kept.
    if (payload.endsWith('\n')) payload = payload.slice(0, -1);
    packets.push({ type: 'data', payload });
    at += length;
  }
  return packets;
}

/** What a v0/v1 upload-pack advertisement says about the remote. */
export interface RefAdvertisement {
  /** Ref name → object id as advertised (the tag object for an annotated tag). Includes `HEAD`. */
  readonly refs: ReadonlyMap<string, string>;
  /** Ref name → the commit an annotated tag points at (the `<name>^{}` lines). */
  readonly peeled: ReadonlyMap<string, string>;
  /** `symref=<from>:<to>` capabilities, e.g. `HEAD` → `refs/heads/main`. */
  readonly symrefs: ReadonlyMap<string, string>;
  readonly capabilities: readonly string[];
}

const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/; // SHA-1 or SHA-256 repositories
const ZERO_OID = /^0+$/;

/**
 * Parses the body of `GET info/refs?service=git-upload-pack`: an optional `# service=…` block ended
 * by a flush, an optional `version 1` line, then `<oid> <ref>` lines (capabilities after a NUL on
 * the first) up to a flush. A repository without refs advertises `<zero-oid> capabilities^{}`.
 */
export function parseRefAdvertisement(data: Uint8Array): RefAdvertisement {
  const packets = parsePktLines(data);
  let i = 0;
  const first = packets[0];
  if (first?.type === 'data' && first.payload.startsWith('# service=')) {
    if (first.payload !== '# service=git-upload-pack') {
      throw new PktLineError(`unexpected service line ${JSON.stringify(first.payload)}`);
    }
    // Smart HTTP puts a flush after the service line; some servers omit it.
    i = packets[1]?.type === 'flush' ? 2 : 1;
  }
  const refs = new Map<string, string>();
  const peeled = new Map<string, string>();
  const symrefs = new Map<string, string>();
  let capabilities: string[] = [];
  let sawRefLine = false;
  for (; i < packets.length; i++) {
    const packet = packets[i] as Packet;
    if (packet.type !== 'data') break; // the flush that ends the advertisement
    let line = packet.payload;
    if (line.startsWith('ERR ')) throw new PktLineError(`remote error: ${line.slice(4)}`);
    if (!sawRefLine && line === 'version 1') continue;
    if (!sawRefLine && line === 'version 2') {
      throw new PktLineError('remote answered with protocol v2, which was not requested');
    }
    if (!sawRefLine) {
      const nul = line.indexOf('\0');
      if (nul >= 0) {
        capabilities = line.slice(nul + 1).split(' ').filter(Boolean);
        line = line.slice(0, nul);
      }
      sawRefLine = true;
    }
    const space = line.indexOf(' ');
    const oid = line.slice(0, space).toLowerCase();
    const name = line.slice(space + 1);
    if (space <= 0 || !OID.test(oid) || name === '') throw new PktLineError(`malformed ref line ${JSON.stringify(line)}`);
    if (name === 'capabilities^{}' && ZERO_OID.test(oid)) continue; // empty repository
    if (name.endsWith('^{}')) peeled.set(name.slice(0, -3), oid);
    else refs.set(name, oid);
  }
  for (const cap of capabilities) {
    if (!cap.startsWith('symref=')) continue;
    const [from, to] = cap.slice('symref='.length).split(':');
    if (from && to) symrefs.set(from, to);
  }
  return { refs, peeled, symrefs, capabilities };
}
