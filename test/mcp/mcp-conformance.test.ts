/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance from npm, run under a Node
 * 24 from npm by scripts/ci/mcp-conformance.sh) plays the MCP client against our scenario server
 * (test/mcp/conformance/scenario-server.ts, written from the suite's scenario checks) twice:
 * directly, and through gw's MCP gateway with the server saved in gw. Every server scenario that
 * passes directly must pass through gw. The suite sends no credential, so a loopback shim in
 * front of gw adds the gw key (and, where the suite names the shim's own address in Host or
 * Origin, names gw's instead; any other Host, like the DNS-rebinding scenario's
 * evil.example.com, reaches gw as sent). With Redis, a second run spreads the suite's requests
 * over two gw instances, one request each in turn.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { clusterEngines, fullEngines } from '../helpers/engines.js';
import { startTestApp, startTestCluster, type TestApp } from '../helpers/test-app.js';
import { addMcpServer, workspaceKey } from './mcp-fixtures.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const INSTALL_MS = 300_000;
const SUITE_MS = 300_000;

/** Scenarios that pass directly but cannot pass through gw, with the reason. None today. */
const CANNOT_PASS_THROUGH_GW: Record<string, string> = {};

type Results = Map<string, { passed: number; failed: number }>;

/** The suite's summary lines: `✓ tools-list: 1 passed, 0 failed`. */
function parseResults(output: string): Results {
  const results: Results = new Map();
  for (const match of output.matchAll(/^[✓✗] ([\w/-]+): (\d+) passed, (\d+) failed/gmu)) {
    results.set(match[1]!, { passed: Number(match[2]), failed: Number(match[3]) });
  }
  return results;
}

async function runSuite(node: string, cli: string, url: string): Promise<{ results: Results; output: string }> {
  const child = spawn(node, [cli, 'server', '--url', url], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, HOME: process.env.HOME } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), SUITE_MS);
  await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { results: parseResults(output), output };
}

async function startScenarioServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/mcp/conformance/scenario-server.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening (http:\/\/\S+)/.exec(seen);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`the scenario server exited (${code}): ${seen}`)));
  });
  child.stdout!.resume();
  return { url, child };
}

/** Forwards to gw instances in turn, adding the gw key; the shim's own name in Host/Origin becomes the instance's. */
async function startKeyShim(targets: string[], key: string): Promise<{ url: string; close(): Promise<void> }> {
  let next = 0;
  let own = '';
  const server: Server = createServer((req: IncomingMessage, res) => {
    const target = new URL(targets[next++ % targets.length]!);
    const headers = { ...req.headers, 'x-gw-api-key': key };
    if (headers.host === own) headers.host = target.host;
    if (headers.origin === `http://${own}`) headers.origin = target.origin;
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    // The suite closing its stream closes the one to gw.
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  own = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `http://${own}/conformance/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function assertSameAsDirect(direct: Results, throughGw: Results, output: string): void {
  assert.ok(direct.size >= 30, `the suite ran its server scenarios directly (${direct.size})`);
  const lost = [...direct]
    .filter(([name, result]) => result.failed === 0 && !(name in CANNOT_PASS_THROUGH_GW))
    .filter(([name]) => (throughGw.get(name)?.failed ?? 1) !== 0 || (throughGw.get(name)?.passed ?? 0) === 0)
    .map(([name]) => name);
  assert.deepEqual(lost, [], `scenarios that pass directly but not through gw:\n${output}`);
}

describe('the MCP conformance suite through gw', () => {
  let node: string;
  let cli: string;
  let scenarioServer: { url: string; child: ChildProcess };
  let direct: Results;

  before(async () => {
    [node, cli] = execFileSync(path.join(ROOT, 'scripts/ci/mcp-conformance.sh'), { encoding: 'utf8', timeout: INSTALL_MS, stdio: ['ignore', 'pipe', 'inherit'] })
      .trim()
      .split('\n') as [string, string];
    scenarioServer = await startScenarioServer();
    direct = (await runSuite(node, cli, scenarioServer.url)).results;
  });
  after(() => {
    scenarioServer?.child.kill();
  });

  for (const engine of fullEngines()) {
    test(`every scenario that passes directly passes through one gw (${engine.name})`, async () => {
      let app: TestApp | undefined;
      let shim: Awaited<ReturnType<typeof startKeyShim>> | undefined;
      try {
        app = await startTestApp({ engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
        await addMcpServer(app, { url: scenarioServer.url, slug: 'conformance' });
        shim = await startKeyShim([app.url], await workspaceKey(app));
        const { results, output } = await runSuite(node, cli, shim.url);
        assertSameAsDirect(direct, results, output);
      } finally {
        await shim?.close();
        await app?.close();
      }
    });
  }

  for (const engine of clusterEngines()) {
    test(`every scenario that passes directly passes through two gw instances taking requests in turn (${engine.name})`, async () => {
      const cluster = await startTestCluster(2, { engine, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1' } });
      let shim: Awaited<ReturnType<typeof startKeyShim>> | undefined;
      try {
        const [first] = cluster.apps as [TestApp, TestApp];
        await addMcpServer(first, { url: scenarioServer.url, slug: 'conformance' });
        shim = await startKeyShim(
          cluster.apps.map((app) => app.url),
          await workspaceKey(first),
        );
        const { results, output } = await runSuite(node, cli, shim.url);
        assertSameAsDirect(direct, results, output);
      } finally {
        await shim?.close();
        await cluster.close();
      }
    });
  }
});
