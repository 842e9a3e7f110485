/**
 * What the Config schema cannot say and routing needs: every `strategy.conditions[].then` and
 * `strategy.default` names a sibling target, and every condition query uses known operators on
 * `metadata.*` / `params.*` with usable operands. Run after the schema, at save and inline.
 */
import { ValidationError } from '../../core/errors.js';
import { queryProblems } from './conditions.js';
import type { ConfigNode } from './config-node.js';
import { conditionalProblems } from './strategy-tree.js';

function queryProblemsIn(node: ConfigNode, at: string): string[] {
  const problems: string[] = [];
  node.strategy?.conditions?.forEach((rule, index) => problems.push(...queryProblems(rule.query, `${at}strategy.conditions[${index}].query`)));
  node.targets?.forEach((target, index) => problems.push(...queryProblemsIn(target, `${at}targets[${index}].`)));
  return problems;
}

/** Throws ValidationError naming the first bad key, prefixed by `prefix` (e.g. "config" or "x-gw-config"). */
export function assertRoutable(config: ConfigNode, prefix: string): void {
  const names = conditionalProblems(config);
  if (names.length > 0) throw new ValidationError(`${prefix}.${names[0]} names no target of that strategy`, `${prefix}.${names[0]}`);
  const queries = queryProblemsIn(config, '');
  if (queries.length > 0) {
    throw new ValidationError(
      `${prefix}.${queries[0]} is not a valid condition (operators $eq $ne $gt $gte $lt $lte $in $nin $regex $and $or over metadata.* and params.*)`,
      `${prefix}.${queries[0]}`,
    );
  }
}
