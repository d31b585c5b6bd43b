// `tidewatch agent` (docs/fleet.md#agent-mode): the same package and image, dialling a controller instead of
// serving. Its options are the agents plugin's (--controller, --enrol-token, --agent-name, --agent-stage),
// the Docker runtime's --host/--tlsverify/--cert-path (its one local engine) and the state's --data-dir (its
// key); nothing else starts: no plugin is applied, no port is opened. Exit 2 for a bad configuration, as
// the service does; 0 on SIGTERM/SIGINT.
import { hostname } from 'node:os';
import { ConfigError, errorMessage } from '../../core/errors.js';
import { agentOptions } from '../../plugins/agents/options.js';
import { AGENT_NAME } from '../../plugins/agents/protocol.js';
import { transportOptions } from '../../plugins/docker/engine/endpoint.js';
import type { MainIo } from '../main.js';
import { Shutdown } from '../shutdown.js';
import { readPackageVersion } from '../version.js';
import { createForwarder } from './forward.js';
import { loadOrCreateKey } from './key.js';
import { Link } from './link.js';
import type { AgentSettings } from './settings.js';

/** The host name as an agent name: its first label, characters outside the name's set dropped. */
function defaultName(): string {
  const name = hostname().split('.')[0]?.replace(/[^A-Za-z0-9._-]/g, '') ?? '';
  return AGENT_NAME.test(name) ? name : 'agent';
}

export async function runAgent(io: MainIo, settings: AgentSettings): Promise<number> {
  const { agent: options, dataDir } = settings;
  const flag = (key: keyof typeof agentOptions) => `--${agentOptions[key].flag}`;
  if (!options.controller) throw new ConfigError(`${flag('controller')} is required by tidewatch agent: the controller's wss:// URL`, 'controller');
  if (dataDir === '') throw new ConfigError('--data-dir is required by tidewatch agent: it keeps its key there (/data in the image)', 'data-dir');
  if (settings.hosts.length > 1) throw new ConfigError('tidewatch agent forwards to one engine: give --host once', 'host');
  const engine = transportOptions({ host: settings.hosts[0], tlsVerify: settings.tlsVerify, certPath: settings.certPath });

  const { createLogger } = await import('../logger.js');
  const logger = createLogger(settings.log, io.stdout).child({ mode: 'agent' });
  let key;
  try {
    key = loadOrCreateKey(dataDir);
  } catch (err) {
    io.stderr.write(`tidewatch: cannot keep the agent key in --data-dir ${dataDir}: ${errorMessage(err)}\n`);
    return 1;
  }
  const name = options.agentName || defaultName();
  const shutdown = new Shutdown();
  let link: Link | undefined;
  const forwarder = createForwarder(engine, logger, (method, path) => link?.refused(method, path));
  link = new Link({
    controller: options.controller,
    name,
    stage: options.agentStage ?? 1,
    version: readPackageVersion(),
    enrolToken: options.enrolToken ?? '',
    dataDir,
    key,
    logger,
    forwarder,
  });
  logger.info({ agent: name, controller: new URL(options.controller).host, stage: options.agentStage ?? 1 }, 'Tidewatch agent started');
  link.start();
  io.onStarted?.();
  const signal = await shutdown.requested;
  logger.info({ signal }, 'agent stopping');
  link.stop();
  forwarder.close();
  shutdown.dispose();
  return 0;
}
