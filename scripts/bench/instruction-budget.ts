/**
 * The rules of CI's CPU budget (scripts/instruction-budget.json), kept apart from the callgrind run
 * in scripts/bench-instructions.ts so that a unit test can hold them without valgrind.
 */

export interface Budget {
  /** How far over its budget an operation may go (0.03: 3%) before the check fails. */
  tolerance: number;
  warmupCalls: number;
  countedCalls: number;
  operations: Record<string, { instructions: number; reason: string }>;
}

export function parseBudget(text: string): Budget {
  return JSON.parse(text) as Budget;
}

/** What the run measured, against the budget it is held to: one failure line per operation over it, or unbudgeted. */
export function overBudget(budget: Budget, measured: Record<string, number>, run: { warmupCalls: number; countedCalls: number }): string[] {
  const failures: string[] = [];
  // The counts depend on how many calls warm up and are counted: a budget holds only for its own numbers.
  if (budget.warmupCalls !== run.warmupCalls || budget.countedCalls !== run.countedCalls)
    failures.push(`the budget was measured with ${budget.warmupCalls} warm-up and ${budget.countedCalls} counted calls, this run ${run.warmupCalls} and ${run.countedCalls}`);
  for (const [name, main] of Object.entries(measured)) {
    const limit = budget.operations[name]?.instructions;
    if (limit === undefined) failures.push(`${name}: no budget in the file`);
    else if (main > limit * (1 + budget.tolerance))
      failures.push(`${name}: ${Math.round(main)} instructions per call, over its budget ${limit} by more than ${100 * budget.tolerance}%: make it cheaper, or raise the budget (--write) with a reason`);
  }
  return failures;
}

/** A raised budget must say why: each operation whose budget went up since `before` must have a changed reason. */
export function raisesWithoutReason(before: Budget, now: Budget): string[] {
  const failures: string[] = [];
  for (const [name, { instructions, reason }] of Object.entries(now.operations)) {
    const old = before.operations[name];
    if (old && instructions > old.instructions && reason.trim() === old.reason.trim())
      failures.push(`${name}: budget raised from ${old.instructions} to ${instructions} without a new reason`);
  }
  return failures;
}

/**
 * Which revision the budget file is compared with: HEAD when the file has uncommitted edits (a
 * developer before committing), else the commit before HEAD (CI's fresh clone of the branch);
 * none in a clone holding HEAD alone (a shallow or first commit: nothing to compare with).
 */
export function baseRevision(edited: boolean, hasParent: boolean): 'HEAD' | 'HEAD~1' | undefined {
  if (edited) return 'HEAD';
  return hasParent ? 'HEAD~1' : undefined;
}
