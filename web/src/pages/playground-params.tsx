/** The chat parameters and tools of the playground (what the spec's chat request takes), empty ones not sent. */
import { Field } from '../components/field';
import type { Params } from './playground-request';

const TOOL_EXAMPLE = `[
  {
    "type": "function",
    "function": {
      "name": "get_weather",
      "description": "The weather in a city",
      "parameters": { "type": "object", "properties": { "location": { "type": "string" } }, "required": ["location"] }
    }
  }
]`;

export function PlaygroundParams({ params, setParams }: { params: Params; setParams: (update: (old: Params) => Params) => void }) {
  const set =
    <K extends keyof Params>(name: K) =>
    (value: Params[K]) =>
      setParams((old) => ({ ...old, [name]: value }));
  return (
    <details className="params">
      <summary>Parameters and tools</summary>
      <div className="filters">
        <Field label="Temperature" hint="0 to 2">
          <input type="number" min={0} max={2} step="any" value={params.temperature} onChange={(e) => set('temperature')(e.target.value)} />
        </Field>
        <Field label="Top p" hint="0 to 1">
          <input type="number" min={0} max={1} step="any" value={params.top_p} onChange={(e) => set('top_p')(e.target.value)} />
        </Field>
        <Field label="Max tokens">
          <input type="number" min={1} step={1} value={params.maxTokens} onChange={(e) => set('maxTokens')(e.target.value)} />
        </Field>
        <Field label="Sent as" hint="max_tokens for models that want the older name">
          <select value={params.maxTokensField} onChange={(e) => set('maxTokensField')(e.target.value as Params['maxTokensField'])}>
            <option value="max_completion_tokens">max_completion_tokens</option>
            <option value="max_tokens">max_tokens</option>
          </select>
        </Field>
        <Field label="Seed">
          <input type="number" step={1} value={params.seed} onChange={(e) => set('seed')(e.target.value)} />
        </Field>
        <Field label="Response format">
          <select value={params.responseFormat} onChange={(e) => set('responseFormat')(e.target.value as Params['responseFormat'])}>
            <option value="text">Text</option>
            <option value="json_object">JSON object</option>
          </select>
        </Field>
        <Field label="Stop sequences" hint="One a line, up to four">
          <textarea rows={2} value={params.stop} onChange={(e) => set('stop')(e.target.value)} />
        </Field>
      </div>
      <label className="check">
        <input type="checkbox" checked={params.stream} onChange={(e) => set('stream')(e.target.checked)} />
        Stream the answer
      </label>
      <Field label="Tools (JSON)" hint="A list of function tools, as the chat request's tools; checked against the spec before sending">
        <textarea className="code-editor small" rows={6} value={params.tools} placeholder={TOOL_EXAMPLE} onChange={(e) => set('tools')(e.target.value)} spellCheck={false} />
      </Field>
      <Field label="Tool choice">
        <select value={params.toolChoice} onChange={(e) => set('toolChoice')(e.target.value as Params['toolChoice'])} disabled={!params.tools.trim()}>
          <option value="">The model decides (not sent)</option>
          <option value="auto">auto</option>
          <option value="required">required</option>
          <option value="none">none</option>
        </select>
      </Field>
    </details>
  );
}
