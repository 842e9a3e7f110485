import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { findGuardrailCheck, guardrailChecks } from '../../gateway/guardrails/checks/index.js';
import { passesLuhn } from '../../gateway/guardrails/checks/luhn.js';
import { ValidationError } from '../../core/errors.js';
import { inputSubject, outputSubject, runCheck } from './check-fixtures.js';

const ajv = new Ajv2020({ strict: true, allErrors: true });

/** Whether the parameters would be accepted when a guardrail is saved: schema first, then the check's own rules. */
function parametersError(id: string, params: Record<string, unknown>): string | undefined {
  const check = findGuardrailCheck(id)!;
  const validate = ajv.compile(check.parametersSchema);
  if (!validate(params)) return `schema: ${ajv.errorsText(validate.errors)}`;
  try {
    check.assertParameters?.(params, 'checks[0].parameters');
    return undefined;
  } catch (error) {
    assert.ok(error instanceof ValidationError, String(error));
    return `${error.param}: ${error.message}`;
  }
}

const verdictOf = async (id: string, params: Record<string, unknown>, text: string) => (await runCheck(id, params, inputSubject(text))).verdict;

describe('guardrail check registry', () => {
  it('registers every built-in check under its id', () => {
    assert.deepEqual([...guardrailChecks.keys()].sort(), [
      'default.alllowercase', 'default.allowedRequestTypes', 'default.alluppercase', 'default.characterCount', 'default.contains',
      'default.containsCode', 'default.endsWith', 'default.jsonKeys', 'default.jsonSchema', 'default.jwt', 'default.log',
      'default.modelWhitelist', 'default.notNull', 'default.pii', 'default.regexMatch', 'default.requiredMetadataKeys',
      'default.sentenceCount', 'default.validUrls', 'default.webhook', 'default.wordCount',
    ]);
    for (const [id, check] of guardrailChecks) assert.equal(check.id, id);
    assert.equal(findGuardrailCheck('default.regexMatch')?.id, 'default.regexMatch');
    assert.equal(findGuardrailCheck('default.nope'), undefined);
  });

  it('gives every check a strict 2020-12 parameter schema that refuses unknown fields', () => {
    for (const [id, check] of guardrailChecks) {
      assert.equal(check.parametersSchema.additionalProperties, false, id);
      assert.match(parametersError(id, { surprise: 1 }) ?? '', /must NOT have additional properties/, id);
    }
  });

  it('checks the parameters of checks that call an endpoint', () => {
    const webhookURL = 'https://hooks.example.com/guard';
    assert.equal(parametersError('default.webhook', { webhookURL, headers: { 'x-hook-secret': 's' }, forwardHeaders: ['x-request-id'], timeout: 500, executeOnProxy: true }), undefined);
    assert.match(parametersError('default.webhook', {}) ?? '', /required property 'webhookURL'/);
    assert.match(parametersError('default.webhook', { webhookURL, headers: { 'bad header': 's' } }) ?? '', /property name must be valid/);
    assert.match(parametersError('default.webhook', { webhookURL, headers: { 'x-n': 1 } }) ?? '', /must be string/);
    assert.match(parametersError('default.webhook', { webhookURL, timeout: 0 }) ?? '', /must be >= 1/);
    assert.match(parametersError('default.webhook', { webhookURL, timeout: 60001 }) ?? '', /must be <= 60000/);
    assert.match(parametersError('default.webhook', { webhookURL, forwardHeaders: ['authorization'] }) ?? '', /^checks\[0\]\.parameters\.forwardHeaders\[0\]: /);
    assert.match(parametersError('default.log', { webhookURL }) ?? '', /required property 'logURL'/);
    assert.match(parametersError('default.jwt', { jwksUri: webhookURL, headerKey: 'x bad' }) ?? '', /headerKey/);
  });

  it('limits checks that only make sense in one phase', () => {
    assert.deepEqual(findGuardrailCheck('default.modelWhitelist')!.phases, ['input']);
    assert.deepEqual(findGuardrailCheck('default.jwt')!.phases, ['input']);
    assert.deepEqual(findGuardrailCheck('default.notNull')!.phases, ['output']);
    assert.deepEqual(findGuardrailCheck('default.pii')!.phases, ['input', 'output']);
  });
});

