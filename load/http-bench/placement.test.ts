// Pinning (placement.ts): the command line a pinned, batch-scheduled process starts with, the CPU list parser,
// which CPUs the bench picks, and a process started that way really runs on the one CPU alone.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cpusAllowed, describePlacement, launchArgv, parseCpuList, pinAvailable, placementFor } from './placement.ts';

describe('launchArgv', () => {
  it('puts taskset outermost, then chrt, then the program', () => {
    expect(launchArgv(['node', 'a.ts'], { cpu: 1, sched: 'batch' })).toEqual(['taskset', '-c', '1', 'chrt', '-b', '0', 'node', 'a.ts']);
    expect(launchArgv(['node', 'a.ts'], { cpu: 0 })).toEqual(['taskset', '-c', '0', 'node', 'a.ts']);
    expect(launchArgv(['node', 'a.ts'], { sched: 'normal' })).toEqual(['node', 'a.ts']);
    expect(launchArgv(['node'], {})).toEqual(['node']);
  });
});

describe('parseCpuList', () => {
  it('reads ranges and single CPUs', () => {
    expect(parseCpuList('0-1')).toEqual([0, 1]);
    expect(parseCpuList('0-2,4,6-7\n')).toEqual([0, 1, 2, 4, 6, 7]);
    expect(parseCpuList('3')).toEqual([3]);
  });
});

describe('placementFor', () => {
  const yes = (): boolean => true;
  it('pins servers to the first allowed CPU and clients to the second', () => {
    expect(placementFor(true, { allowed: [2, 5, 7], available: yes })).toEqual({ server_cpu: 2, client_cpu: 5 });
    expect(describePlacement({ server_cpu: 2, client_cpu: 5 })).toBe('pinned (taskset): every server on cpu 2, every client on cpu 5');
  });
  it('pins nothing when asked not to, with one CPU, or without taskset', () => {
    expect(placementFor(false, { allowed: [0, 1], available: yes })).toEqual({});
    expect(placementFor(true, { allowed: [0], available: yes })).toEqual({});
    expect(placementFor(true, { allowed: undefined, available: yes })).toEqual({});
    expect(placementFor(true, { allowed: [0, 1], available: () => false })).toEqual({});
    expect(describePlacement({})).toBe('not pinned');
  });
});

describe.runIf(pinAvailable() && (cpusAllowed()?.length ?? 0) >= 2)('a pinned process', () => {
  it('runs on its one CPU alone', () => {
    const cpu = cpusAllowed()![1];
    const [command, ...args] = launchArgv(
      [
        process.execPath,
        '-e',
        "process.stdout.write(/Cpus_allowed_list:\\s*(\\S+)/.exec(require('fs').readFileSync('/proc/self/status','utf8'))[1])",
      ],
      { cpu },
    );
    const r = spawnSync(command, args, { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(String(cpu));
  });
});
