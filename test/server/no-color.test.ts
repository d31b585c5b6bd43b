// --no-color (and NO_COLOR) is accepted for compatibility with Watchtower's command line and changes
// nothing, because Tidewatch writes no ANSI colour in any log format (docs/watchtower-fork.md): every
// format's lines are checked free of escape sequences, with and without the flag.
import { PassThrough } from 'node:stream';
import t from 'tap';
import { resolveConfig } from '../../server/config/index.js';
import { createLogger } from '../../server/logger.js';

const ESC = '\u001b';

for (const format of ['auto', 'json', 'pretty', 'logfmt']) {
  for (const argv of [[], ['--no-color']]) {
    t.test(`--log-format ${format} ${argv.join(' ')}`.trim(), async (t) => {
      const { config } = resolveConfig({ argv: ['--log-format', format, ...argv], env: {}, cwd: '/' });
      t.equal(config.noColor, argv.length > 0, 'the flag is accepted and resolved');
      const out = new PassThrough();
      let text = '';
      out.on('data', (d: Buffer) => (text += d.toString()));
      const logger = createLogger({ level: config.logLevel, format: config.logFormat, debug: false, trace: false }, out);
      logger.info({ container: '/web', image: 'nginx:1' }, 'Found new image');
      logger.warn('could not pull');
      logger.error(new Error('boom'));
      t.match(text, /Found new image/, 'the lines were written');
      t.notOk(text.includes(ESC), 'no ANSI escape sequence');
    });
  }
}

t.test('NO_COLOR by presence, as Watchtower reads it', async (t) => {
  t.equal(resolveConfig({ argv: [], env: { NO_COLOR: '' }, cwd: '/' }).config.noColor, true);
  t.equal(resolveConfig({ argv: [], env: {}, cwd: '/' }).config.noColor, false);
});