describe('default.regexMatch', () => {
  it('passes on a match, reporting it, and fails without one', async () => {
    const hit = await runCheck('default.regexMatch', { rule: 'order #(\\d+)' }, inputSubject('Where is order #4521?'));
    assert.equal(hit.verdict, true);
    assert.deepEqual(hit.data, { match: 'order #4521', index: 9 });
    assert.equal(await verdictOf('default.regexMatch', { rule: 'order #(\\d+)' }, 'Where is my parcel?'), false);
  });

  it('honours flags and not', async () => {
    assert.equal(await verdictOf('default.regexMatch', { rule: 'SECRET' }, 'a secret'), false);
    assert.equal(await verdictOf('default.regexMatch', { rule: 'SECRET', flags: 'i' }, 'a secret'), true);
    assert.equal(await verdictOf('default.regexMatch', { rule: 'SECRET', flags: 'i', not: true }, 'a secret'), false);
    assert.equal(await verdictOf('default.regexMatch', { rule: 'SECRET', not: true }, 'nothing here'), true);
  });

  it('refuses a pattern that does not compile and stateful flags', () => {
    assert.match(parametersError('default.regexMatch', { rule: '(unclosed' }) ?? '', /^checks\[0\]\.parameters\.rule: .*not a valid regular expression/);
    assert.match(parametersError('default.regexMatch', { rule: 'a', flags: 'g' }) ?? '', /schema: .*flags/);
    assert.match(parametersError('default.regexMatch', {}) ?? '', /must have required property 'rule'/);
    assert.equal(parametersError('default.regexMatch', { rule: '^a', flags: 'im', not: false }), undefined);
  });

  it('matches in linear time (RE2): constructs a backtracking engine needs are refused, nested quantifiers are safe', async () => {
    // JavaScript's RegExp takes these two; RE2 cannot run them in linear time, so a rule cannot use them.
    assert.match(parametersError('default.regexMatch', { rule: '(?<=order )#\\d+' }) ?? '', /not a valid regular expression: .*no lookaround, no backreferences/);
    assert.match(parametersError('default.regexMatch', { rule: '(a)\\1' }) ?? '', /not a valid regular expression/);
    // (a+)+$ on a's and a mismatch is exponential for a backtracking engine; here it is a plain miss.
    assert.equal(await verdictOf('default.regexMatch', { rule: '(a+)+$' }, `${'a'.repeat(24)}!`), false);
    assert.equal(await verdictOf('default.regexMatch', { rule: '(a+)+$' }, 'a'.repeat(24)), true);
    assert.equal(await verdictOf('default.regexMatch', { rule: '^\\p{Lu}' }, 'Élan'), true, 'unicode classes work (RE2 runs in unicode mode)');
  });
});

describe('default.contains', () => {
  const words = ['refund', 'chargeback', 'c++'];

  it('applies any, all and none to whole words, ignoring case', async () => {
    assert.equal(await verdictOf('default.contains', { words }, 'I want a REFUND.'), true);
    assert.equal(await verdictOf('default.contains', { words, operator: 'any' }, 'no match here'), false);
    assert.equal(await verdictOf('default.contains', { words, operator: 'all' }, 'refund or chargeback, in C++'), true);
    assert.equal(await verdictOf('default.contains', { words, operator: 'all' }, 'refund or chargeback'), false);
    assert.equal(await verdictOf('default.contains', { words, operator: 'none' }, 'a friendly question'), true);
    assert.equal(await verdictOf('default.contains', { words, operator: 'none' }, 'refund please'), false);
  });

  it('matches whole words and phrases only, and reports what it found', async () => {
    assert.equal(await verdictOf('default.contains', { words: ['cat'] }, 'concatenate'), false);
    assert.equal(await verdictOf('default.contains', { words: ['credit card'] }, 'my Credit\n  Card number'), true);
    const result = await runCheck('default.contains', { words, operator: 'all' }, inputSubject('refund in c++'));
    assert.deepEqual(result.data, { found: ['refund', 'c++'], missing: ['chargeback'] });
  });

  it('needs at least one non-blank word and a known operator', () => {
    assert.ok(parametersError('default.contains', { words: [] }));
    assert.ok(parametersError('default.contains', { words: ['  '] }));
    assert.ok(parametersError('default.contains', { words: ['a'], operator: 'some' }));
  });
});

