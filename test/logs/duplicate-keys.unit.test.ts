import { Writable } from 'node:stream';
import pino from 'pino';
import { duplicateKeys } from '../support/duplicate-keys';

describe('duplicateKeys', () => {
  it('finds keys an object repeats, at any depth, and nothing in JSON without them', () => {
    expect(duplicateKeys('{"a":1,"b":{"c":[{"d":1,"d":2}],"c":3},"a":"x"}')).toEqual(['b.c[0].d', 'b.c', 'a']);
    expect(duplicateKeys('{"a":"\\"a\\"","b":[1,2.5e3,-0.1,true,false,null,{}],"c":{"a":1}}')).toEqual([]);
    expect(duplicateKeys('{"\\u0061":1,"a":2}')).toEqual(['a']);
  });

  it('refuses text that is not JSON', () => {
    expect(() => duplicateKeys('{"a":1')).toThrow(SyntaxError);
    expect(() => duplicateKeys('{"a":1} x')).toThrow(SyntaxError);
  });

  it('catches what pino writes when a child binds a key its parent bound', () => {
    const lines: string[] = [];
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    pino(out).child({ component: 'task-service' }).child({ component: 'task-relay' }).info('starting');
    expect(lines).toHaveLength(1);
    expect(duplicateKeys(lines[0]!)).toEqual(['component']);
  });
});
