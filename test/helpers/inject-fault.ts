/**
 * Preloaded into a gw child process by tests (`--import`): on SIGUSR2 it raises the fault that
 * GW_TEST_INJECT_FAULT names (`exception`: a throw nothing catches; `rejection`: a promise rejected
 * with no handler), so a test can watch what gw does with a bug it did not foresee.
 */
process.on('SIGUSR2', () => {
  const fault = new Error('injected fault for the test');
  if (process.env.GW_TEST_INJECT_FAULT === 'rejection') void Promise.reject(fault);
  else throw fault;
});