describe('word, sentence and character counts', () => {
  it('counts words within inclusive bounds', async () => {
    const text = 'The quick brown fox jumps.';
    assert.equal(await verdictOf('default.wordCount', { minWords: 5, maxWords: 5 }, text), true);
    assert.equal(await verdictOf('default.wordCount', { minWords: 6 }, text), false);
    assert.equal(await verdictOf('default.wordCount', { maxWords: 4 }, text), false);
    assert.equal(await verdictOf('default.wordCount', { maxWords: 4, not: true }, text), true);
    assert.deepEqual((await runCheck('default.wordCount', {}, inputSubject(text))).data, { count: 5 });
  });

  it('counts sentences', async () => {
    const text = 'First one. Second one! And a third?';
    assert.deepEqual((await runCheck('default.sentenceCount', {}, inputSubject(text))).data, { count: 3 });
    assert.equal(await verdictOf('default.sentenceCount', { minSentences: 1, maxSentences: 2 }, text), false);
    assert.equal(await verdictOf('default.sentenceCount', { minSentences: 3, maxSentences: 3 }, text), true);
  });

  it('counts characters as people see them', async () => {
    // A thumbs-up with a skin tone is two code points and an e with a combining accent is two: one character each.
    const text = 'ok \u{1F44D}\u{1F3FD} e\u0301';
    assert.deepEqual((await runCheck('default.characterCount', {}, inputSubject(text))).data, { count: 6 });
    assert.equal(await verdictOf('default.characterCount', { maxCharacters: 6 }, text), true);
    assert.equal(await verdictOf('default.characterCount', { maxCharacters: 5 }, text), false);
  });

  it('refuses a minimum above the maximum and negative or fractional bounds', () => {
    assert.match(parametersError('default.wordCount', { minWords: 10, maxWords: 2 }) ?? '', /^checks\[0\]\.parameters\.minWords: .*greater than/);
    assert.ok(parametersError('default.sentenceCount', { minSentences: -1 }));
    assert.ok(parametersError('default.characterCount', { maxCharacters: 2.5 }));
    assert.equal(parametersError('default.characterCount', { minCharacters: 2, maxCharacters: 2 }), undefined);
  });
});

describe('default.jsonSchema', () => {
  const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } }, required: ['name'] };

  it('passes when JSON in the text (bare, fenced or in prose) matches', async () => {
    assert.equal(await verdictOf('default.jsonSchema', { schema }, '{"name": "Ada", "age": 36}'), true);
    assert.equal(await verdictOf('default.jsonSchema', { schema }, 'Here you go:\n```json\n{"name": "Ada"}\n```\nAnything else?'), true);
    assert.equal(await verdictOf('default.jsonSchema', { schema }, 'The record is {"name": "Ada"} as asked.'), true);
  });

  it('fails with the schema errors, or when there is no JSON', async () => {
    const result = await runCheck('default.jsonSchema', { schema }, inputSubject('{"age": -1}'));
    assert.equal(result.verdict, false);
    assert.ok(Array.isArray((result.data as { errors: string[] }).errors));
    assert.match(result.explanation ?? '', /must have required property 'name'/);
    assert.match(result.explanation ?? '', /\/age must be >= 0/);
    const none = await runCheck('default.jsonSchema', { schema }, inputSubject('no json at all'));
    assert.equal(none.verdict, false);
    assert.match(none.explanation ?? '', /no JSON/);
    assert.equal(await verdictOf('default.jsonSchema', { schema, not: true }, '{"age": 3}'), true);
  });

  it('lets two guardrails use schemas with the same $id', async () => {
    assert.equal(await verdictOf('default.jsonSchema', { schema: { $id: 'https://example.com/s', type: 'object', required: ['a'] } }, '{"a": 1}'), true);
    assert.equal(await verdictOf('default.jsonSchema', { schema: { $id: 'https://example.com/s', type: 'object', required: ['b'] } }, '{"a": 1}'), false);
  });

  it('refuses a schema that does not compile', () => {
    assert.match(parametersError('default.jsonSchema', { schema: { type: 'nonsense' } }) ?? '', /^checks\[0\]\.parameters\.schema: .*not a valid JSON schema/);
    assert.ok(parametersError('default.jsonSchema', { schema: 'object' }));
  });
});

