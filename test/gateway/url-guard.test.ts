import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { createGuardedLookup, pinnedLookup } from '../../gateway/outbound/pinned-lookup.js';
import { isUnsafeAddress } from '../../gateway/outbound/unsafe-addresses.js';
import { assertSafeOutboundUrl, vetOutboundUrl, type OutboundGuardOptions, type ResolveHost } from '../../gateway/outbound/url-guard.js';
import { ApiError } from '../../core/errors.js';

// Made-up names only; the stub never touches real DNS and nothing here connects off loopback.
const answers: Record<string, string[]> = {
  'private.test': ['10.1.2.3'],
  'rfc1918-b.test': ['172.20.0.9'],
  'home.test': ['192.168.1.1'],
  'metadata.test': ['169.254.169.254'],
  'aws-v6-metadata.test': ['fd00:ec2::254'],
  'link-local-v6.test': ['fe80::1'],
  'cgnat.test': ['100.64.0.1'],
  'bench.test': ['198.18.0.1'],
  'docs.test': ['192.0.2.10'],
  'multicast.test': ['224.0.0.1'],
  'broadcast.test': ['255.255.255.255'],
  'mapped.test': ['::ffff:10.0.0.1'],
  'nat64.test': ['64:ff9b::192.168.0.1'],
  'sixtofour.test': ['2002:7f00:1::1'],
  'mixed.test': ['93.184.215.14', '10.0.0.7'],
  'public.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'nothing.test': [],
};
let lookups = 0;
const resolve: ResolveHost = async (hostname) => {
  lookups += 1;
  const found = answers[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found;
};
const guard = { trustedHosts: [] as string[], resolve, param: 'x-gw-custom-host', code: 'unsafe_custom_host' };

async function refusal(url: string, options: OutboundGuardOptions = guard): Promise<ApiError> {
  const error = await vetOutboundUrl(url, options).then(
    () => assert.fail(`${url} was allowed`),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof ApiError, `${url}: ${String(error)}`);
  return error;
}

describe('outbound URL guard', () => {
  it('refuses every loopback spelling that is not trusted, without resolving', async () => {
    const before = lookups;
    for (const url of [
      'http://127.0.0.2:8080/v1',
      'http://2130706434/v1',
      'http://0x7f000002/v1',
      'http://0177.0.0.2/v1',
      'http://127.1/v1',
      'http://0x7f.0.0.2/v1',
      'http://[::1]:8080/v1',
      'http://[::ffff:127.0.0.2]/v1',
      'http://[::ffff:7f00:2]/v1',
      'http://[::127.0.0.2]/v1',
      'http://[64:ff9b::7f00:2]/v1',
      'http://0.0.0.0/v1',
      'http://[::]/v1',
      'http://localhost:8080/v1',
      'http://LOCALHOST./v1',
      'http://api.localhost/v1',
      'http://metadata.google.internal/computeMetadata/v1',
      'http://169.254.169.254/latest/meta-data',
    ]) {
      const error = await refusal(url);
      assert.equal(error.status, 400, url);
      assert.equal(error.code, 'unsafe_custom_host', url);
      assert.equal(error.param, 'x-gw-custom-host', url);
    }
    assert.equal(lookups, before, 'IP literals and reserved names are refused before any DNS lookup');
  });

  it('refuses names that resolve to private, metadata, link-local and other special addresses', async () => {
    for (const name of Object.keys(answers).filter((name) => !['public.test', 'nothing.test'].includes(name))) {
      const error = await refusal(`https://${name}/v1`);
      assert.equal(error.code, 'unsafe_custom_host', name);
      assert.match(error.message, /non-public address/, name);
    }
  });

  it('refuses a name when any one of its addresses is private', async () => {
    const error = await refusal('https://mixed.test/v1');
    assert.match(error.message, /10\.0\.0\.7/);
  });

  it('lets a name with only public answers through and returns the address to pin', async () => {
    const vetted = await vetOutboundUrl('https://public.test/v1/chat', guard);
    assert.equal(vetted.url.href, 'https://public.test/v1/chat');
    assert.equal(vetted.address, '93.184.215.14');
    assert.equal(vetted.trusted, false);
    assert.equal((await assertSafeOutboundUrl('http://93.184.215.14/v1', guard)).hostname, '93.184.215.14');
  });

  it('leaves names to the connect-time guard when asked not to resolve them', async () => {
    const before = lookups;
    const vetted = await vetOutboundUrl('https://private.test/v1', { ...guard, resolveNames: false });
    assert.equal(vetted.address, undefined);
    assert.equal(vetted.trusted, false);
    assert.equal(lookups, before);
    // Literals and reserved names are still refused.
    await refusal('http://127.0.0.2/v1', { ...guard, resolveNames: false });
    await refusal('http://localhost/v1', { ...guard, resolveNames: false });
  });

  it('refuses other schemes, credentials and unparsable URLs', async () => {
    for (const url of ['ftp://public.test/', 'file:///etc/passwd', 'https://user:pass@public.test/', 'not a url']) {
      assert.equal((await refusal(url)).status, 400, url);
    }
  });

  it('answers 502 when the name does not resolve', async () => {
    for (const url of ['https://unknown.test/', 'https://nothing.test/']) {
      const error = await refusal(url);
      assert.equal(error.status, 502, url);
      assert.equal(error.code, 'outbound_host_unresolved', url);
    }
  });

  it('lets trusted hosts through in their normal form, with or without a port', async () => {
    const trusted = { ...guard, trustedHosts: ['127.0.0.2', 'localhost:8080', '[::1]:9000', 'private.test'] };
    for (const url of [
      'http://127.0.0.2:1234/v1',
      'http://2130706434/v1',
      'http://localhost:8080/v1',
      'http://[::1]:9000/v1',
      'https://private.test/v1',
    ]) {
      const vetted = await vetOutboundUrl(url, trusted);
      assert.equal(vetted.trusted, true, url);
    }
    // A port-bound entry trusts only that port.
    await refusal('http://localhost:8081/v1', trusted);
    await refusal('http://[::1]:9001/v1', trusted);
    await refusal('http://127.0.0.3/v1', trusted);
  });

  it('classifies addresses', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '64:ff9b::a00:1', 'fd00:ec2::254', '2001:db8::1', 'ff02::1']) {
      assert.equal(isUnsafeAddress(address), true, address);
    }
    for (const address of ['1.1.1.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
      assert.equal(isUnsafeAddress(address), false, address);
    }
  });
});

