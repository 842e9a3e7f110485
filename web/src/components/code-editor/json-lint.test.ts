import { describe, expect, test } from 'vitest';
import { validatorFor } from '../../api/spec-validation';
import { jsonDiagnostics, locate } from './json-lint';

const marked = (text: string, d: { from: number; to: number }) => text.slice(d.from, d.to);

describe('lint markers at the field', () => {
  const text = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ provider: '@a' }, { provider: '@b', weight: -1 }] }, null, 2);

  test('a pointer finds the value it names, and an unknown key is marked on its name', () => {
    expect(marked(text, locate(text, '/targets/1/weight'))).toBe('-1');
    expect(marked(text, locate(text, '/strategy/mode'))).toBe('"fallback"');
    expect(marked(text, locate(text, '/targets/0', 'colour'))).toBe('{');
    const withUnknown = '{"provider": "@a", "colour": "red"}';
    expect(marked(withUnknown, locate(withUnknown, '', 'colour'))).toBe('"colour"');
  });

  test("the Config schema's error is marked on the failing value", () => {
    const [diagnostic, ...rest] = jsonDiagnostics(text, validatorFor('Config'));
    expect(rest).toEqual([]);
    expect(marked(text, diagnostic!)).toBe('-1');
    expect(diagnostic!.message).toBe('targets.1.weight must be >= 0');
  });

  test('an unknown key is marked on its name; a valid document has no markers', () => {
    const unknown = '{"provider": "@a", "colour": "red"}';
    const [diagnostic] = jsonDiagnostics(unknown, validatorFor('Config'));
    expect(marked(unknown, diagnostic!)).toBe('"colour"');
    expect(diagnostic!.message).toBe('the body has an unknown key "colour"');
    expect(jsonDiagnostics('{"provider": "@a"}', validatorFor('Config'))).toEqual([]);
  });

  test('a wrapped document (the checks of a guardrail) is marked inside the text, and a syntax error where it stops', () => {
    const checks = '[{"id": "default.contains"}, {"parameters": {}}]';
    const [diagnostic] = jsonDiagnostics(checks, validatorFor('UpdateGuardrail'), 'checks');
    expect(marked(checks, diagnostic!)).toBe('{"parameters": {}}');
    expect(diagnostic!.message).toBe('checks.1 needs "id"');
    const [syntax] = jsonDiagnostics('{"a": ]', validatorFor('Config'));
    expect(syntax!.message).toMatch(/^Not valid JSON/);
    expect(syntax!.from).toBe(6);
  });
});
