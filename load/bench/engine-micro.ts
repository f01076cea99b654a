// Micro-benchmarks behind the engine benchmark's findings: the per-call cost of the engine's suspected
// hot spots (xstate transition, rng.fork, source-address derivation, scheduler queue, publish), via
// tinybench. Run: node --import tsx load/bench/engine-micro.ts
import { Bench } from 'tinybench';
import { initialTransition, transition } from 'xstate';
import { createRng, createScheduler, createClock } from '../../sim/index.ts';
import { newWorld } from '../../fake-provider/app.ts';
import { publish } from '../../fake-provider/engine/publish.ts';
import { send, start } from '../../fake-provider/engine/lifecycle.ts';
import { depositMachine, type DepositEvent } from '../../fake-provider/resources/deposits/machine.ts';
import { generateSourceAddress, generateTxHash } from '../../fake-provider/resources/deposits/chain-formats.ts';
import { deriveWallet } from '../../fake-provider/resources/accounts/index.ts';

const world = newWorld({ seed: 'micro' });
const rng = createRng('micro');
const input = { required_confirmations: 1_000_000_000, partner_screening: false };
const [snap0] = initialTransition(depositMachine, input);
const entity0 = start(world, depositMachine, 'dep_x', input).snapshot;

const clock = createClock();
const big = createScheduler(clock);
for (let i = 0; i < 50_000; i++) big.scheduleCall(clock.now_ms() + 1 + (i % 997) * 1000, 'fill', () => undefined);
const small = createScheduler(clock);

const CONFIRM: DepositEvent = { type: 'CONFIRM', blocks: 1 };
const bench = new Bench({ name: 'engine micro', time: 1_000, warmupTime: 200 });
bench
  .add('xstate transition() (deposit CONFIRM)', () => void transition(depositMachine, snap0, { type: 'CONFIRM', blocks: 1 }))
  .add('xstate initialTransition() (deposit)', () => void initialTransition(depositMachine, input))
  .add('snapshot.can() (deposit CONFIRM)', () => void snap0.can({ type: 'CONFIRM', blocks: 1 }))
  .add('lifecycle.send (table select + apply + log)', () => void send(world, depositMachine, 'dep_x', entity0, CONFIRM))
  .add('lifecycle.start', () => void start(world, depositMachine, 'dep_x', input))
  .add('rng.fork (SHA-256 seed)', () => void rng.fork('fills/trd_abcdef0123456789'))
  .add('generateSourceAddress evm (secp256k1 keygen)', () => void generateSourceAddress('evm:42161', rng))
  .add('deriveWallet solana (ed25519 keygen)', () => void deriveWallet('solana', rng.bytes(32)))
  .add('generateTxHash evm', () => void generateTxHash('evm:42161', rng))
  .add(
    'scheduler schedule+cancel, 50k queued (splice/findIndex)',
    () => void big.cancel(big.scheduleCall(clock.now_ms() + 500_000, 'x', () => undefined)),
  )
  .add('scheduler schedule+cancel, empty queue', () => void small.cancel(small.scheduleCall(clock.now_ms(), 'y', () => undefined)))
  .add(
    'publish (frozen shallow copy + 0 listeners)',
    () =>
      void publish(world, 'org_x', 'acct_x', 'deposit.pending', {
        deposit_address_id: 'dpa_x',
        asset_key: 'native.evm:42161',
        detected_atoms: '2000000000000000000',
      }),
  );

await bench.run();
console.table(
  bench.tasks.map((t) => ({
    task: t.name,
    'median µs': Number((t.result.state === 'completed' ? t.result.latency.p50 * 1000 : NaN).toFixed(2)),
    'ops/s': t.result.state === 'completed' ? Math.round(t.result.throughput.p50) : t.result.state,
  })),
);