describe('default.jsonKeys', () => {
  const text = 'Result: {"id": 1, "status": "ok"}';

  it('applies any, all and none to the top-level keys of the first object', async () => {
    assert.equal(await verdictOf('default.jsonKeys', { keys: ['id', 'error'] }, text), true);
    assert.equal(await verdictOf('default.jsonKeys', { keys: ['id', 'error'], operator: 'all' }, text), false);
    assert.equal(await verdictOf('default.jsonKeys', { keys: ['id', 'status'], operator: 'all' }, text), true);
    assert.equal(await verdictOf('default.jsonKeys', { keys: ['error'], operator: 'none' }, text), true);
    assert.equal(await verdictOf('default.jsonKeys', { keys: ['id'], operator: 'none' }, text), false);
    assert.deepEqual((await runCheck('default.jsonKeys', { keys: ['id', 'error'] }, inputSubject(text))).data, { found: ['id'], missing: ['error'] });
  });

  it('fails when the text has no JSON object', async () => {
    assert.equal(await verdictOf('default.jsonKeys', { keys: ['error'], operator: 'none' }, 'plain words'), false);
    assert.equal(await verdictOf('default.jsonKeys', { keys: ['id'] }, '[1, 2]'), false);
  });
});

describe('default.validUrls', () => {
  it('passes when every URL is well formed, ignoring surrounding punctuation', async () => {
    const result = await runCheck('default.validUrls', {}, inputSubject('See https://example.com/docs?a=1, (or http://93.184.215.14:8080/x). Also ftp://files.example.org/a.'));
    assert.equal(result.verdict, true, result.explanation);
    assert.deepEqual((result.data as { valid: string[] }).valid, ['https://example.com/docs?a=1', 'http://93.184.215.14:8080/x', 'ftp://files.example.org/a']);
  });

  it('keeps brackets the URL opened', async () => {
    const result = await runCheck('default.validUrls', {}, inputSubject('Read https://en.example.org/wiki/Rust_(language).'));
    assert.deepEqual((result.data as { valid: string[] }).valid, ['https://en.example.org/wiki/Rust_(language)']);
  });

  it('fails on malformed hosts and, with httpOnly, on other schemes', async () => {
    const bad = await runCheck('default.validUrls', {}, inputSubject('Go to https://exa_mple..com/ or https://example.com'));
    assert.equal(bad.verdict, false);
    assert.deepEqual(bad.data, { valid: ['https://example.com'], invalid: ['https://exa_mple..com/'] });
    assert.equal(await verdictOf('default.validUrls', {}, 'http://[::1'), false);
    assert.equal(await verdictOf('default.validUrls', {}, 'get ftp://files.example.org/a'), true);
    assert.equal(await verdictOf('default.validUrls', { httpOnly: true }, 'get ftp://files.example.org/a'), false);
  });

  it('passes a text without URLs', async () => {
    assert.equal(await verdictOf('default.validUrls', { httpOnly: true }, 'no links here'), true);
  });
});

