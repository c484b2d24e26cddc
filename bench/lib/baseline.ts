import { freePort, spawnNode, waitForOk, type NodeChild } from './child';

export interface Baseline {
  url: string;
  child: NodeChild;
  /** URL of a route answering with `bytes` of JSON. */
  route(bytes: number): string;
  stop(): Promise<void>;
}

/** Starts the bare express baseline (bench/servers/baseline-server.ts) in its own process. */
export async function startBaseline(): Promise<Baseline> {
  const port = await freePort();
  const child = spawnNode('bench/servers/baseline-server.ts', { PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await waitForOk(`${url}/ready`, child, 30_000);
  return { url, child, route: (bytes) => `${url}/json?bytes=${bytes}`, stop: () => child.stop() };
}
