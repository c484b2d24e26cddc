/**
 * The keys that one JSON text repeats inside an object, as paths (`component`,
 * `err.code`): JSON.parse keeps the last of them silently, so a log line
 * carrying a key twice looks fine once parsed. Throws on text that is not JSON.
 */
export function duplicateKeys(text: string): string[] {
  const found: string[] = [];
  let i = 0;

  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at ${i} in ${text.slice(0, 200)}`);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = (): string => {
    const start = i;
    i++; // opening quote
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      space();
      if (text[i] === '}') return void i++;
      for (;;) {
        space();
        if (text[i] !== '"') fail('expected a key');
        const key = string();
        const at = path ? `${path}.${key}` : key;
        if (seen.has(key)) found.push(at);
        seen.add(key);
        space();
        if (text[i++] !== ':') fail('expected :');
        value(at);
        space();
        const next = text[i++];
        if (next === '}') return;
        if (next !== ',') fail('expected , or }');
      }
    }
    if (c === '[') {
      i++;
      space();
      if (text[i] === ']') return void i++;
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`);
        space();
        const next = text[i++];
        if (next === ']') return;
        if (next !== ',') fail('expected , or ]');
      }
    }
    if (c === '"') return void string();
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 64));
    if (!literal) fail('unexpected character');
    i += literal![0].length;
  };

  value('');
  space();
  if (i !== text.length) fail('trailing text');
  return found;
}
