/** How a bench child process tells the parent it is ready, and on which loopback port. */
export interface ReadyMessage {
  ready: true;
  port: number;
}

/** CPU time this process has used so far, in microseconds: noise from other processes on the machine does not inflate it. */
export interface CpuMessage {
  cpuMicros: number;
}

export function reportReady(port: number): void {
  if (!process.send) throw new Error('run this file through scripts/bench.ts, which forks it with an IPC channel');
  process.on('message', (message: { cpu?: true }) => {
    if (message.cpu) {
      const { user, system } = process.cpuUsage();
      process.send!({ cpuMicros: user + system } satisfies CpuMessage);
    }
  });
  process.send({ ready: true, port } satisfies ReadyMessage);
}
