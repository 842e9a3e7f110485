/**
 * A clock for tests of per-minute limits: it reads the start of a UTC minute when created and then
 * advances in real time, so a minute window cannot roll over between a test's first and last
 * request unless the test runs for a whole minute (a loaded machine can make a few requests slow).
 */
export function clockFromMinuteStart(): () => number {
  const offset = Date.UTC(2026, 10, 27, 12, 0, 0) - Date.now();
  return () => Date.now() + offset;
}
