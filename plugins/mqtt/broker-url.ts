// The broker URL of `--mqtt-url` (docs/mqtt.md#options): `mqtt://[user:password@]host[:port]` or `mqtts://…`.
// It is a secret (it holds the password): no message here ever quotes it, and logs show only `redactBrokerUrl`.

const SCHEMES = ['mqtt:', 'mqtts:'];
const ACCEPTED = 'expected mqtt://[user:password@]host[:port] or mqtts://[user:password@]host[:port]';

/** What MQTT.js needs to connect, credentials apart from the address. */
export interface BrokerAddress {
  readonly protocol: 'mqtt' | 'mqtts';
  readonly host: string;
  readonly port: number;
  readonly username?: string;
  readonly password?: string;
}

function parse(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`not a URL: ${ACCEPTED}`);
  }
  if (!SCHEMES.includes(url.protocol)) throw new Error(`unsupported scheme ${url.protocol.replace(/:$/, '')}: ${ACCEPTED}`);
  if (url.hostname === '') throw new Error(`the broker host is missing: ${ACCEPTED}`);
  if (url.pathname !== '' && url.pathname !== '/') throw new Error(`a broker URL has no path (topics are set by --mqtt-topic-prefix): ${ACCEPTED}`);
  if (url.search !== '' || url.hash !== '') throw new Error(`a broker URL has no query or fragment: ${ACCEPTED}`);
  if (url.password !== '' && url.username === '') throw new Error(`a password needs a user name: ${ACCEPTED}`);
  return url;
}

/** The option's parser: the URL as given (empty: the plugin is off), or an Error saying what is accepted. */
export function parseBrokerUrl(raw: string): string {
  const value = raw.trim();
  if (value !== '') parse(value);
  return value;
}

export function brokerAddress(value: string): BrokerAddress {
  const url = parse(value);
  const protocol = url.protocol === 'mqtts:' ? 'mqtts' : 'mqtt';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port === '' ? (protocol === 'mqtts' ? 8883 : 1883) : Number(url.port);
  return {
    protocol,
    host,
    port,
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
  };
}

/** `mqtt://host:port`, for logs: never the credentials. */
export function redactBrokerUrl(value: string): string {
  const { protocol, host, port } = brokerAddress(value);
  return `${protocol}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
