/**
 * A pure function of a string remembered for inputs that repeat call after call (provider URLs,
 * header names). At most `max` inputs are kept; when full it starts over, so inputs that stop
 * coming do not hold their place. `keep` says which results may be kept (default: all).
 */
export function boundedMemo<T>(compute: (input: string) => T, max: number, keep: (result: T) => boolean = () => true): (input: string) => T {
  const known = new Map<string, T>();
  return (input) => {
    let result = known.get(input);
    if (result === undefined) {
      result = compute(input);
      if (!keep(result)) return result;
      if (known.size >= max) known.clear();
      known.set(input, result);
    }
    return result;
  };
}
