import { requestLine } from './first-request';

describe('requestLine', () => {
  const line = (text: string) => requestLine(Buffer.from(text, 'latin1'));

  it('reads the method and the path, without the query', () => {
    expect(line('POST /allowed HTTP/1.1\r\nHost: x\r\n\r\n')).toEqual({ method: 'POST', path: '/allowed' });
    expect(line('GET /v2/facts/p/e/users?page=2 HTTP/1.1\r\n')).toEqual({ method: 'GET', path: '/v2/facts/p/e/users' });
    expect(line('DELETE / HTTP/1.0\r\n')).toEqual({ method: 'DELETE', path: '/' });
  });

  it('is null for a line not all there or not an HTTP/1 request in origin form', () => {
    expect(line('POST /allow')).toBeNull();
    expect(line('POST /allowed HTTP/1.1')).toBeNull();
    expect(line('GET http://example.com/allowed HTTP/1.1\r\n')).toBeNull();
    expect(line('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')).toBeNull();
    expect(line('post /allowed HTTP/1.1\r\n')).toBeNull();
    expect(line('\u0016\u0003\u0001\u0002\u0000\u0001')).toBeNull();
    expect(line('')).toBeNull();
  });
});