describe('default.containsCode', () => {
  const answer = 'Try this:\n```py\nprint("hi")\n```\nand\n~~~sql\nSELECT 1;\n~~~\n';

  it('finds fenced code, by language when asked (aliases included)', async () => {
    assert.equal(await verdictOf('default.containsCode', {}, answer), true);
    assert.equal(await verdictOf('default.containsCode', { format: 'Python' }, answer), true);
    assert.equal(await verdictOf('default.containsCode', { format: 'SQL' }, answer), true);
    assert.equal(await verdictOf('default.containsCode', { format: 'TypeScript' }, answer), false);
    assert.deepEqual((await runCheck('default.containsCode', {}, inputSubject(answer))).data, { languages: ['py', 'sql'] });
  });

  it('fails without a code block, and not reverses it', async () => {
    assert.equal(await verdictOf('default.containsCode', {}, 'Use print("hi") in Python.'), false);
    assert.equal(await verdictOf('default.containsCode', {}, '```py\nunclosed'), false);
    assert.equal(await verdictOf('default.containsCode', { not: true }, 'No code here.'), true);
    assert.equal(await verdictOf('default.containsCode', { not: true }, answer), false);
  });
});

describe('letter case, endsWith', () => {
  it('checks all upper or all lower case letters', async () => {
    assert.equal(await verdictOf('default.alluppercase', {}, 'HELLO, WORLD 42!'), true);
    assert.equal(await verdictOf('default.alluppercase', {}, 'HELLO, World'), false);
    assert.equal(await verdictOf('default.alllowercase', {}, 'héllo, wörld'), true);
    assert.equal(await verdictOf('default.alllowercase', {}, 'hello, Wörld'), false);
    assert.equal(await verdictOf('default.alllowercase', {}, '12345'), true);
    assert.equal(await verdictOf('default.alluppercase', { not: true }, 'HELLO'), false);
  });

  it('checks the end of the text, trailing whitespace aside', async () => {
    assert.equal(await verdictOf('default.endsWith', { suffix: 'Thanks.' }, 'All done. Thanks.\n'), true);
    assert.equal(await verdictOf('default.endsWith', { suffix: 'Thanks.' }, 'All done. thanks.'), false);
    assert.equal(await verdictOf('default.endsWith', { suffix: 'Thanks.', not: true }, 'All done.'), true);
    assert.ok(parametersError('default.endsWith', { suffix: '' }));
  });
});

describe('request checks', () => {
  it('allows listed models only', async () => {
    const allowed = { models: ['gpt-4o-mini', 'claude-3-5-haiku'] };
    assert.equal((await runCheck('default.modelWhitelist', allowed, inputSubject('hi'))).verdict, true);
    const other = inputSubject('hi', { request: { model: 'gpt-4o', messages: [] } as never });
    const refused = await runCheck('default.modelWhitelist', allowed, other);
    assert.equal(refused.verdict, false);
    assert.deepEqual(refused.data, { model: 'gpt-4o' });
  });

  it('allows and blocks request types', async () => {
    const chat = inputSubject('hi');
    const proxy = inputSubject('hi', { requestType: 'proxy' });
    assert.equal((await runCheck('default.allowedRequestTypes', { allowedTypes: ['chatComplete'] }, chat)).verdict, true);
    assert.equal((await runCheck('default.allowedRequestTypes', { allowedTypes: ['chatComplete'] }, proxy)).verdict, false);
    assert.equal((await runCheck('default.allowedRequestTypes', { blockedTypes: ['proxy'] }, proxy)).verdict, false);
    assert.equal((await runCheck('default.allowedRequestTypes', { blockedTypes: ['proxy'] }, chat)).verdict, true);
    assert.ok(parametersError('default.allowedRequestTypes', {}), 'one of the lists is required');
  });

  it('requires metadata keys: all by default, any or none', async () => {
    const subject = inputSubject('hi', { metadata: { _user: 'u1', team: 'search' } });
    assert.equal((await runCheck('default.requiredMetadataKeys', { metadataKeys: ['_user', 'team'] }, subject)).verdict, true);
    const missing = await runCheck('default.requiredMetadataKeys', { metadataKeys: ['_user', 'env'] }, subject);
    assert.equal(missing.verdict, false);
    assert.deepEqual(missing.data, { found: ['_user'], missing: ['env'] });
    assert.equal((await runCheck('default.requiredMetadataKeys', { metadataKeys: ['_user', 'env'], operator: 'any' }, subject)).verdict, true);
    assert.equal((await runCheck('default.requiredMetadataKeys', { metadataKeys: ['env'], operator: 'none' }, subject)).verdict, true);
  });

  it('fails an empty answer', async () => {
    assert.equal((await runCheck('default.notNull', {}, outputSubject('Paris.'))).verdict, true);
    assert.equal((await runCheck('default.notNull', {}, outputSubject(null))).verdict, false);
    assert.equal((await runCheck('default.notNull', {}, outputSubject(' \n'))).verdict, false);
  });
});

