import type { Guardrail } from '../api/types';
import { ResourceTable } from '../components/resource-table';
import { fmt } from '../format';

export function GuardrailsPage() {
  return (
    <section aria-labelledby="guardrails-title">
      <h1 id="guardrails-title" tabIndex={-1}>
        Guardrails
      </h1>
      <p className="hint">Attach a guardrail to a config by its slug in <code>input_guardrails</code> or <code>output_guardrails</code>.</p>
      <ResourceTable<Guardrail>
        path="/v1/guardrails"
        label="Guardrails"
        columns={[
          { name: 'Name', cell: (g) => g.name },
          { name: 'Slug', cell: (g) => <code>{g.slug}</code> },
          { name: 'Checks', cell: (g) => (g.checks as Array<{ id?: string }>).map((c) => c.id ?? '?').join(', ') },
          { name: 'On failure', cell: (g) => JSON.stringify(g.actions) },
          { name: 'Updated', cell: (g) => fmt.time(g.updated_at) },
        ]}
      />
    </section>
  );
}
