import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { notServedFeature } from '../../../command-service/http/not-served';

/** One HTTP call an official SDK can make: method and path template (`{…}` for each parameter). */
export interface SdkCall {
  method: string;
  path: string;
}

/**
 * Every REST call the installed `permitio` can make: the generated API client in its bundle
 * builds each request from a `localVarPath` template and a method, which are read here, so a
 * new SDK version with new calls shows up without anyone listing them by hand.
 */
export function restCallsOfTheNodeSdk(): SdkCall[] {
  const bundle = readFileSync(join(dirname(require.resolve('permitio')), 'index.js'), 'utf8');
  const calls = new Map<string, SdkCall>();
  for (const match of bundle.matchAll(/localVarPath = `([^`]*)`[\s\S]{0,1500}?method: "([A-Z]+)"/g)) {
    const call = { method: match[2]!, path: match[1]! };
    calls.set(`${call.method} ${call.path}`, call);
  }
  return [...calls.values()];
}

/** The PDP calls of both SDKs (hand-written clients, not generated): see docs/permit-wire-notes.md §5 and the Python section. */
export const PDP_CALLS: SdkCall[] = [
  { method: 'POST', path: '/allowed' },
  { method: 'POST', path: '/allowed/bulk' },
  { method: 'POST', path: '/allowed/all-tenants' },
  { method: 'POST', path: '/user-permissions' },
  { method: 'POST', path: '/authorized_users' },
  { method: 'GET', path: '/local/role_assignments' },
];

export type Coverage = { call: SdkCall; served: true } | { call: SdkCall; served: false; feature: string | undefined };

/** `/a/{x}/b` and `/a/{y}/b` are the same route: parameters compared by position only. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

/** Whether each call is served (declared in our OpenAPI document), or which not-served feature answers it. */
export function coverageOf(calls: SdkCall[], openApiPaths: Record<string, Record<string, unknown>>): Coverage[] {
  const declared = new Set(
    Object.entries(openApiPaths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${shape(path)}`)),
  );
  return calls.map((call) =>
    declared.has(`${call.method} ${shape(call.path)}`)
      ? { call, served: true }
      : { call, served: false, feature: notServedFeature(call.path.replace(/\{[^}]+\}/g, 'x')) },
  );
}

/** The table docs/permit-wire-notes.md carries between its markers. */
export function coverageTable(coverage: Coverage[]): string {
  const rows = [...coverage]
    .sort((a, b) => a.call.path.localeCompare(b.call.path) || a.call.method.localeCompare(b.call.method))
    .map(({ call, ...status }) => {
      const answer = status.served ? 'served' : status.feature ? `not served (501: ${status.feature})` : '**missing**';
      return `| \`${call.method}\` | \`${call.path}\` | ${answer} |`;
    });
  return ['| method | path | here |', '|---|---|---|', ...rows].join('\n');
}
