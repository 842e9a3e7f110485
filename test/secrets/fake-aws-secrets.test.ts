/** The fake AWS Secrets Manager and STS are held to the real protocols: the official SDK clients read them. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { startFakeAws, type FakeAws } from '../helpers/fake-secret-managers.js';

let aws: FakeAws;
const credentials = { accessKeyId: 'AKIAFAKE0000000001', secretAccessKey: 'fake-secret-key-for-sigv4' };

before(async () => {
  aws = await startFakeAws();
  aws.keys.set(credentials.accessKeyId, credentials.secretAccessKey);
  aws.secrets.set('team/openai', '{"api_key":"sk-from-aws"}');
  aws.roles.set('arn:aws:iam::123456789012:role/gw-reader', 'ext-1');
});
after(() => aws.close());

test('the official Secrets Manager client reads a secret from the fake, signed with SigV4', async () => {
  const client = new SecretsManagerClient({ region: 'us-east-1', endpoint: aws.url, credentials, maxAttempts: 1 });
  const answer = await client.send(new GetSecretValueCommand({ SecretId: 'team/openai' }));
  assert.equal(answer.SecretString, '{"api_key":"sk-from-aws"}');
  assert.equal(answer.Name, 'team/openai');
  await assert.rejects(client.send(new GetSecretValueCommand({ SecretId: 'missing' })), { name: 'ResourceNotFoundException' });
  const wrong = new SecretsManagerClient({ region: 'us-east-1', endpoint: aws.url, credentials: { ...credentials, secretAccessKey: 'wrong' }, maxAttempts: 1 });
  await assert.rejects(wrong.send(new GetSecretValueCommand({ SecretId: 'team/openai' })), { name: 'UnrecognizedClientException' });
  client.destroy();
  wrong.destroy();
});

test('the official STS client assumes a role on the fake, and the issued keys sign reads', async () => {
  const sts = new STSClient({ region: 'us-east-1', endpoint: aws.url, credentials, maxAttempts: 1 });
  const answer = await sts.send(new AssumeRoleCommand({ RoleArn: 'arn:aws:iam::123456789012:role/gw-reader', RoleSessionName: 's', ExternalId: 'ext-1' }));
  assert.ok(answer.Credentials?.AccessKeyId?.startsWith('ASIA'));
  assert.ok(answer.Credentials?.Expiration instanceof Date);
  await assert.rejects(sts.send(new AssumeRoleCommand({ RoleArn: 'arn:aws:iam::123456789012:role/gw-reader', RoleSessionName: 's', ExternalId: 'nope' })), {
    name: 'AccessDenied',
  });
  const c = answer.Credentials!;
  const client = new SecretsManagerClient({
    region: 'us-east-1',
    endpoint: aws.url,
    maxAttempts: 1,
    credentials: { accessKeyId: c.AccessKeyId!, secretAccessKey: c.SecretAccessKey!, sessionToken: c.SessionToken },
  });
  const value = await client.send(new GetSecretValueCommand({ SecretId: 'team/openai' }));
  assert.equal(value.SecretString, '{"api_key":"sk-from-aws"}');
  assert.equal(aws.sessionTokens.at(-1), c.SessionToken);
  sts.destroy();
  client.destroy();
});
