/**
 * Runs a config's strategy tree, nested to any depth. Each node is one of:
 * - single: its first target;
 * - fallback: targets in order until one succeeds; with `strategy.on_status_codes`, only a
 *   failure whose status is listed moves on (a timeout is 408, a guardrail denial 446, a refused
 *   connection has no status and always moves on, and so does a saved provider's own limit
 *   refusal, since that provider was never called); any other failure is the answer;
 * - loadbalance: one target drawn by weight (default 1) from an injectable random source;
 * - conditional: the target named by the first matching `strategy.conditions[].then`, else by
 *   `strategy.default`.
 * A node without targets is a leaf. Leaves run with settings inherited along their path
 * (inheritance.ts); a leaf's path is its indices from the root joined by dots ("0.1").
 */
import { ValidationError } from '../../core/errors.js';
import type { ConfigNode } from './config-node.js';
import { matches, type ConditionSubject } from './conditions.js';
import type { Deadline } from './deadline.js';
import { inherit, rootSettings } from './inheritance.js';
import type { Failure, Outcome } from './outcome.js';
import { weightedPick } from './weighted-pick.js';

export interface Leaf {
  /** Indices from the root, dot-joined; "" when the root itself is the leaf. */
  path: string;
  /** The leaf's effective settings after inheritance (no strategy or targets). */
  settings: ConfigNode;
}

export interface RouteStep {
  path: string;
  provider: string;
  status: number | null;
  error?: string;
}

export interface RouteContext<T> {
  subject: ConditionSubject;
  random: () => number;
  runLeaf: (leaf: Leaf) => Promise<Outcome<T>>;
  deadline?: Deadline;
}

export interface RouteResult<T> {
  outcome: Outcome<T>;
  /** The leaf that produced the outcome (the one that served, or the last that failed). */
  leaf: Leaf;
  /** Every leaf tried, in order. */
  steps: RouteStep[];
}

type NodeResult<T> = { outcome: Outcome<T>; leaf: Leaf };

function childPath(parent: string, index: number): string {
  return parent === '' ? String(index) : `${parent}.${index}`;
}

function errorMessage(failure: Failure): string {
  const error = failure.error as { message?: unknown } | undefined;
  return typeof error?.message === 'string' ? error.message : failure.reason;
}

class TreeRun<T> {
  readonly steps: RouteStep[] = [];

  constructor(private readonly context: RouteContext<T>) {}

  async node(node: ConfigNode, settings: ConfigNode, path: string): Promise<NodeResult<T>> {
    const targets = node.targets;
    if (!targets || targets.length === 0) return this.leaf({ path, settings });
    const child = (index: number) => this.node(targets[index]!, inherit(settings, targets[index]!), childPath(path, index));
    const strategy = node.strategy ?? { mode: 'single' as const };
    switch (strategy.mode) {
      case 'single':
        return child(0);
      case 'loadbalance':
        return child(weightedPick(targets.map((target) => target.weight ?? 1), this.context.random));
      case 'conditional':
        return child(this.conditionalIndex(node, path));
      case 'fallback': {
        let result: NodeResult<T> | undefined;
        for (let index = 0; index < targets.length; index++) {
          result = await child(index);
          if (result.outcome.ok || !this.movesOn(result.outcome, strategy.on_status_codes)) return result;
          if (this.context.deadline?.expired()) return result;
        }
        return result!;
      }
    }
  }

  private movesOn(failure: Failure, statusCodes: number[] | undefined): boolean {
    if (!statusCodes || failure.status === null || failure.reason === 'limit') return true;
    return statusCodes.includes(failure.status);
  }

  private conditionalIndex(node: ConfigNode, path: string): number {
    const targets = node.targets!;
    const byName = (name: string | undefined) => (name === undefined ? -1 : targets.findIndex((target) => target.name === name));
    for (const rule of node.strategy?.conditions ?? []) {
      if (matches(rule.query, this.context.subject)) {
        const index = byName(rule.then);
        if (index >= 0) return index;
      }
    }
    const fallbackIndex = byName(node.strategy?.default);
    if (fallbackIndex >= 0) return fallbackIndex;
    throw new ValidationError(
      `No condition of the conditional strategy${path ? ` at targets ${path}` : ''} matched the request and it has no default target`,
      'x-gw-config',
      'no_route_matched',
    );
  }

  private async leaf(leaf: Leaf): Promise<NodeResult<T>> {
    const outcome = await this.context.runLeaf(leaf);
    const provider = String(leaf.settings.provider ?? leaf.settings.virtual_key ?? '');
    this.steps.push(
      outcome.ok
        ? { path: leaf.path, provider, status: outcome.status }
        : { path: leaf.path, provider, status: outcome.status, error: errorMessage(outcome) },
    );
    return { outcome, leaf };
  }
}

export async function runStrategyTree<T>(root: ConfigNode, context: RouteContext<T>): Promise<RouteResult<T>> {
  const run = new TreeRun(context);
  const { outcome, leaf } = await run.node(root, rootSettings(root), '');
  return { outcome, leaf, steps: run.steps };
}

/** Names referenced by conditional strategies that no sibling target carries, as `param` paths. */
export function conditionalProblems(node: ConfigNode, at = ''): string[] {
  const problems: string[] = [];
  const names = new Set((node.targets ?? []).map((target) => target.name).filter(Boolean));
  if (node.strategy?.mode === 'conditional') {
    node.strategy.conditions?.forEach((rule, index) => {
      if (!names.has(rule.then)) problems.push(`${at}strategy.conditions[${index}].then`);
    });
    if (node.strategy.default !== undefined && !names.has(node.strategy.default)) problems.push(`${at}strategy.default`);
  }
  node.targets?.forEach((target, index) => problems.push(...conditionalProblems(target, `${at}targets[${index}].`)));
  return problems;
}
