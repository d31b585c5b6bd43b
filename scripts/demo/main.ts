// `npm run demo` (docs/demo.md): a first run that shows Tidewatch working on any machine, as root. It
// starts a private engine and registry, runs five containers, pushes newer images for three of them,
// starts Tidewatch with the HTTP API and the dashboard on loopback, prints where to look, and stays in
// the foreground. Ctrl-C or SIGTERM takes everything down; a demo killed before is cleaned up first.
import { banner } from './banner.js';
import { DemoError, demoConfig } from './config.js';
import { claimDirectory, engine, refuseIfRunning, teardown, testEnv } from './environment.js';
import { pushNewerImages, startFleet } from './fleet.js';
import { buildIfStale, checkAtStart, startTidewatch } from './tidewatch.js';

const log = (line: string): void => void process.stderr.write(`demo: ${line}\n`);

/** Thrown between start-up steps once a stop was asked for: not a failure. */
class StopRequested extends Error {}

async function main(): Promise<number> {
  if (process.getuid?.() !== 0) {
    log('the demo starts a private Docker Engine and needs root: sudo npm run demo');
    return 1;
  }
  let stopRequested = false;
  let requestStop!: () => void;
  const stopped = new Promise<void>((resolve) => (requestStop = resolve));
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopRequested) return log(`${signal}: already stopping`);
    stopRequested = true;
    log(`${signal}: stopping`);
    requestStop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A step under way finishes (the engine's start-up is not cut in half); the next one does not begin.
  const step = async <T>(what: string, run: () => T | Promise<T>): Promise<T> => {
    if (stopRequested) throw new StopRequested();
    log(what);
    const result = await run();
    if (stopRequested) throw new StopRequested();
    return result;
  };

  let config;
  try {
    config = demoConfig();
    refuseIfRunning(config);
  } catch (err) {
    log((err as Error).message);
    return 1;
  }

  let code = 0;
  try {
    await step('checking the build', () => buildIfStale(log));
    await step(`cleaning up what an earlier demo left in ${config.dir}, if anything`, () => teardown(config, log));
    claimDirectory(config);
    await step(`starting a private Docker Engine and registry in ${config.dir} (scripts/test-env.sh)`, () => testEnv(config, 'up'));
    await step('pushing the demo images and starting the containers', () => startFleet(config, engine(config)));
    await step('pushing newer images for some of them', () => pushNewerImages(config));
    const tidewatch = await step('starting Tidewatch', () => startTidewatch(config));
    const pending = await step('checking every container once, so the dashboard opens on the answer', () => checkAtStart(config));
    process.stdout.write(`${banner(config, pending)}\n`);
    const ended = await Promise.race([stopped.then(() => undefined), tidewatch.exited]);
    if (ended !== undefined) {
      log(`Tidewatch stopped on its own (${ended}): taking the demo down`);
      code = 1;
    }
  } catch (err) {
    if (!(err instanceof StopRequested)) {
      log(err instanceof DemoError ? err.message : `failed: ${(err as Error).stack ?? String(err)}`);
      code = 1;
    }
  }
  try {
    log('taking the demo down');
    await teardown(config, log);
    log(`done: nothing of the demo is left (${config.dir} removed)`);
  } catch (err) {
    log(`cleanup failed: ${(err as Error).message}`);
    code = 1;
  }
  return code;
}

// Exit explicitly: kept-alive sockets to the engine and the API must not hold the process.
process.exit(await main());