describe('pinning the vetted address in the transport', () => {
  it('connects to the pinned address while the URL keeps its host name', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.host ?? '');
      res.end('ok');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as AddressInfo).port;
    // As if DNS had answered 127.0.0.1 for this name when it was vetted by a trusting operator.
    const agent = new Agent({
      connect: { lookup: pinnedLookup({ url: new URL(`http://pinned.test:${port}/`), address: '127.0.0.1', trusted: false }) },
    });
    try {
      const response = await request(`http://pinned.test:${port}/`, { dispatcher: agent });
      assert.equal(await response.body.text(), 'ok');
      assert.deepEqual(seen, [`pinned.test:${port}`]);
    } finally {
      await agent.close();
      server.close();
    }
  });

  it('refuses at connect time when a name rebinds to a private address', async () => {
    let answer = ['93.184.215.14'];
    const rebinding: ResolveHost = async () => answer;
    await vetOutboundUrl('http://rebind.test/', { trustedHosts: [], resolve: rebinding });
    answer = ['127.0.0.2'];
    const agent = new Agent({ connect: { lookup: createGuardedLookup(rebinding) } });
    try {
      await assert.rejects(request('http://rebind.test:9/', { dispatcher: agent }), (error: NodeJS.ErrnoException) => {
        assert.equal(error.code, 'EUNSAFEADDRESS');
        return true;
      });
    } finally {
      await agent.close();
    }
  });
});
