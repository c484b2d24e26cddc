import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { FACTS, SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

const errorShape = {
  id: expect.any(String),
  error_code: expect.any(String),
  title: expect.any(String),
  message: expect.any(String),
  support_link: expect.any(String),
};

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** A request with exactly the given bytes and headers (fetch would fix up encodings and paths). */
function raw(url: string, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname, port, method, path, headers: { ...headers, 'content-length': String(body?.length ?? 0) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : null });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('client errors are 4xx in the error shape, and change nothing', () => {
  let server: TestServer;
  let api: ApiClient;
  let auth: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    api = await server.api.environmentClient();
    auth = { authorization: `Bearer ${api.key}` };
  });
  afterAll(() => server.close());

  async function expectRefused(send: () => Promise<RawAnswer>, status: number, errorCode?: string): Promise<RawAnswer> {
    const before = await server.service.eventStore.headPosition();
    const answer = await send();
    expect({ status: answer.status, body: answer.body }).toMatchObject({ status });
    // Codes of ours that Permit's enum lacks (415, 431) go as INVALID_INPUT, ours in `reason`.
    const permitCode =
      errorCode === 'UNSUPPORTED_MEDIA_TYPE' || errorCode === 'REQUEST_HEADER_FIELDS_TOO_LARGE' ? 'INVALID_INPUT' : errorCode;
    if (errorCode)
      expect(answer.body).toMatchObject({
        ...errorShape,
        error_code: permitCode,
        ...(permitCode !== errorCode ? { reason: errorCode } : {}),
      });
    expect(await server.service.eventStore.headPosition()).toBe(before);
    return answer;
  }
  const tenantBody = (key: string) => Buffer.from(JSON.stringify({ key, name: key }));

  it('a gzip Content-Encoding with a body that is not gzip: 400', async () => {
    const headers = { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' };
    await expectRefused(() => raw(server.url, 'POST', `${FACTS}/tenants`, headers, tenantBody('t-gzip')), 400, 'INVALID_INPUT');
  });

  it('a real gzip body is accepted', async () => {
    const headers = { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' };
    const answer = await raw(server.url, 'POST', `${FACTS}/tenants`, headers, gzipSync(tenantBody('t-gzipped')));
    expect(answer.status).toBe(200);
  });

  it('an unknown Content-Encoding: 415 naming it', async () => {
    const headers = { ...auth, 'content-type': 'application/json', 'content-encoding': 'br-nope' };
    const answer = await expectRefused(
      () => raw(server.url, 'POST', `${FACTS}/tenants`, headers, tenantBody('t-enc')),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect((answer.body as { message: string }).message).toContain('br-nope');
  });

  it('a charset other than UTF-8: 415 naming it', async () => {
    const headers = { ...auth, 'content-type': 'application/json; charset=latin1' };
    const answer = await expectRefused(
      () => raw(server.url, 'POST', `${FACTS}/tenants`, headers, tenantBody('t-latin')),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect((answer.body as { message: string }).message).toContain('latin1');
  });

  it('a body that is not JSON by its Content-Type: 415; no Content-Type is read as JSON', async () => {
    const form = { ...auth, 'content-type': 'application/x-www-form-urlencoded' };
    await expectRefused(
      () => raw(server.url, 'POST', `${FACTS}/tenants`, form, Buffer.from('key=t-form&name=x')),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    const textPlain = { ...auth, 'content-type': 'text/plain' };
    await expectRefused(() => raw(server.url, 'POST', `${FACTS}/tenants`, textPlain, tenantBody('t-text')), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const vendorJson = await raw(
      server.url,
      'POST',
      `${FACTS}/tenants`,
      { ...auth, 'content-type': 'application/vnd.api+json' },
      tenantBody('t-vnd'),
    );
    expect(vendorJson.status).toBe(200);
    const none = await raw(server.url, 'POST', `${FACTS}/tenants`, auth, tenantBody('t-none'));
    expect(none.status).toBe(200);
  });

  it('invalid UTF-8 is refused (422), never stored as U+FFFD', async () => {
    const bytes = Buffer.concat([Buffer.from('{"key":"t-bad-utf8","name":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const answer = await expectRefused(
      () => raw(server.url, 'POST', `${FACTS}/tenants`, { ...auth, 'content-type': 'application/json' }, bytes),
      422,
    );
    expect(answer.body).toMatchObject({ detail: [{ loc: ['body'], type: 'value_error.unicode' }] });
    expect((await api.get(`${FACTS}/tenants/t-bad-utf8`)).status).toBe(404);
  });

  it('NUL and lone surrogates in strings are refused with 422 naming the field; paired escapes are fine', async () => {
    const post = (text: string) =>
      raw(server.url, 'POST', `${FACTS}/tenants`, { ...auth, 'content-type': 'application/json' }, Buffer.from(text));
    const nul = await expectRefused(() => post('{"key":"t-nul","name":"a\\u0000b"}'), 422);
    expect(nul.body).toMatchObject({ detail: [{ loc: ['body', 'name'] }] });
    const lone = await expectRefused(() => post('{"key":"t-lone","name":"x","attributes":{"tags":["ok","\\ud800"]}}'), 422);
    expect(lone.body).toMatchObject({ detail: [{ loc: ['body', 'attributes', 'tags', 1] }] });
    const paired = await post('{"key":"t-emoji","name":"\\ud83d\\ude00 \\\\u0000 is text"}');
    expect(paired.status).toBe(200);
    expect((await api.get(`${FACTS}/tenants/t-emoji`)).body).toMatchObject({ name: '\u{1F600} \\u0000 is text' });
  });

  it('a URL over the HTTP server limit: 431 in the error shape (not an empty answer)', async () => {
    await expectRefused(
      () => raw(server.url, 'GET', `${FACTS}/tenants?search=${'a'.repeat(20_000)}`, auth),
      431,
      'REQUEST_HEADER_FIELDS_TOO_LARGE',
    );
  });

  it('a bad percent-escape in the path: 400', async () => {
    await expectRefused(() => raw(server.url, 'GET', `${SCHEMA}/resources/%ZZ`, auth), 400, 'INVALID_INPUT');
    await expectRefused(() => raw(server.url, 'DELETE', `${FACTS}/tenants/%E0%A4%A`, auth), 400, 'INVALID_INPUT');
  });
});