describe('default.pii', () => {
  const text = [
    'Mail jane.doe@example.com or call +44 20 7946 0958 or (212) 555-0187.',
    'Card 4111 1111 1111 1111, SSN 123-45-6789, NINO AB 12 34 56 C, SIN 130 692 544.',
    'Server 192.168.1.20 and 2001:db8::1.',
  ].join(' ');

  it('implements the Luhn check', () => {
    assert.equal(passesLuhn('79927398713'), true);
    assert.equal(passesLuhn('79927398710'), false);
    assert.equal(passesLuhn('4111111111111111'), true);
    assert.equal(passesLuhn('4111111111111112'), false);
  });

  it('finds each category and fails, without echoing the values', async () => {
    const result = await runCheck('default.pii', {}, inputSubject(text));
    assert.equal(result.verdict, false);
    assert.deepEqual(result.data, {
      findings: [
        { category: 'email', kind: 'email' },
        { category: 'phone', kind: 'phone' },
        { category: 'phone', kind: 'phone' },
        { category: 'card', kind: 'card' },
        { category: 'national_id', kind: 'us_ssn' },
        { category: 'national_id', kind: 'uk_nino' },
        { category: 'national_id', kind: 'ca_sin' },
        { category: 'ip_address', kind: 'ipv4' },
        { category: 'ip_address', kind: 'ipv6' },
      ],
    });
    assert.equal(result.transformedText, undefined);
    assert.doesNotMatch(JSON.stringify(result), /jane|4111|6789/);
  });

  it('redacts with placeholders and passes', async () => {
    const result = await runCheck('default.pii', { redact: true }, inputSubject(text));
    assert.equal(result.verdict, true);
    assert.equal(
      result.transformedText,
      'Mail [EMAIL] or call [PHONE] or [PHONE]. Card [CARD], SSN [NATIONAL_ID], NINO [NATIONAL_ID], SIN [NATIONAL_ID]. Server [IP_ADDRESS] and [IP_ADDRESS].',
    );
  });

  it('only looks for the chosen categories', async () => {
    const result = await runCheck('default.pii', { categories: ['email', 'card'], redact: true }, inputSubject(text));
    assert.match(result.transformedText ?? '', /^Mail \[EMAIL\] or call \+44 20 7946 0958 .* Card \[CARD\], SSN 123-45-6789,/);
    assert.ok(parametersError('default.pii', { categories: ['passport'] }));
    assert.ok(parametersError('default.pii', { categories: [] }));
  });

  it('ignores look-alikes: numbers failing Luhn, unassignable SSNs, times, versions and dates', async () => {
    for (const clean of [
      'Order 4111 1111 1111 1112 shipped.',
      'Ticket 000-12-3456 and 666-12-3456 and 123-00-4567.',
      'Meet at 12:30:45 on 2024-01-15, release 1.2.3, build 10.0.19045.',
      'SIN-like 046 454 286 starts with 0.',
      'Scope :: and MAC 00:1A:2B:3C:4D:5E and std::vector.',
    ]) {
      const result = await runCheck('default.pii', {}, inputSubject(clean));
      assert.equal(result.verdict, true, `${clean}: ${JSON.stringify(result.data)}`);
    }
  });

  it('finds phone numbers written with a country code and brackets', async () => {
    const result = await runCheck('default.pii', { redact: true }, inputSubject('Call +1 (212) 555-0187 or +49 30 901820.'));
    assert.equal(result.transformedText, 'Call [PHONE] or [PHONE].');
  });

  it('treats a card number as a card, not also as a phone number', async () => {
    const result = await runCheck('default.pii', { redact: true }, inputSubject('pay with 5555-5555-5555-4444 now'));
    assert.equal(result.transformedText, 'pay with [CARD] now');
  });
});
