// The pieces of the service's own client-error answer (docs/http-api.md#malformed-requests-and-timeouts):
// which status and code by cause, the envelope with Connection: close, and no body for a HEAD; the
// whole exchange over raw sockets is test/e2e/hostile-http.test.ts.
import t from 'tap';
import { isHeadRequest, rawErrorResponse } from '../../../plugins/http-api/guards/client-errors.js';
import { parseResponses, portOf, rawExchange } from '../../helpers/raw-http.js';
import { startApi } from './helpers/harness.js';

const parseError = (raw: string, bytesParsed = raw.length) => Object.assign(new Error('Parse Error'), { code: 'HPE_INVALID_URL', rawPacket: Buffer.from(raw, 'latin1'), bytesParsed });

t.test('HEAD is recognised in the request being parsed, not in an earlier pipelined one', async (t) => {
  t.ok(isHeadRequest(parseError('HEAD /caf\xe9 HTTP/1.1\r\nHost: x\r\n\r\n', 9)));
  t.notOk(isHeadRequest(parseError('GET /caf\xe9 HTTP/1.1\r\n\r\n', 8)));
  const pipelined = 'HEAD /livez HTTP/1.1\r\nHost: x\r\n\r\nGET /caf\xe9 HTTP/1.1\r\n\r\n';
  t.notOk(isHeadRequest(parseError(pipelined, pipelined.indexOf('\xe9'))), 'the GET after the HEAD failed');
  t.notOk(isHeadRequest(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' })), 'no bytes: not a HEAD');
});

t.test('the raw answer: status line, Connection: close, the envelope, no body for HEAD', async (t) => {
  const answer = { status: 431, code: 'TW_ERR_HTTP_HEADERS_TOO_LARGE', message: 'too large' };
  const [full] = parseResponses(rawErrorResponse(answer, false)).responses;
  t.equal(full?.status, 431);
  t.equal(full?.headers.connection, 'close');
  t.match(JSON.parse(full?.body ?? '{}'), { error: 'too large', code: 'TW_ERR_HTTP_HEADERS_TOO_LARGE', api_version: 'v1', timestamp: String });
  const head = rawErrorResponse(answer, true);
  t.ok(head.endsWith('\r\n\r\n'), 'HEAD: the head only');
  t.match(head, /Content-Length: [1-9]\d*/, 'with the length a GET would have had');
});

t.test('a CONNECT is answered 405 and closed instead of dropped', async (t) => {
  const h = await startApi();
  t.teardown(() => h.close());
  const res = await rawExchange(portOf(h.url), 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
  t.equal(res.responses[0]?.status, 405);
  t.equal(res.responses[0]?.headers.connection, 'close');
  t.match(JSON.parse(res.responses[0]?.body ?? '{}'), { code: 'TW_ERR_HTTP_METHOD' });
  t.ok(res.closed);
});
